// Package catalog is how job collections, jobs, their state (enable,
// disable, run now, delete) and calendars change: the one path that the
// REST API, the web pages, the CLI and import all take. It validates the
// input (all problems at once), applies the collection's quota (SPEC §6),
// keeps secrets out of the stored definition (sealed beside it), and
// writes through models.Store; runs now go through the engine (Runner).
// Every write method takes the Actor who makes the change, checks its
// role (allow, Authorize) and writes through audited: the change and its
// audit log entries (SPEC §13.5) in one transaction, then the hook
// changed. Users, passwords and API tokens go through it too
// (accounts.go). It holds no state of its own but compiled calendars; a
// Catalog is safe for concurrent use. Imports runs imports in the
// background under a Start/Stop lifecycle.
package catalog
