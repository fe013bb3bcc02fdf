package problem

import (
	"errors"
	"fmt"
	"testing"
)

func TestList(t *testing.T) {
	var l List
	if l.OrNil() != nil || l.Len() != 0 {
		t.Fatalf("an empty list is an error: %v", l.OrNil())
	}
	l.Add("recurrence.interval", "must be at least 1")
	l.Add("action.uri", "is required")
	l.Merge("jobs[3].", New("startTime", "is not a time"))
	l.Merge("", nil)
	tests := []struct {
		name, got, want string
	}{
		{"Error", l.Error(), "recurrence.interval: must be at least 1\naction.uri: is required\njobs[3].startTime: is not a time"},
		{"For", l.For("action.uri"), "is required"},
		{"For missing", l.For("name"), ""},
		{"Sentence without label", l.Problems[0].Sentence(), "recurrence.interval: must be at least 1"},
		{"Sentence with label", Problem{Path: "start_time", Message: "is not a time", Label: "Start time"}.Sentence(), "Start time: is not a time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
	wrapped := fmt.Errorf("save job: %w", l.OrNil())
	if got := As(wrapped); got != &l {
		t.Errorf("As(wrapped) = %p, want %p", got, &l)
	}
	if As(errors.New("other")) != nil {
		t.Error("As finds a list in an error without one")
	}
	var none *List
	if none.Len() != 0 || none.OrNil() != nil {
		t.Error("a nil list holds problems")
	}
}
