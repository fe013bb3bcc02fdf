package oidcauth

import (
	"slices"
	"strings"
	"testing"
)

func TestParseRoleMap(t *testing.T) {
	m, err := ParseRoleMap(" sked-admins = admin ; CN=ops,OU=groups=ops:owner;team-a=default:reader;team-a=default:reader;")
	if err != nil {
		t.Fatal(err)
	}
	got := m.Grants([]string{"team-a", "CN=ops,OU=groups", "sked-admins"})
	var s []string
	for _, g := range got {
		s = append(s, g.String())
	}
	if want := []string{"admin", "ops:owner", "default:reader"}; !slices.Equal(s, want) {
		t.Errorf("grants = %v, want %v", s, want)
	}
	if g := m.Grants(nil); len(g) != 0 {
		t.Errorf("no values: %v", g)
	}
	if m, err := ParseRoleMap(""); err != nil || !m.Empty() {
		t.Errorf("empty: %v %v", m, err)
	}
	for _, bad := range []struct{ in, want string }{
		{"team-a", "is not VALUE=admin"},
		{"=admin", "no claim value"},
		{"team-a=root", "is not admin or WORKSPACE:ROLE"},
		{"team-a=default:writer", `role "writer" is not one of reader, operator, editor, owner`},
		{"team-a=-bad:reader", "is not a workspace name"},
		{"team-a=default:", "role"},
	} {
		_, err := ParseRoleMap(bad.in)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ParseRoleMap(%q) = %v, want %q", bad.in, err, bad.want)
		}
	}
}

func TestValidateIssuer(t *testing.T) {
	for _, ok := range []string{"https://id.example.com", "https://id.example.com/realms/x", "http://127.0.0.1:5556", "http://localhost:8080/dex", "http://[::1]:9000"} {
		if err := ValidateIssuer(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"http://id.example.com", "id.example.com", "ftp://x", "https://", "https://u:p@id.example.com", "https://id.example.com/?x=1"} {
		if ValidateIssuer(bad) == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

func TestParseDomains(t *testing.T) {
	got, err := ParseDomains(" Example.COM, @example.org ,,")
	if err != nil || !slices.Equal(got, []string{"example.com", "example.org"}) {
		t.Errorf("ParseDomains = %v, %v", got, err)
	}
	for _, bad := range []string{"a@b.com", "http://x.com", "nodot"} {
		if _, err := ParseDomains(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
