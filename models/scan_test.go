package models_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"sked/models"
)

// scanQuery returns rows of every kind of column scanAll meets: NULL and
// not NULL pointers, a json column NULL and set, a named string type, an
// int4 into an int. Its one argument is text it ignores but must carry.
const scanQuery = `
	SELECT g::bigint AS id, 'MainAction' AS action, g::int AS attempt, '2031-06-01T10:00:00Z'::timestamptz + g * interval '1 s' AS at,
	       CASE WHEN g % 2 = 0 THEN '2031-06-02T00:00:00Z'::timestamptz END AS next,
	       CASE WHEN g % 3 = 0 THEN g::bigint * 10 END AS rerun_of,
	       CASE WHEN g % 2 = 1 THEN jsonb_build_object('n', g) END AS changes,
	       g % 2 = 0 AS ok
	FROM generate_series(1, ?::int) g WHERE length(?::text) >= 0 ORDER BY g`

// TestScanAllReadsWhatGormScanReads: scanAll returns the rows GORM's Scan
// returns, for each kind of column, for no row, and refuses a row whose
// columns do not match, naming the row.
func TestScanAllReadsWhatGormScanReads(t *testing.T) {
	store, _ := storeAndDB(t)
	ctx := context.Background()
	var rows []models.ScanRow // the 7 rows, kept for the checks of their values
	for _, n := range []int{0, 1, 7} {
		got, err := store.ScanAllRows(ctx, scanQuery, n, "x")
		if err != nil {
			t.Fatal(err)
		}
		want, err := store.GormScanRows(ctx, scanQuery, n, "x")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("%d rows: scanAll returned %d", n, len(got))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d rows: scanAll returned\n%+v\nGORM's Scan\n%+v", n, got, want)
		}
		rows = got
	}
	if r := rows[1]; r.Next == nil || r.RerunOf != nil || r.Changes != nil || !r.OK || r.Action != "MainAction" || r.Attempt != 2 {
		t.Errorf("row 2 = %+v", r)
	}
	if r := rows[2]; r.Next != nil || r.RerunOf == nil || *r.RerunOf != 30 || string(r.Changes) != `{"n": 3}` || r.OK {
		t.Errorf("row 3 = %+v", r)
	}
	_, err := store.ScanAllRows(ctx, `SELECT 1::bigint AS id, NULL::text AS action, 1, now(), NULL::timestamptz, NULL::bigint, NULL::jsonb, true`)
	if err == nil || !strings.Contains(err.Error(), "row 1") || !strings.Contains(err.Error(), "action") {
		t.Errorf("a NULL in a plain string: err = %v, want an error naming row 1 and the column", err)
	}
	_, err = store.ScanAllRows(ctx, `SELECT 1::bigint AS id`)
	if err == nil || !strings.Contains(err.Error(), "row 1") {
		t.Errorf("one column for eight fields: err = %v, want an error naming row 1", err)
	}
}

// BenchmarkScanAll: 450 rows (the finish's rows of a batch of 225
// attempts) of the engine's kinds of columns, with a 200-KB argument (the
// finish's batch), read by GORM's Scan and by scanAll. Most of the time
// is the server's; compare the allocations and the difference.
func BenchmarkScanAll(b *testing.B) {
	store, _ := storeAndDB(b)
	ctx := context.Background()
	arg := strings.Repeat("a", 200_000)
	for _, c := range []struct {
		name string
		scan func(context.Context, string, ...any) ([]models.ScanRow, error)
	}{{"gorm", store.GormScanRows}, {"scanAll", store.ScanAllRows}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				rows, err := c.scan(ctx, scanQuery, 450, arg)
				if err != nil || len(rows) != 450 {
					b.Fatal(len(rows), err)
				}
			}
		})
	}
}
