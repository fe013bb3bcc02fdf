package handlers

// TestRoute is a route of the table as tests outside the package see it.
type TestRoute struct{ Method, Path, Access string }

// RoutesForTest lists the route table (TestRoleMatrix).
func RoutesForTest() []TestRoute {
	var out []TestRoute
	for _, r := range (&Server{}).routeTable() {
		out = append(out, TestRoute{r.method, r.path, r.access.name})
	}
	return out
}
