package models_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"sked/models/testdb"
)

// updateSchema makes TestSchemaFileIsCurrent rewrite schemaFile instead
// of comparing it.
var updateSchema = flag.Bool("update-schema", false, "rewrite migrations/schema.sql from a migrated database")

const (
	// schemaFile is the schema the migrations make, as pg_dump prints it.
	schemaFile = "../migrations/schema.sql"
	// pgDump is the pg_dump that writes schemaFile: one version, since
	// each prints the schema its own way.
	pgDump = "/usr/lib/postgresql/15/bin/pg_dump"
	// schemaHeader opens schemaFile.
	schemaHeader = "-- schema.sql is generated; do not edit\n" +
		"-- It is the schema of a database migrated with every file of migrations/, dumped by\n" +
		"-- pg_dump 15 (--schema-only --no-owner --no-privileges). After adding a migration, run\n" +
		"--   go test ./models -run TestSchemaFileIsCurrent -update-schema\n\n"
)

// TestSchemaFileIsCurrent dumps the schema of a freshly migrated database
// and compares it with migrations/schema.sql, which must be regenerated
// (-update-schema) whenever a migration is added.
func TestSchemaFileIsCurrent(t *testing.T) {
	if _, err := os.Stat(pgDump); err != nil {
		t.Fatalf("%s is missing (install it with `apt-get install postgresql-15`): %v", pgDump, err)
	}
	dsn := testdb.DSN(t)
	got, err := dumpSchema(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	if *updateSchema {
		if err := os.WriteFile(schemaFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatalf("%v (write it with go test ./models -run TestSchemaFileIsCurrent -update-schema)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("migrations/schema.sql is stale: rewrite it with go test ./models -run TestSchemaFileIsCurrent -update-schema\n%s",
			lineDiff(string(want), string(got)))
	}
}

// dumpNoise matches the lines of pg_dump's output that vary with its
// version or with the run rather than with the schema (settings, the
// versions, the \restrict keys of recent minor versions) and the frames
// of its comments.
var dumpNoise = regexp.MustCompile(`^(SET |SELECT pg_catalog\.set_config|-- Dumped (from|by) |-- PostgreSQL database dump|\\(un)?restrict |--$)`)

// dumpSchema returns the schema of the database dsn as schemaFile holds
// it: pg_dump's output without dumpNoise, runs of blank lines as one,
// after schemaHeader.
func dumpSchema(ctx context.Context, dsn string) ([]byte, error) {
	// The history's day partitions are named after the day the
	// migrations ran (migration 0042): they are left out, the parents and
	// the default partitions stay.
	cmd := exec.CommandContext(ctx, pgDump, "--schema-only", "--no-owner", "--no-privileges",
		"--exclude-table", "job_history_2*", "--exclude-table", "job_history_until_*",
		"--exclude-table", "job_history_details_2*", "--exclude-table", "job_history_details_until_*",
		"--dbname", dsn)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("pg_dump: %w: %s", err, stderr.String())
	}
	var b strings.Builder
	b.WriteString(schemaHeader)
	blank := true // the header ends with a blank line
	for line := range strings.Lines(string(out)) {
		line = strings.TrimRight(line, " \n")
		if dumpNoise.MatchString(line) {
			continue
		}
		if line == "" {
			if blank {
				continue
			}
			blank = true
		} else {
			blank = false
		}
		b.WriteString(line + "\n")
	}
	return []byte(strings.TrimRight(b.String(), "\n") + "\n"), nil
}

// lineDiff returns the lines only in want (-) and only in got (+), in
// order, for a short report of what a stale file misses.
func lineDiff(want, got string) string {
	count := map[string]int{}
	for l := range strings.Lines(got) {
		count[l]++
	}
	var b strings.Builder
	for l := range strings.Lines(want) {
		if count[l] > 0 {
			count[l]--
			continue
		}
		b.WriteString("- " + l)
	}
	wantCount := map[string]int{}
	for l := range strings.Lines(want) {
		wantCount[l]++
	}
	for l := range strings.Lines(got) {
		if wantCount[l] > 0 {
			wantCount[l]--
			continue
		}
		b.WriteString("+ " + l)
	}
	return b.String()
}
