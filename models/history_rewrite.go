package models

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

// The per-job limit (Retention.HistoryPerJob) removes a job's entries
// beyond its newest N. Deleted row by row, that is as many dead rows as
// entries written once frequent jobs reach their limit (under the
// defaults, any job running more often than every 86 minutes), each to be
// vacuumed from the table and its seven indexes: the vacuum storm SPEC
// §18 rules out. So a closed day partition in which the limit removes a
// large share of the entries (rewriteShare) is rewritten instead: its
// remaining entries and their details are copied into new tables, which
// take the old ones' place, and the old tables are dropped whole
// (rewriteHistoryDay). A partition where the limit removes little, the
// until and default partitions, and a day that holds a running record are
// pruned row by row as before. A day that is not closed (today, until
// historyDayClosing after its end) is left alone: a job's entries beyond
// its limit go once their day has closed, as retention by age drops a day
// once all of it is too old (an entry is kept at most a day longer than
// the limit says).

// historyDayClosing is how long after its end a day partition counts as
// closed for the per-job limit: no claim adds a record to it any more
// (records start at the claiming engine's clock, within the clock offset
// /readyz tolerates) and its records have ended (an attempt runs at most
// jobdef.MaxTimeout).
const historyDayClosing = time.Hour

// rewriteLockTimeout bounds how long a rewrite waits for each of the locks
// of its swap: less than PostgreSQL's deadlock_timeout (1 s by default),
// so that a rewrite gives up before a writer it holds up is made to.
const rewriteLockTimeout = "500ms"

// rewriteShare says when a closed day is rewritten: when the limit removes
// at least 1/rewriteShare of its entries. Below that, deleting row by row
// leaves fewer dead rows than a rewrite copies live ones.
const rewriteShare = 10

// perJobLockKey is the advisory lock (session-level, tried, never waited
// for) that makes one engine at a time apply the per-job limit: the
// others skip it for that pass.
const perJobLockKey = 0x736b656400000043

// rewriteSuffix names the tables a rewrite builds (<partition>_rw) until
// they take their partition's place; one left over by a rewrite that did
// not finish (an engine stopped between its two transactions) is dropped
// at the next pass (dropRewriteLeftovers).
const rewriteSuffix = "_rw"

// historyCut is one job's cut for the per-job limit: its newest finished
// entry beyond the limit; it and every older finished entry go.
type historyCut struct {
	JobID int64     `json:"job_id"`
	Start time.Time `json:"start"`
	ID    int64     `json:"id"`
}

// cutsTable is the SQL of the cuts sent as JSON in a parameter.
const cutsTable = `json_to_recordset(?::json) AS x(job_id bigint, start timestamptz, id bigint)`

// beyondCut is the condition that the history entry h lies at or before
// its job's cut x (joined on the job).
const beyondCut = `h.start_time <= x.start AND (h.start_time, h.id) <= (x.start, x.id) AND ` + finishedEntry

// dropRewriteLeftovers drops the tables of rewrites that did not finish:
// tables named like a day partition with rewriteSuffix that are no
// partition. The caller holds perJobLockKey, so no rewrite is under way.
func dropRewriteLeftovers(db *gorm.DB) error {
	var names []string
	err := db.Raw(`SELECT c.relname FROM pg_class c
		WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace
		  AND c.relname ~ '^job_history_(details_)?[0-9]{8}` + rewriteSuffix + `$'
		  AND NOT c.relispartition`).Scan(&names).Error
	if err != nil {
		return fmt.Errorf("find unfinished history rewrites: %w", err)
	}
	for _, n := range names {
		if err := db.Exec(`DROP TABLE IF EXISTS ` + n).Error; err != nil {
			return fmt.Errorf("drop unfinished history rewrite %s: %w", n, err)
		}
	}
	return nil
}

// applyHistoryCuts removes, partition by partition, the finished entries
// at or before their job's cut (cuts, as JSON): a closed day where they
// are at least 1/rewriteShare of the entries, without a running record,
// is rewritten; today's and later days are left for when they close;
// every other partition is pruned row by row. It returns how many entries
// went, and how many of them with a rewritten day.
func applyHistoryCuts(db *gorm.DB, cuts string, now time.Time) (removed, rewritten int64, err error) {
	var per []struct {
		Part string
		N    int64
	}
	// Each job's entries beyond its cut, found through its index in every
	// partition up to the cut's day, counted per partition.
	err = db.Raw(`SELECT h.part, count(*) AS n
		FROM `+cutsTable+`
		CROSS JOIN LATERAL (SELECT h.tableoid::regclass::text AS part FROM job_history h
			WHERE h.job_id = x.job_id AND `+beyondCut+`) h
		GROUP BY 1`, cuts).Scan(&per).Error
	if err != nil {
		return 0, 0, fmt.Errorf("count history beyond the per-job limit: %w", err)
	}
	if len(per) == 0 {
		return 0, 0, nil
	}
	parts, err := historyPartitionsOf(db, "job_history")
	if err != nil {
		return 0, 0, err
	}
	byName := make(map[string]historyPartition, len(parts))
	for _, p := range parts {
		byName[p.Name] = p
	}
	for _, c := range per {
		p, ok := byName[strings.TrimPrefix(c.Part, "public.")]
		if !ok {
			continue // dropped since: by age, or by another engine
		}
		day := !p.Default && !p.From.IsZero()
		if day && now.Before(p.To.Add(historyDayClosing)) {
			continue // the day is not over: its entries go once it is
		}
		if day {
			rows, err := estimatedRows(db, p.Name)
			if err != nil {
				return removed, rewritten, err
			}
			if c.N*rewriteShare >= rows {
				n, done, err := rewriteHistoryDay(db, p, cuts)
				if err != nil {
					return removed, rewritten, err
				}
				if done {
					removed += n
					rewritten += n
					continue
				}
			}
		}
		n, err := deleteHistoryIn(db, p.Name, `EXISTS (SELECT 1 FROM `+cutsTable+` WHERE h.job_id = x.job_id AND `+beyondCut+`)`, cuts)
		if err != nil {
			return removed, rewritten, fmt.Errorf("prune history per job in %s: %w", p.Name, err)
		}
		removed += n
	}
	return removed, rewritten, nil
}

// estimatedRows returns how many rows the statistics give table (kept by
// autovacuum and the rewrite), counting them when it was never analyzed.
func estimatedRows(db *gorm.DB, table string) (int64, error) {
	var n float64
	if err := db.Raw(`SELECT reltuples FROM pg_class WHERE oid = ?::regclass`, table).Scan(&n).Error; err != nil {
		return 0, fmt.Errorf("size of %s: %w", table, err)
	}
	if n >= 0 {
		return int64(n), nil
	}
	var c int64
	if err := db.Raw(`SELECT count(*) FROM ` + table).Scan(&c).Error; err != nil {
		return 0, fmt.Errorf("size of %s: %w", table, err)
	}
	return c, nil
}

// rewriteHistoryDay removes the finished entries of the closed day
// partition p at or before their job's cut (cuts, as JSON) by rewriting
// the day, in three transactions:
//
//  1. the copy, which blocks no writer: in one snapshot, the day's other
//     entries and their details are copied into new tables with the
//     partitions' indexes and the bound of the day as a check (attaching
//     them then needs no scan of the bound), the removed entries' hourly
//     counts computed and the day's hourly counts summed (hoursOfDay);
//  2. the history's foreign key on the copy, added unchecked (a moment's
//     lock on jobs), then checked (which blocks no writer) once the
//     entries of jobs deleted since the copy have left it;
//  3. the swap, short, which holds jobs (attaching a partition with a
//     foreign key replaces triggers on it) and the history and its
//     details exclusively: when the day's hourly counts still sum as in
//     the copy's snapshot (nothing of the day was deleted since), the
//     removed entries leave history_hours, the old tables are dropped and
//     the copies take their names and places; otherwise (or when the
//     hours do not align with the day) the copies are first brought up to
//     date with what was deleted from the day since (a job deleted with
//     its history, an instance of the previous release deleting entries
//     row by row), which costs a scan of both.
//
// It returns how many entries went; done is false, with nothing changed,
// when the day holds a running record (the caller prunes it row by row),
// is gone, or a lock was not granted in time (the copies are dropped, the
// day waits for the next pass).
func rewriteHistoryDay(db *gorm.DB, p historyPartition, cuts string) (n int64, done bool, err error) {
	day := strings.TrimPrefix(p.Name, "job_history_")
	hist, det := p.Name, "job_history_details_"+day
	nh, nd := hist+rewriteSuffix, det+rewriteSuffix
	bound := fmt.Sprintf(`CHECK (start_time >= '%s' AND start_time < '%s')`, p.From.Format(time.RFC3339), p.To.Format(time.RFC3339))
	var running bool
	if err := db.Raw(`SELECT EXISTS (SELECT 1 FROM ` + hist + ` h WHERE h.status = 'Running')`).Scan(&running).Error; err != nil {
		return 0, false, fmt.Errorf("rewrite %s: %w", hist, err)
	}
	if running {
		return 0, false, nil
	}
	var hasDetails bool
	if err := db.Raw(`SELECT to_regclass(?) IS NOT NULL`, det).Scan(&hasDetails).Error; err != nil {
		return 0, false, fmt.Errorf("rewrite %s: %w", hist, err)
	}
	type hourCount struct {
		WorkspaceID string    `json:"workspace_id"`
		Hour        time.Time `json:"hour"`
		Status      string    `json:"status"`
		N           int64     `json:"n"`
	}
	var (
		hours         []hourCount
		removedInCopy int64
		dayCount      dayHours
	)
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`CREATE TEMP TABLE history_removed (id bigint, start_time timestamptz) ON COMMIT DROP`).Error; err != nil {
			return err
		}
		if err := tx.Exec(`INSERT INTO history_removed SELECT h.id, h.start_time FROM `+hist+` h JOIN `+cutsTable+`
			ON x.job_id = h.job_id WHERE `+beyondCut, cuts).Error; err != nil {
			return err
		}
		if err := tx.Exec(`ANALYZE history_removed`).Error; err != nil {
			return err
		}
		err := tx.Raw(entriesByHour(`(SELECT h.job_id, h.start_time, h.status FROM history_removed r
			JOIN ` + hist + ` h ON h.id = r.id AND h.start_time = r.start_time)`)).Scan(&hours).Error
		if err != nil {
			return err
		}
		for _, h := range hours {
			removedInCopy += h.N
		}
		if dayCount, err = hoursOfDay(tx, p); err != nil {
			return err
		}
		if err := copyPartitionKeeping(tx, "job_history", hist, nh, bound, "h.id = r.id AND h.start_time = r.start_time"); err != nil {
			return err
		}
		if !hasDetails {
			return nil
		}
		return copyPartitionKeeping(tx, "job_history_details", det, nd, bound, "h.history_id = r.id AND h.start_time = r.start_time")
	}, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
	if err != nil {
		return 0, false, fmt.Errorf("rewrite %s: copy: %w", hist, err)
	}
	// The history's foreign key, unchecked (a moment's lock on jobs that
	// writers wait for), then checked without blocking them.
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`SET LOCAL lock_timeout = '` + rewriteLockTimeout + `'`).Error; err != nil {
			return err
		}
		return tx.Exec(`ALTER TABLE ` + nh + ` ADD CONSTRAINT ` + nh + `_job_id_fkey
			FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE NOT VALID`).Error
	})
	// A job deleted since the copy (before the key existed) left its
	// entries there: they go first. One deleted from now on takes its
	// entries in the copy with it (the key cascades), but not their
	// details: the swap then sees the day changed.
	if err == nil {
		err = db.Exec(`DELETE FROM ` + nh + ` c WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = c.job_id)`).Error
	}
	if err == nil {
		err = db.Exec(`ALTER TABLE ` + nh + ` VALIDATE CONSTRAINT ` + nh + `_job_id_fkey`).Error
	}
	if lockNotGranted(err) || foreignKeyViolated(err) {
		// The next pass tries again.
		return 0, false, db.Exec(`DROP TABLE IF EXISTS ` + nh + `, ` + nd).Error
	}
	if err != nil {
		return 0, false, fmt.Errorf("rewrite %s: foreign key: %w", hist, err)
	}
	hoursJSON, err := json.Marshal(hours)
	if err != nil {
		return 0, false, fmt.Errorf("rewrite %s: %w", hist, err)
	}
	err = db.Transaction(func(tx *gorm.DB) error {
		n = 0
		if err := partitionDDLLock(tx); err != nil {
			return err
		}
		// jobs first, as a claim or a job's deletion locks it before the
		// history. A writer that locks them the other way (a finish that
		// ends its job) could still wait for this transaction while it
		// waits for the writer: it gives up before PostgreSQL looks for
		// the deadlock (rewriteLockTimeout), and the next pass tries again.
		if err := tx.Exec(`SET LOCAL lock_timeout = '` + rewriteLockTimeout + `'`).Error; err != nil {
			return err
		}
		if err := tx.Exec(`LOCK TABLE jobs, job_history, job_history_details IN ACCESS EXCLUSIVE MODE`).Error; err != nil {
			return err
		}
		var exists bool
		if err := tx.Raw(`SELECT to_regclass(?) IS NOT NULL`, hist).Scan(&exists).Error; err != nil || !exists {
			return err
		}
		now, err := hoursOfDay(tx, p)
		if err != nil {
			return err
		}
		if dayCount.Aligned && now == dayCount {
			// Nothing was deleted from the day since the copy.
			if err := tx.Exec(`WITH g AS (SELECT * FROM json_to_recordset(?::json)
				AS g(workspace_id text, hour timestamptz, status text, n bigint)) `+historyHoursTake, string(hoursJSON)).Error; err != nil {
				return err
			}
			n = removedInCopy
		} else if err := catchUpCopies(tx, hist, det, nh, nd, hasDetails, &n); err != nil {
			return err
		}
		from, to := p.From.Format(time.RFC3339), p.To.Format(time.RFC3339)
		if err := tx.Exec(`DROP TABLE ` + hist).Error; err != nil {
			return err
		}
		if err := tx.Exec(`ALTER TABLE ` + nh + ` RENAME TO ` + hist).Error; err != nil {
			return err
		}
		if err := tx.Exec(fmt.Sprintf(`ALTER TABLE job_history ATTACH PARTITION %s FOR VALUES FROM ('%s') TO ('%s')`, hist, from, to)).Error; err != nil {
			return err
		}
		if hasDetails {
			for _, q := range []string{`DROP TABLE ` + det, `ALTER TABLE ` + nd + ` RENAME TO ` + det,
				fmt.Sprintf(`ALTER TABLE job_history_details ATTACH PARTITION %s FOR VALUES FROM ('%s') TO ('%s')`, det, from, to)} {
				if err := tx.Exec(q).Error; err != nil {
					return err
				}
			}
		}
		done = true
		return nil
	})
	if lockNotGranted(err) || retryable(err) {
		// Writers or readers held the tables: the day waits for the next
		// pass, and the copies go now (or then: dropRewriteLeftovers).
		return 0, false, db.Exec(`DROP TABLE IF EXISTS ` + nh + `, ` + nd).Error
	}
	if err != nil {
		return 0, false, fmt.Errorf("rewrite %s: swap: %w", hist, err)
	}
	return n, done, nil
}

// foreignKeyViolated reports whether err is SQLSTATE 23503.
func foreignKeyViolated(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}

// dayHours is what history_hours counts in the hours of a day partition:
// Aligned says the hours of the sessions' time zone start on the day's
// bounds (UTC, or any zone a whole number of hours from it), so that every
// entry of those hours is the day's; Sum is their count.
type dayHours struct {
	Aligned bool
	Sum     int64
}

// hoursOfDay reads, in tx, the hourly counts of the day partition p. Every
// writer that deletes history entries takes them out of history_hours in
// its transaction, and no entry is added to a closed day: when the hours
// are aligned, a sum that has not changed says no entry of the day was
// deleted, where counting the day's rows would read all of them. It reads
// a day of hours per workspace (their key).
func hoursOfDay(tx *gorm.DB, p historyPartition) (dayHours, error) {
	var h dayHours
	err := tx.Raw(`SELECT date_trunc('hour', ?::timestamptz) = ?::timestamptz AND date_trunc('hour', ?::timestamptz) = ?::timestamptz AS aligned,
			coalesce((SELECT sum(x.n) FROM workspaces w CROSS JOIN LATERAL (SELECT sum(count) AS n FROM history_hours
				WHERE workspace_id = w.id AND hour >= ? AND hour < ?) x), 0) AS sum`,
		p.From, p.From, p.To, p.To, p.From, p.To).Scan(&h).Error
	return h, err
}

// catchUpCopies is the swap's slow way, in tx, when rows were deleted
// from the day hist (and its details det) since they were copied into nh
// (nd): what is no longer in the day leaves the copies, and the entries
// that go (the day's, but for the copy's) leave history_hours; n is set
// to how many they are.
func catchUpCopies(tx *gorm.DB, hist, det, nh, nd string, hasDetails bool, n *int64) error {
	if err := tx.Exec(`DELETE FROM ` + nh + ` c WHERE NOT EXISTS (SELECT 1 FROM ` + hist + ` h WHERE h.id = c.id AND h.start_time = c.start_time)`).Error; err != nil {
		return err
	}
	if hasDetails {
		if err := tx.Exec(`DELETE FROM ` + nd + ` c WHERE NOT EXISTS (SELECT 1 FROM ` + det + ` h
			WHERE h.history_id = c.history_id AND h.start_time = c.start_time)`).Error; err != nil {
			return err
		}
	}
	return tx.Raw(`
		WITH d AS (SELECT h.id, h.job_id, h.start_time, h.status FROM ` + hist + ` h
			WHERE NOT EXISTS (SELECT 1 FROM ` + nh + ` c WHERE c.id = h.id AND c.start_time = h.start_time)),
		g AS (` + entriesByHour("d") + `), u AS (` + historyHoursTake + `)
		SELECT count(*) FROM d`).Scan(n).Error
}

// copyPartitionKeeping creates table to (the columns, defaults and checks
// of parent, and check, the partition's bound) holding the rows of the
// partition from that match no row r of history_removed on keep, then
// creates on it the indexes that from has of parent's partitioned indexes
// (attaching to adopts them) and analyzes it. The copy has the default
// fillfactor, where a day's history partition is created with 50 for the
// updates of its records: a closed day's entries are not updated.
func copyPartitionKeeping(tx *gorm.DB, parent, from, to, check, keep string) error {
	var cols []string
	err := tx.Raw(`SELECT quote_ident(attname) FROM pg_attribute
		WHERE attrelid = ?::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`, parent).Scan(&cols).Error
	if err != nil {
		return err
	}
	list := strings.Join(cols, ", ")
	for _, q := range []string{
		`CREATE TABLE ` + to + ` (LIKE ` + parent + ` INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION)`,
		`ALTER TABLE ` + to + ` ADD CONSTRAINT ` + to + `_bound ` + check,
		`INSERT INTO ` + to + ` (` + list + `) SELECT ` + list + ` FROM ` + from + ` h
			WHERE NOT EXISTS (SELECT 1 FROM history_removed r WHERE ` + keep + `)`,
	} {
		if err := tx.Exec(q).Error; err != nil {
			return err
		}
	}
	var defs []string
	err = tx.Raw(`SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i
		JOIN pg_inherits x ON x.inhrelid = i.indexrelid
		WHERE i.indrelid = ?::regclass`, from).Scan(&defs).Error
	if err != nil {
		return err
	}
	for _, d := range defs {
		m := indexDef.FindStringSubmatch(d)
		if m == nil {
			return fmt.Errorf("index of %s not understood: %s", from, d)
		}
		if err := tx.Exec(`CREATE ` + m[1] + `INDEX ON ` + to + ` ` + m[2]).Error; err != nil {
			return err
		}
	}
	return tx.Exec(`ANALYZE ` + to).Error
}

// indexDef splits pg_get_indexdef's text into UNIQUE (or nothing) and
// what follows the table's name (the method, columns and predicate).
var indexDef = regexp.MustCompile(`^CREATE (UNIQUE )?INDEX \S+ ON \S+ (USING .*)$`)
