-- 0030_engine_index_entries: three index entries fewer per execution.
--
-- Every execution inserts a running attempt and a history entry and
-- finishes the attempt; each B-tree index of those rows costs an entry
-- (a descent of the tree, a page write and its WAL) on the engine's hot
-- path. Three served only rare reads that other indexes serve as well:
--
-- * job_attempts_owner_idx (0008): the running attempts of an instance,
--   read by the heartbeat (the dead instances' attempts), a graceful stop
--   and the pruning of instances. job_attempts_running_idx holds the same
--   rows (the running attempts, a few hundred per instance at most) and
--   the lease owner is a filter on them.
-- * job_attempts_finished_idx (0002) and job_history_start_idx (0002):
--   retention's "finished / started before" deletes, once per retention
--   pass. A BRIN index serves them: both columns grow with the table's
--   physical order (attempts finish, entries are inserted, roughly in
--   time order), and a BRIN entry summarises a range of pages, so a new
--   row adds nothing until the range is summarised (by VACUUM).
DROP INDEX job_attempts_owner_idx;
DROP INDEX job_attempts_finished_idx;
CREATE INDEX job_attempts_finished_brin ON job_attempts USING brin (finished_at);
DROP INDEX job_history_start_idx;
CREATE INDEX job_history_start_brin ON job_history USING brin (start_time);
