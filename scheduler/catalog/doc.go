// Package catalog is how job collections and jobs change: the one path
// that the REST API, the web pages and import all take. It validates the
// input (all problems at once), applies the collection's quota (SPEC §6),
// keeps secrets out of the stored definition (sealed beside it), and
// writes through models.Store. It holds no state of its own; a Catalog is
// safe for concurrent use.
package catalog
