#!/usr/bin/env bash
# bench-pages.sh DATA_DIR: serves a data directory seeded by
# scripts/seed-perf.sh and measures the job list and history pages with
# hey (2,000 requests, 10 at a time, each): the latency distribution,
# p95 included, is what BENCHMARKS.md records.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:?usage: scripts/bench-pages.sh DATA_DIR}
addr=127.0.0.1:18181
base=http://$addr
bin/sked serve --data-dir "$data" --listen "$addr" --log-level warn >"$data/bench-serve.log" 2>&1 &
serve=$!
trap 'kill $serve; wait $serve || true' EXIT
for _ in $(seq 1 150); do curl -sf "$base/readyz" >/dev/null && break; sleep 0.2; done
jar=$(mktemp)
csrf=$(curl -s -c "$jar" "$base/signin" | sed -n 's/.*name="csrf-token" content="\([^"]*\)".*/\1/p')
curl -s -b "$jar" -c "$jar" -o /dev/null --data-urlencode "csrf_token=$csrf" -d username=perf -d password=perf-password "$base/signin"
cookie=$(awk '$6 == "sked_session" {print "sked_session=" $7}' "$jar")
bench() {
  echo "== $1"
  hey -n "${N:-2000}" -c "${C:-10}" -H "Cookie: $cookie" "$base$1" | sed -n '/Summary:/,/Requests\/sec/p;/Latency distribution:/,/99%/p;/Status code distribution:/,/^$/p'
}
bench "/c/default/perf/big-050"
bench "/c/default/perf/big-050?after=job-000900"
bench "/c/default/perf/big-000/jobs/busy/history"
bench "/c/default/perf/big-000/jobs/busy/history?status=Failed"
bench "/c/default/perf/big-000/jobs/busy/history?before=$(date -u -d '-300 hours' +%Y-%m-%dT%H:%M:%SZ),1"
bench "/c/default/perf/big-050/jobs/job-000500/history"
bench "/"
bench "/jobs"
bench "/jobs?sort=name"
bench "/jobs?q=job-000500"
bench "/jobs?q=hook/77"
