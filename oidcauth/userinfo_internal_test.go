package oidcauth

import (
	"encoding/json"
	"maps"
	"testing"
)

// TestMergeClaims checks how the userinfo endpoint's claims join the ID
// token's: added where the ID token lacks them, never over its own, and
// email_verified always from the source of the email.
func TestMergeClaims(t *testing.T) {
	set := func(kv ...string) claimSet {
		out := claimSet{}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = json.RawMessage(kv[i+1])
		}
		return out
	}
	tests := []struct {
		name              string
		idToken, userinfo claimSet
		want              claimSet
	}{
		{"userinfo fills what is missing",
			set(`sub`, `"s"`),
			set(`sub`, `"s"`, `email`, `"a@x.com"`, `email_verified`, `true`, `groups`, `["g"]`),
			set(`sub`, `"s"`, `email`, `"a@x.com"`, `email_verified`, `true`, `groups`, `["g"]`)},
		{"the ID token wins",
			set(`sub`, `"s"`, `preferred_username`, `"ada"`, `groups`, `["a"]`),
			set(`sub`, `"s"`, `preferred_username`, `"other"`, `groups`, `["b"]`),
			set(`sub`, `"s"`, `preferred_username`, `"ada"`, `groups`, `["a"]`)},
		{"an ID token email is not verified by userinfo",
			set(`email`, `"a@x.com"`),
			set(`email`, `"b@x.com"`, `email_verified`, `true`),
			set(`email`, `"a@x.com"`)},
		{"a userinfo email is not verified by the ID token",
			set(`email_verified`, `true`),
			set(`email`, `"b@x.com"`),
			set(`email`, `"b@x.com"`)},
		{"email and its verification from userinfo together",
			set(`email_verified`, `false`),
			set(`email`, `"b@x.com"`, `email_verified`, `true`),
			set(`email`, `"b@x.com"`, `email_verified`, `true`)},
		{"nothing from userinfo", set(`sub`, `"s"`), claimSet{}, set(`sub`, `"s"`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := mergeClaims(tc.idToken, tc.userinfo)
			if !maps.EqualFunc(got, tc.want, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
				t.Errorf("mergeClaims = %s, want %s", dump(got), dump(tc.want))
			}
		})
	}
}

func dump(c claimSet) string {
	b, _ := json.Marshal(c)
	return string(b)
}

// TestMissing checks when a sign-in asks the userinfo endpoint: a claim
// Sked reads is absent from the ID token.
func TestMissing(t *testing.T) {
	full := claimSet{"email": nil, "preferred_username": nil, "groups": nil}
	withRole := &Client{settings: Settings{RoleClaim: "groups"}}
	without := &Client{}
	if withRole.missing(full) || without.missing(full) {
		t.Error("all claims there, yet missing")
	}
	noGroups := claimSet{"email": nil, "preferred_username": nil}
	if !withRole.missing(noGroups) || without.missing(noGroups) {
		t.Error("the role claim is wanted only when set")
	}
	if !without.missing(claimSet{"preferred_username": nil}) {
		t.Error("no email, yet not missing")
	}
}
