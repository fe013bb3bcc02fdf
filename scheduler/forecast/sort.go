package forecast

import (
	"slices"
	"strings"
)

// sortRuns orders runs by time, then job path.
func sortRuns(runs []Run) {
	slices.SortStableFunc(runs, func(a, b Run) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.Job.Path(), b.Job.Path())
	})
}
