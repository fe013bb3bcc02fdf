package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

// The history (job_history) and its details (job_history_details) are
// partitioned by day on the entry's start time (migration 0042, SPEC
// §18). Each table has three kinds of partition, told apart by name:
//
//   - <table>_until_YYYYMMDD holds everything before that UTC day (the
//     history stored before the migration);
//   - <table>_YYYYMMDD holds that UTC day, [00:00, 24:00);
//   - <table>_default holds what no other partition does (an entry that
//     started beyond the days created ahead).
//
// The engines create the day partitions ahead (EnsureHistoryPartitions,
// never a request), and retention by age drops a day's partitions whole
// once the day is older than the retention (Prune): an entry is kept at
// least as long as the retention, at most a day longer. The until and
// default partitions are pruned row by row.

// recentRecords is the condition that col (a record's start_time) lies
// in the window where the engine's frequent statements look for running
// records (SPEC §18): from the UTC midnight of the day before now's to the
// end of the day after it, as literals, so that PostgreSQL leaves the
// history's other partitions out when it plans the statement (a
// parameter would be planned for every partition once the plan is
// generic, and an expression of now() is pruned only when it runs, after
// planning them all), and the statement's text changes once a day
// (prepared statements stay cached). A record runs at most
// jobdef.MaxTimeout with a lease a little longer: one that started before
// the window lost its lease long ago, and only the full recovery
// (ClaimRequest.RecoverAll) finds it.
func recentRecords(col string, now time.Time) string {
	day := now.UTC().Truncate(24 * time.Hour)
	return col + " >= '" + day.AddDate(0, 0, -1).Format(time.RFC3339) + "'::timestamptz AND " +
		col + " < '" + day.AddDate(0, 0, 2).Format(time.RFC3339) + "'::timestamptz"
}

// historyTables are the partitioned tables, the history first: both are
// created and dropped day by day together.
var historyTables = []string{"job_history", "job_history_details"}

// HistoryDaysAhead is how many days' partitions after the current one
// EnsureHistoryPartitions keeps ready.
const HistoryDaysAhead = 7

// historyPartitionLockKey is the advisory lock that makes one engine at a
// time create or drop the history's partitions.
const historyPartitionLockKey = 0x736b656400000042

// partitionDDLTimeout bounds how long creating or dropping a partition
// waits for its table's lock: a reader holding the table (a long page
// query) makes the engine try again at its next pass rather than stall
// every writer queued behind the wait.
const partitionDDLTimeout = "1s"

// lockNotGranted reports whether err is a lock that partitionDDLTimeout
// gave up waiting for (SQLSTATE 55P03): the partitions left to drop wait
// for the next pass, and the rest of the retention goes on.
func lockNotGranted(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "55P03"
}

// historyPartition is one partition of a history table: [From, To), From
// zero for an until partition, both zero for the default one.
type historyPartition struct {
	Name     string
	From, To time.Time
	Default  bool
}

// historyPartitionsOf lists table's partitions, in no order.
func historyPartitionsOf(db *gorm.DB, table string) ([]historyPartition, error) {
	var names []string
	err := db.Raw(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = ?::regclass`, table).Scan(&names).Error
	if err != nil {
		return nil, fmt.Errorf("list partitions of %s: %w", table, err)
	}
	out := make([]historyPartition, 0, len(names))
	for _, n := range names {
		rest, ok := strings.CutPrefix(n, table+"_")
		if !ok {
			continue
		}
		switch {
		case rest == "default":
			out = append(out, historyPartition{Name: n, Default: true})
		case strings.HasPrefix(rest, "until_"):
			to, err := time.Parse("20060102", strings.TrimPrefix(rest, "until_"))
			if err == nil {
				out = append(out, historyPartition{Name: n, To: to})
			}
		default:
			from, err := time.Parse("20060102", rest)
			if err == nil {
				out = append(out, historyPartition{Name: n, From: from, To: from.AddDate(0, 0, 1)})
			}
		}
	}
	return out, nil
}

// covers reports whether one of parts (not the default) holds the day
// starting at day.
func covers(parts []historyPartition, day time.Time) bool {
	for _, p := range parts {
		if !p.Default && !day.Before(p.From) && day.Before(p.To) {
			return true
		}
	}
	return false
}

// EnsureHistoryPartitions creates the day partitions of the history and
// its details from now's UTC day through HistoryDaysAhead days after it,
// those missing. A day whose rows the default partition already holds
// (entries that started beyond the days created before) is left to the
// default partition. Several engines may call it at once: one creates,
// the others find the partitions made. It returns how many partitions it
// created.
func (s *Store) EnsureHistoryPartitions(ctx context.Context, now time.Time) (int, error) {
	created := 0
	first := now.UTC().Truncate(24 * time.Hour)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		created = 0
		if err := partitionDDLLock(tx); err != nil {
			return err
		}
		for _, table := range historyTables {
			parts, err := historyPartitionsOf(tx, table)
			if err != nil {
				return err
			}
			for d := 0; d <= HistoryDaysAhead; d++ {
				day := first.AddDate(0, 0, d)
				if covers(parts, day) {
					continue
				}
				var taken bool
				err := tx.Raw(`SELECT EXISTS (SELECT 1 FROM `+table+`_default WHERE start_time >= ? AND start_time < ?)`,
					day, day.AddDate(0, 0, 1)).Scan(&taken).Error
				if err != nil {
					return fmt.Errorf("read %s_default: %w", table, err)
				}
				if taken {
					continue
				}
				with := ""
				if table == "job_history" {
					with = " WITH (fillfactor = 50)" // migration 0041's reason
				}
				err = tx.Exec(fmt.Sprintf(`CREATE TABLE %s_%s PARTITION OF %s FOR VALUES FROM ('%s') TO ('%s')%s`,
					table, day.Format("20060102"), table, day.Format(time.RFC3339), day.AddDate(0, 0, 1).Format(time.RFC3339), with)).Error
				if err != nil {
					return fmt.Errorf("create partition of %s for %s: %w", table, day.Format(time.DateOnly), err)
				}
				created++
			}
		}
		return nil
	})
	if err != nil {
		return 0, translate("models: create history partitions", err)
	}
	return created, nil
}

// partitionDDLLock takes, in tx, the lock that makes one engine at a time
// change the history's partitions, and bounds tx's waits for table locks.
func partitionDDLLock(tx *gorm.DB) error {
	if err := tx.Exec(`SELECT pg_advisory_xact_lock(?)`, int64(historyPartitionLockKey)).Error; err != nil {
		return fmt.Errorf("lock history partitions: %w", err)
	}
	if err := tx.Exec(`SET LOCAL lock_timeout = '` + partitionDDLTimeout + `'`).Error; err != nil {
		return fmt.Errorf("lock history partitions: %w", err)
	}
	return nil
}

// pruneHistoryByAge deletes the history that started before cut: the
// partitions that end by cut are dropped whole (their entries taken out
// of history_hours, their details' partitions with them), and the until
// and default partitions are pruned row by row. A partition holding a
// running record stays until the record ends. It returns how many
// entries went.
func pruneHistoryByAge(db *gorm.DB, cut time.Time) (int64, error) {
	var total int64
	parts, err := historyPartitionsOf(db, "job_history")
	if err != nil {
		return 0, err
	}
	for _, p := range parts {
		if p.Default || p.To.After(cut) {
			continue
		}
		n, err := dropHistoryPartition(db, p)
		if lockNotGranted(err) {
			break // every drop waits for the same table: the next pass drops them
		}
		if err != nil {
			return total, err
		}
		total += n
	}
	details, err := historyPartitionsOf(db, "job_history_details")
	if err != nil {
		return total, err
	}
	for _, p := range details {
		if p.Default || p.To.After(cut) {
			continue
		}
		// A day's details go once its entries have gone (not while a
		// running record holds the day).
		hist := "job_history_" + strings.TrimPrefix(p.Name, "job_history_details_")
		err := db.Transaction(func(tx *gorm.DB) error {
			if err := partitionDDLLock(tx); err != nil {
				return err
			}
			var held bool
			if err := tx.Raw(`SELECT to_regclass(?) IS NOT NULL`, hist).Scan(&held).Error; err != nil || held {
				return err
			}
			return tx.Exec(`DROP TABLE IF EXISTS ` + p.Name).Error
		})
		if lockNotGranted(err) {
			break
		}
		if err != nil {
			return total, fmt.Errorf("drop %s: %w", p.Name, err)
		}
	}
	// What stays older than cut: in an until partition that ends after
	// cut, and in the default ones.
	for _, p := range parts {
		if p.Default || (p.From.IsZero() && p.To.After(cut)) {
			n, err := deleteHistoryIn(db, p.Name, `h.start_time < ?`, cut)
			if err != nil {
				return total, err
			}
			total += n
		}
	}
	if err := db.Exec(`DELETE FROM job_history_details_default WHERE start_time < ?`, cut).Error; err != nil {
		return total, fmt.Errorf("prune job_history_details_default: %w", err)
	}
	return total, nil
}

// dropHistoryPartition drops the history partition p, whose day is past
// the retention, in one transaction: its entries leave history_hours (the
// hours within p's range are deleted; an hour p holds only in part, in a
// time zone whose hours do not start on the UTC hour, has p's share
// subtracted), then the table goes. It returns how many entries p held,
// 0 when it was kept for a running record or already gone.
func dropHistoryPartition(db *gorm.DB, p historyPartition) (int64, error) {
	var n int64
	err := db.Transaction(func(tx *gorm.DB) error {
		n = 0
		if err := partitionDDLLock(tx); err != nil {
			return err
		}
		var exists, running bool
		if err := tx.Raw(`SELECT to_regclass(?) IS NOT NULL`, p.Name).Scan(&exists).Error; err != nil || !exists {
			return err
		}
		// The history is locked first (DROP TABLE would lock it after
		// the partition: the reverse of the order writers take), so that
		// no claim adds a running record after the check. Writers wait
		// for the count and the drop (about 0.1 s for 1,000,000 entries).
		if err := tx.Exec(`LOCK TABLE job_history IN ACCESS EXCLUSIVE MODE`).Error; err != nil {
			return err
		}
		if err := tx.Raw(`SELECT EXISTS (SELECT 1 FROM ` + p.Name + ` h WHERE h.status = 'Running')`).Scan(&running).Error; err != nil || running {
			return err
		}
		if err := tx.Raw(`SELECT count(*) FROM ` + p.Name).Scan(&n).Error; err != nil {
			return err
		}
		// The hours p's range holds in part (none unless the session's
		// time zone starts its hours off the UTC hour): p's share of them
		// is subtracted; the hours within p's range are deleted.
		from := any("-infinity")
		if !p.From.IsZero() {
			from = p.From
		}
		var partial bool
		if err := tx.Raw(`SELECT date_trunc('hour', ?::timestamptz) < ?::timestamptz OR date_trunc('hour', ?::timestamptz) < ?::timestamptz`,
			from, from, p.To, p.To).Scan(&partial).Error; err != nil {
			return err
		}
		if partial {
			err := tx.Exec(`
				WITH g AS (
					SELECT rg.workspace_id, date_trunc('hour', h.start_time) AS hour, h.status, count(*) AS n
					FROM `+p.Name+` h
					JOIN jobs j ON j.id = h.job_id
					JOIN job_collections c ON c.id = j.job_collection_id
					JOIN resource_groups rg ON rg.id = c.resource_group_id
					WHERE `+finishedEntry+` AND (h.start_time < date_trunc('hour', ?::timestamptz) + interval '1 hour'
					                          OR h.start_time >= date_trunc('hour', ?::timestamptz))
					GROUP BY 1, 2, 3
				)
				`+historyHoursTake, from, p.To).Error
			if err != nil {
				return fmt.Errorf("take %s out of history_hours: %w", p.Name, err)
			}
		}
		err := tx.Exec(`DELETE FROM history_hours WHERE hour >= ?::timestamptz AND hour + interval '1 hour' <= ?::timestamptz`, from, p.To).Error
		if err != nil {
			return fmt.Errorf("take %s out of history_hours: %w", p.Name, err)
		}
		return tx.Exec(`DROP TABLE ` + p.Name).Error
	})
	if err != nil {
		return 0, fmt.Errorf("drop %s: %w", p.Name, err)
	}
	return n, nil
}
