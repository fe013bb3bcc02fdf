// Package river runs Sked's engine and River (github.com/riverqueue/river)
// side by side: the same scheduled HTTP calls to the same local sink, on
// one PostgreSQL cluster with production durability (the embedded
// cluster's defaults: fsync and synchronous_commit on), one system after
// the other at each rate.
//
// It is its own Go module (sked/bench/river, with sked replaced by the
// repository root) so that River never becomes a dependency of the
// product. Run from this directory:
//
//	go test -run '^$' -bench SideBySide -benchtime 1x -timeout 30m
//
// Results are in BENCHMARKS.md at the repository root.
package river
