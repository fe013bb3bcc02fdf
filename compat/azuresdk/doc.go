// Package azuresdk checks that the real Azure SDK for Go can drive Sked.
//
// It is its own Go module so that the Azure SDK (github.com/Azure/azure-sdk-for-go
// v68.0.0+incompatible, a ~66 MB module) stays out of Sked's go.mod. The
// tests build the sked binary from the repository root, start a real
// `sked serve` on a free loopback port with its embedded PostgreSQL (the
// Debian postgresql package must be installed; without it the tests fail),
// create a user and an API token with `sked user add` and `sked token add`,
// and then use the SDK package services/scheduler/mgmt/2016-03-01/scheduler
// with a bearer token to exercise job collections, jobs, paging, history and
// error responses (SPEC §6–§7).
//
// Run it with:
//
//	cd compat/azuresdk && go test -count=1 ./...
//
// Add -v to see every subtest. On failure the server's log is printed.
// COMPAT_SKED_BIN=/path/to/sked uses that binary instead of building one
// (e.g. a release build, or while the working tree does not compile).
package azuresdk
