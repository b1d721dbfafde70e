#!/usr/bin/env bash
# Ingest benchmark of issue 2: trajmine's Claude Code ingest of a ≥ 500 MB JSONL
# (corpus sessions repeated under new session ids) against DuckDB's own
# read_ndjson of the same file into a table, in the same run. Each benchmark
# runs in its own process (so its peak RSS is its own), interleaved, N times;
# the medians and their ratio are printed.
#
#   scripts/bench-ingest.sh [N]      # default N=3; TRAJMINE_BENCH_MB sets the size (default 520)
#   TRAJMINE_BENCH_FILE=F scripts/bench-ingest.sh [N]   # F instead: a Claude Code JSONL of distinct
#                                    # sessions, e.g. the first 520 MB of whole lines of
#                                    # bench-ingest-many.sh's big file
#   scripts/bench-ingest.sh many [N] [DIR]   # issue 18: many files against one big file (bench-ingest-many.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = many ]; then
  shift
  exec scripts/bench-ingest-many.sh "$@"
fi
n=${1:-3}
bin=$(mktemp -d)/store.test
go test -c -o "$bin" ./internal/store
cd internal/store
for i in $(seq "$n"); do
  "$bin" -test.run '^$' -test.bench 'BigClaudeCode$' -test.benchtime 1x | grep '^Benchmark'
  "$bin" -test.run '^$' -test.bench 'BigReadNDJSON$' -test.benchtime 1x | grep '^Benchmark'
done | tee /dev/stderr | awk '
  { name=$1; for (i=1;i<=NF;i++) { if ($(i)=="MB/s") mbs[name]=mbs[name]" "$(i-1); if ($(i)=="peak-RSS-MB") rss[name]=rss[name]" "$(i-1) } }
  function med(s,   a,k,n,i,j,t) { n=split(s,a," "); for(i=1;i<=n;i++)for(j=i+1;j<=n;j++)if(a[j]<a[i]){t=a[i];a[i]=a[j];a[j]=t}; return a[int((n+1)/2)] }
  END {
    for (k in mbs) printf "%-28s median %8.1f MB/s   peak RSS %7.1f MB\n", k, med(mbs[k]), med(rss[k])
    for (k in mbs) { if (k ~ /BigClaudeCode/) o=med(mbs[k]); if (k ~ /BigReadNDJSON/) d=med(mbs[k]) }
    if (d > 0) printf "ratio trajmine / read_ndjson: %.2fx\n", o/d
  }'
