// Package recurrence computes which instants a job runs at (SPEC §2), explains
// them in plain English and previews them (SPEC §3).
//
// It is pure: no clock, no database. Every function that depends on the
// present takes it as an argument ("now", "created", "after").
//
// The main entry points:
//
//   - Compile turns a parsed job (jobdef.Job) created at a given moment into
//     a *Rule; Rule.Next(after) returns the next execution instant strictly
//     after "after", in O(1) of the anchor's age.
//   - Occurrences returns the next N executions of a job created at "now",
//     honouring count (counted from creation) and endTime (inclusive).
//   - Preview returns those occurrences with the description and warnings, in
//     the exact JSON form of `sked preview --json` and POST /api/v1/preview.
//
// Internally the calendar works on "wall seconds": seconds since 1970-01-01
// 00:00 of the job zone's wall clock, as if that clock were UTC. Wall times are
// turned into instants with the daylight-saving rules of SPEC §2: a wall time
// in a spring-forward gap is shifted forward by the gap, and one in a
// fall-back overlap runs once, at its first instant. Each candidate wall
// time is mapped on its own (zone.resolve, the one place of that rule), and
// the results are taken in the order of their instants, so a time moved past
// a gap never hides an existing time that comes before it. The anchor
// (DTSTART) is an instant of its own: a job created, or starting, in the
// second pass of a repeated hour runs then. "≥ startTime" and "≥ now"
// compare instants, so a gap time of the period before the anchor's that
// moves past startTime runs too.
//
// The tests compare the core with refOccurrences (reference_test.go), a
// plain model of SPEC §2 that enumerates candidate local times with loops
// and maps them by probing the zone's offsets: TestDifferential draws 5,000
// random jobs near daylight-saving transitions and counts its
// disagreements by the five classes of defects it has found (go test -run
// TestDifferential -differential.cases=100000 -differential.seed=N, or
// SKED_DIFFERENTIAL_CASES=100000, for more; FuzzDifferential draws them
// from the fuzzer's seeds).
package recurrence
