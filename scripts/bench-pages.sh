#!/usr/bin/env bash
# bench-pages.sh DATA_DIR: serves a data directory seeded by
# scripts/seed-perf.sh and measures the job list, history, dashboard and
# "All jobs" pages with hey, once per client count in CLIENTS (default
# "1 4"), N1 requests with 1 client (default 300) and N requests with
# more (default 2000). It prints hey's summary and latency distribution
# per page, then one line per page and client count: p50 / p95 / p99 in
# ms (what BENCHMARKS.md records). PAGES, when set, replaces the list of
# pages (space-separated paths).
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:?usage: scripts/bench-pages.sh DATA_DIR}
addr=${ADDR:-127.0.0.1:18181}
base=http://$addr
bin/sked serve --data-dir "$data" --listen "$addr" --log-level warn >"$data/bench-serve.log" 2>&1 &
serve=$!
trap 'kill $serve; wait $serve || true' EXIT
for _ in $(seq 1 150); do curl -sf "$base/readyz" >/dev/null && break; sleep 0.2; done
jar=$(mktemp)
csrf=$(curl -s -c "$jar" "$base/signin" | sed -n 's/.*name="csrf-token" content="\([^"]*\)".*/\1/p')
curl -s -b "$jar" -c "$jar" -o /dev/null --data-urlencode "csrf_token=$csrf" -d username=perf -d password=perf-password "$base/signin"
cookie=$(awk '$6 == "sked_session" {print "sked_session=" $7}' "$jar")
default_pages=(
  "/c/default/perf/big-050"
  "/c/default/perf/big-050?after=job-000900"
  "/c/default/perf/big-000/jobs/busy/history"
  "/c/default/perf/big-000/jobs/busy/history?status=Failed"
  "/c/default/perf/big-000/jobs/busy/history?before=$(date -u -d '-300 hours' +%Y-%m-%dT%H:%M:%SZ),1"
  "/c/default/perf/big-050/jobs/job-000500/history"
  "/"
  "/jobs"
  "/jobs?sort=last"
  "/jobs?sort=name"
  "/jobs?sort=failures"
  "/jobs?q=job-000500"
  "/jobs?q=hook/77"
  "/jobs?q=example"
  "/jobs?q=nomatch"
  "/jobs?result=Failed"
  "/jobs?failed=24h"
  "/jobs?state=disabled"
)
if [ -n "${PAGES:-}" ]; then read -r -a pages <<<"$PAGES"; else pages=("${default_pages[@]}"); fi
summary=$(mktemp)
for c in ${CLIENTS:-1 4}; do
  n=${N:-2000}
  [ "$c" = 1 ] && n=${N1:-300}
  for page in "${pages[@]}"; do
    echo "== C=$c N=$n $page"
    out=$(hey -n "$n" -c "$c" -H "Cookie: $cookie" "$base$page")
    echo "$out" | sed -n '/Summary:/,/Requests\/sec/p;/Latency distribution:/,/99%/p;/Status code distribution:/,/^$/p'
    echo "$out" | awk -v c="$c" -v p="$page" '
      /^  50%+ in/ {p50 = $3 * 1000} /^  95%+ in/ {p95 = $3 * 1000} /^  99%+ in/ {p99 = $3 * 1000}
      END {printf "C=%s  %-60s %7.1f / %7.1f / %7.1f ms\n", c, p, p50, p95, p99}' >>"$summary"
  done
done
echo "== p50 / p95 / p99 (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
cat "$summary"
