package web

// ZoneCaption says in which zone a list of times is shown: "in
// Europe/Berlin, UTC alongside", or "in UTC" for UTC, where a second
// column would repeat the first.
func ZoneCaption(zone string) string {
	if zone == "" || zone == "UTC" {
		return "in UTC"
	}
	return "in " + zone + ", UTC alongside"
}
