// Package migrations holds Sked's numbered SQL schema migrations.
//
// Each file is named NNNN_description.sql and runs once, in its own
// transaction, in ascending order of NNNN. A migration that has landed is
// never edited: a change to the schema is a new file.
package migrations

import "embed"

// FS holds every migration file, embedded in the binary.
//
//go:embed *.sql
var FS embed.FS
