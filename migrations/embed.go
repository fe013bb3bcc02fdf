// Package migrations holds Sked's numbered SQL schema migrations.
//
// Each file is named NNNN_description.sql and runs once, in its own
// transaction, in ascending order of NNNN. A migration that has landed is
// never edited: a change to the schema is a new file. Each must be safe
// while the previous release still runs (expand); a change it cannot run
// beside ships later as a contracting migration, whose file starts with
// the line "-- sked:contract": README.md says what each may do.
//
// schema.sql is the schema the migrations make, dumped from a migrated
// database so that it can be read in one place. It is generated, never
// run: after adding a migration, rewrite it with
//
//	go test ./models -run TestSchemaFileIsCurrent -update-schema
package migrations

import "embed"

// FS holds every migration file (the numbered ones: not schema.sql),
// embedded in the binary.
//
//go:embed [0-9]*.sql
var FS embed.FS
