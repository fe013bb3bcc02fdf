package recurrence

import "time"

// WallInstant returns the instant that the wall-clock fields of wall (its
// date and time of day, whatever its location) name in loc, by the rule of
// SPEC §2 that the engine runs jobs by: a time that exists is itself; one
// that happens twice (fall back) is its first instant; one that does not
// exist (spring forward) is the same wall time moved forward by the gap
// (02:30 on a day that jumps 02:00 → 03:00 is 03:30). Nanoseconds are kept.
// The result is in loc (nil means UTC). It is what API answers show for a
// startTime or endTime given without an offset (jobdef.MarshalOptions).
func WallInstant(wall time.Time, loc *time.Location) time.Time {
	z := newZone(loc)
	u, _ := z.resolve(wallOf(wall))
	return time.Unix(u, int64(wall.Nanosecond())).In(z.loc)
}
