package recurrence

import (
	"fmt"

	"sked/models/jobdef"
)

// maxCalendarNotes bounds the moved and skipped occurrences a preview names
// one by one; the rest are counted.
const maxCalendarNotes = 10

// calendarWarnings names the regular occurrences, up to the last of occ,
// that the rule's calendars moved or skipped, with the reason (SPEC §13.6).
func (r *Rule) calendarWarnings(occ []execution) []string {
	if len(r.cals) == 0 || len(occ) == 0 {
		return nil
	}
	moved := map[int64]int64{}
	for _, o := range occ {
		if o.movedFrom != 0 {
			moved[o.movedFrom] = o.at
		}
	}
	last := occ[len(occ)-1].at
	// The regular occurrences up to the last, to tell a merged move.
	regularAt := map[int64]bool{}
	for t0, n := int64(-1<<62), 0; n < 5*MaxPreviewCount; n++ {
		o, ok := r.regular(t0)
		if !ok || o.at > last {
			break
		}
		regularAt[o.at] = true
		t0 = o.at + 1
	}
	var notes []string
	more := 0
	t0 := int64(-1 << 62)
	for scanned := 0; scanned < 5*MaxPreviewCount; scanned++ {
		o, ok := r.regular(t0)
		if !ok || o.at > last {
			break
		}
		t0 = o.at + 1
		if _, ex := r.excluded(o.at); !ex {
			continue
		}
		if len(notes) >= maxCalendarNotes {
			more++
			continue
		}
		why := exclusionReason(r.cals, o.at)
		switch to, ok := moved[o.at]; {
		case ok && regularAt[to]:
			notes = append(notes, fmt.Sprintf("%s falls on %s: it runs on %s instead, together with the run due then", r.fmtLocal(o.at), why, r.fmtLocal(to)))
		case ok:
			notes = append(notes, fmt.Sprintf("%s falls on %s: it runs on %s instead", r.fmtLocal(o.at), why, r.fmtLocal(to)))
		case r.onExcluded == jobdef.ExcludedNextDay:
			notes = append(notes, fmt.Sprintf("%s is skipped: %s, and the next free day comes after the next run", r.fmtLocal(o.at), why))
		case r.onExcluded == jobdef.ExcludedPreviousDay:
			notes = append(notes, fmt.Sprintf("%s is skipped: %s, and the previous free day comes before the previous run", r.fmtLocal(o.at), why))
		default:
			notes = append(notes, fmt.Sprintf("%s is skipped: %s", r.fmtLocal(o.at), why))
		}
	}
	if more > 0 {
		notes = append(notes, fmt.Sprintf("%d more occurrences are skipped or moved by %s", more, r.calendarNames()))
	}
	return notes
}

// calendarsExcludeAll reports whether the rule has regular occurrences but
// its calendars leave none of them.
func (r *Rule) calendarsExcludeAll() bool {
	if len(r.cals) == 0 {
		return false
	}
	_, ok := r.regular(r.created)
	return ok
}
