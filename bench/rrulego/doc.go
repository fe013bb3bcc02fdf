// Package rrulego compares Sked's recurrence engine with
// github.com/teambition/rrule-go on the same rules, in the same run.
//
// It is its own Go module (sked/bench/rrulego, with sked replaced by the
// repository root) so that rrule-go never becomes a dependency of the
// product. Run from this directory:
//
//	go test -run '^$' -bench . -count 6 | tee new.txt
//	benchstat -col /impl new.txt
package rrulego
