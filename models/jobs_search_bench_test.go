package models_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"sked/models"
)

// BenchmarkSearchJobs measures the "All jobs" page's query on a database
// seeded by scripts/seed-perf.sh (100,000 jobs, 1,000,000 history
// entries) while its sked serve runs:
//
//	SKED_BENCH_DSN="host=$PWD/perfdata/pgsocket user=sked dbname=sked" \
//	    go test ./models/ -run '^$' -bench SearchJobs -benchtime 200x
//
// It reports the p50 and p95 of one page (51 rows) for the user "perf"
// (a member of every workspace). Without SKED_BENCH_DSN it is skipped.
func BenchmarkSearchJobs(b *testing.B) {
	dsn := os.Getenv("SKED_BENCH_DSN")
	if dsn == "" {
		b.Skip("SKED_BENCH_DSN is not set (see the comment)")
	}
	ctx := context.Background()
	store, err := models.Open(ctx, dsn, models.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	user, err := store.UserByName(ctx, "perf")
	if err != nil {
		b.Fatal(err)
	}
	cs, all, err := store.SearchScope(ctx, user.ID)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	cases := []struct {
		name string
		p    models.JobSearchParams
	}{
		{"next", models.JobSearchParams{Sort: models.SortNext}},
		{"last", models.JobSearchParams{Sort: models.SortLast}},
		{"name", models.JobSearchParams{Sort: models.SortName}},
		{"failures", models.JobSearchParams{Sort: models.SortFailures}},
		{"q=job-000500", models.JobSearchParams{Query: "job-000500"}},
		{"q=hook/77", models.JobSearchParams{Query: "hook/77"}},
		{"q=example", models.JobSearchParams{Query: "example"}},
		{"q=big-05/name", models.JobSearchParams{Query: "big-05", Sort: models.SortName}},
		{"q=big-099", models.JobSearchParams{Query: "big-099"}},
		{"q=nomatch", models.JobSearchParams{Query: "nomatch"}},
		{"state=disabled", models.JobSearchParams{States: []string{"disabled"}}},
		{"result=Failed", models.JobSearchParams{LastResult: "Failed"}},
		{"result=none", models.JobSearchParams{LastResult: "none"}},
		{"failed24h", models.JobSearchParams{FailedSince: now.Add(-24 * time.Hour)}},
		{"tz=Europe/Berlin", models.JobSearchParams{Zone: "Europe/Berlin"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			p := c.p
			p.Collections, p.AllCollections, p.Limit, p.FailuresSince = cs, all, 51, now.Add(-24*time.Hour)
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := store.SearchJobs(ctx, p); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}
