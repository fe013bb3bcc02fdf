// Package jobdef holds the job definition wire format of Sked: the job JSON of
// the Azure Scheduler API in both of its shapes (the flat shape of the seeds
// and the ARM shape {"properties": {...}} of the 2016-03-01 REST API), parsed
// into typed values and validated.
//
// Parse is the single entry point: it accepts either shape, ignores unknown
// fields and the read-only status, applies the defaults of SPEC §1 and returns
// every problem at once as a *problem.List whose lines read "path: message".
// The package is pure (standard library only) and embeds the IANA time zone
// database (time/tzdata) so that zones work on machines without zoneinfo.
package jobdef
