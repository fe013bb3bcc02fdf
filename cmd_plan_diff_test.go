package main

import (
	"slices"
	"testing"
)

func TestLineDiff(t *testing.T) {
	for _, tc := range []struct {
		name          string
		before, after string
		want          []string
	}{
		{"equal", "a\nb", "a\nb", nil},
		{"create", "", "a\nb", []string{"+ a", "+ b"}},
		{"delete", "a\nb", "", []string{"- a", "- b"}},
		{"change in the middle", "a\nb\nc", "a\nx\nc", []string{"  a", "- b", "+ x", "  c"}},
		{"insert", "a\nc", "a\nb\nc", []string{"  a", "+ b", "  c"}},
		{"far lines elided", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10", "1\n2\n3\n4\n5\nfive\n7\n8\n9\n10",
			[]string{"  …", "  3", "  4", "  5", "- 6", "+ five", "  7", "  8", "  9", "  …"}},
	} {
		if got := lineDiff(tc.before, tc.after); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
