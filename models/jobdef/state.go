package jobdef

// Final reports whether s is completed or faulted: final states that only
// allow deletion.
func (s State) Final() bool { return s == Completed || s == Faulted }
