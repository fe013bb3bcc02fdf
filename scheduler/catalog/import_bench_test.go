package catalog_test

import (
	"fmt"
	"strings"
	"testing"

	"sked/models"
	"sked/scheduler/catalog"
)

// benchJobs are the schedules the import benchmark cycles through.
var benchJobs = []string{
	seedJob,
	berlinJob,
	`{"action": {"type": "http", "request": {"uri": "https://example.com/a", "method": "POST", "body": "x"}},
	  "recurrence": {"frequency": "month", "schedule": {"monthlyOccurrences": [{"day": "friday", "occurrence": -1}], "hours": [5], "minutes": [15]}}}`,
	`{"startTime": "2026-01-01T00:00:00Z", "action": {"type": "http", "request": {"uri": "https://example.com/b", "method": "GET"}},
	  "recurrence": {"frequency": "week", "interval": 2, "schedule": {"weekDays": ["monday", "thursday"], "hours": [8, 20], "minutes": [0, 30]}}}`,
	`{"action": {"type": "http", "request": {"uri": "https://example.com/c", "method": "GET"}}, "recurrence": {"frequency": "minute", "interval": 15}}`,
}

// bundleOf returns an export bundle of colls P20Premium collections of
// perColl jobs each, named after prefix.
func bundleOf(prefix string, colls, perColl int) []byte {
	var b strings.Builder
	b.WriteString(`{"jobCollections": [`)
	for c := range colls {
		if c > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id": "/subscriptions/default/resourceGroups/bench/providers/Microsoft.Scheduler/jobCollections/%s%d",
			"properties": {"sku": {"name": "P20Premium"}}, "jobs": [`, prefix, c)
		for j := range perColl {
			if j > 0 {
				b.WriteString(",")
			}
			def := benchJobs[j%len(benchJobs)]
			fmt.Fprintf(&b, `{"name": "%s%d/job%d", "properties": %s}`, prefix, c, j, def)
		}
		b.WriteString("]}")
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// BenchmarkImport5000 imports 5,000 jobs (5 collections of 1,000, the
// most a P20Premium collection holds) into new collections: parsing the
// file, checking every job (validation, quotas, description, next 3
// occurrences) and writing them in one transaction.
func BenchmarkImport5000(b *testing.B) {
	e := newEnv(b)
	var written int
	for i := 0; b.Loop(); i++ {
		data := bundleOf(fmt.Sprintf("c%d_", i), 5, 1000)
		f, err := catalog.ParseImport(data)
		if err != nil {
			b.Fatal(err)
		}
		rep, err := e.cat.Import(e.ctx, catalog.System("test"), "", models.CollectionRef{}, f, catalog.ImportOptions{})
		if err != nil {
			b.Fatal(err)
		}
		written = rep.Summary.Written
	}
	if written != 5000 {
		b.Fatalf("%d jobs written, want 5000", written)
	}
}

// BenchmarkImportDryRun5000 is the dry run of the same file.
func BenchmarkImportDryRun5000(b *testing.B) {
	e := newEnv(b)
	f, err := catalog.ParseImport(bundleOf("c", 5, 1000))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rep, err := e.cat.Import(e.ctx, catalog.System("test"), "", models.CollectionRef{}, f, catalog.ImportOptions{DryRun: true})
		if err != nil || rep.Summary.New != 5000 {
			b.Fatalf("%v, %+v", err, rep.Summary)
		}
	}
}
