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
// fall-back overlap runs once, at its first instant.
package recurrence
