#!/usr/bin/env bash
# seed-perf.sh DATA_DIR: a Sked data directory with 100,000 jobs and
# 1,000,000 history entries (scripts/seed-perf.sql) and a user "perf"
# (password "perf-password"), for the page benchmarks in BENCHMARKS.md.
# Then: bin/sked serve --data-dir DATA_DIR, and scripts/bench-pages.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:?usage: scripts/seed-perf.sh DATA_DIR}
make build >/dev/null
mkdir -p "$data"
bin/sked migrate --data-dir "$data"
echo "perf-password" | bin/sked user add perf --admin --data-dir "$data"
# The embedded PostgreSQL is stopped again after each command: start it
# for psql the same way, through a command that keeps it while psql runs.
bin/sked serve --data-dir "$data" --listen 127.0.0.1:0 >"$data/seed-serve.log" 2>&1 &
serve=$!
trap 'kill $serve; wait $serve || true' EXIT
for _ in $(seq 1 100); do [ -S "$data/pgsocket/.s.PGSQL.5432" ] && break; sleep 0.2; done
time psql "host=$(realpath "$data/pgsocket") user=sked dbname=sked" -v ON_ERROR_STOP=1 -q -f scripts/seed-perf.sql
