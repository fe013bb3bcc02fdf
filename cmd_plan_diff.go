package main

import "strings"

// diffContext is how many unchanged lines lineDiff keeps around a change.
const diffContext = 3

// lineDiff returns the difference from before to after, line by line:
// removed lines start with "- ", added ones with "+ ", unchanged ones
// with "  "; runs of unchanged lines further than diffContext from a
// change are shown as one "  …" line; equal texts have no lines. It is a longest common subsequence
// diff, quadratic in the lines: definitions are small (a job is at most
// 16,000 bytes).
func lineDiff(before, after string) []string {
	a, b := splitLines(before), splitLines(after)
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		text string
		same bool
	}
	var all []line
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			all = append(all, line{"  " + a[i], true})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			all = append(all, line{"- " + a[i], false})
			i++
		default:
			all = append(all, line{"+ " + b[j], false})
			j++
		}
	}
	// Keep the lines within diffContext of a change.
	keep := make([]bool, len(all))
	changed := false
	for k, l := range all {
		if !l.same {
			changed = true
			for m := max(0, k-diffContext); m <= min(len(all)-1, k+diffContext); m++ {
				keep[m] = true
			}
		}
	}
	if !changed {
		return nil
	}
	var out []string
	skipped := false
	for k, l := range all {
		if !keep[k] {
			if !skipped {
				out = append(out, "  …")
			}
			skipped = true
			continue
		}
		skipped = false
		out = append(out, l.text)
	}
	return out
}

// splitLines splits s into lines; an empty s has none.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimRight(s, "\n"), "\n")
}
