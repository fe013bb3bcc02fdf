package web

import "testing"

func TestRunNowMessage(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "The job runs now, for the first time. Its entry appears in the history when the run ends."},
		{1, "The job runs now. It ran once before; this run's entry appears in the history when it ends."},
		{2, "The job runs now. It ran 2 times before; this run's entry appears in the history when it ends."},
	} {
		if got := RunNowMessage(tc.n); got != tc.want {
			t.Errorf("RunNowMessage(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
