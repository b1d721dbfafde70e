#!/usr/bin/env bash
# Many-file ingest benchmark of issue 18: `trajmine ingest` of a directory of
# many Claude Code session files against `trajmine ingest` of ONE JSONL file
# holding the same files concatenated in path order (the importer splits
# sessions by sessionId, so both hold the same runs, events and bytes).
# Whole processes under GNU time, each into a new database, interleaved
# (many, big, many, big, ...) N times, page cache warm for both (every input
# file is read once before the first timing); the medians of MB/s (input
# bytes / wall seconds) and peak RSS, and their ratio, are printed.
#
#   scripts/bench-ingest-many.sh [N] [DIR]
#
# N defaults to 3. DIR (default $TMPDIR/trajmine-bench-many) receives the corpus,
# `trajmine synth -n $SESSIONS --seed $SEED --formats claude-code --calls $CALLS`
# (defaults 10200, 21, 1: 10,200 files, 3.8 GB), the big file and the databases.
# MANY and BIG name a directory of session files and the one file holding them
# concatenated instead (issue 33: the first 584 files of `synth -n 1200 --seed 77
# --formats claude-code` and their concatenation, as bench-ingest.sh reads).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-3}
dir=${2:-${TMPDIR:-/tmp}/trajmine-bench-many}
sessions=${SESSIONS:-10200}
seed=${SEED:-21}
calls=${CALLS:-1}
mkdir -p "$dir"
bin=$dir/trajmine
go build -o "$bin" ./cmd/trajmine
many=${MANY:-$dir/many-n$sessions-s$seed-c$calls}
big=${BIG:-$dir/big-n$sessions-s$seed-c$calls/all.jsonl}
if [ ! -d "$many" ]; then
  "$bin" synth -n "$sessions" --seed "$seed" --formats claude-code --calls "$calls" "$many" >/dev/null
fi
if [ ! -f "$big" ]; then
  mkdir -p "$(dirname "$big")"
  find "$many" -type f -name '*.jsonl' | LC_ALL=C sort | xargs cat >"$big"
fi
files=$(find "$many" -type f -name '*.jsonl' | wc -l)
bytes=$(stat -c %s "$big")
if [ -n "${MANY:-}" ]; then
  echo "corpus: $files files, $bytes bytes ($many; one file: $big)" >&2
else
  echo "corpus: $files files, $bytes bytes (synth -n $sessions --seed $seed --formats claude-code --calls $calls)" >&2
fi
find "$many" -type f -name '*.jsonl' -print0 | xargs -0 cat >/dev/null # warm the page cache
cat "$big" >/dev/null
run() { # name input
  rm -f "$dir/bench.duckdb" "$dir/bench.duckdb.wal"
  /usr/bin/time -f "TIME %e %M" "$bin" ingest --db "$dir/bench.duckdb" "$2" 2>&1 >/dev/null | grep '^TIME' |
    awk -v name="$1" -v bytes="$bytes" '{ printf "%s %.2f MB/s %.0f MB-RSS %.1f s\n", name, bytes/1e6/$2, $3/1024, $2 }'
}
for i in $(seq "$n"); do
  run many "$many"
  run big "$big"
done | tee /dev/stderr | awk '
  { mbs[$1]=mbs[$1]" "$2; rss[$1]=rss[$1]" "$4 }
  function med(s,   a,k,n,i,j,t) { n=split(s,a," "); for(i=1;i<=n;i++)for(j=i+1;j<=n;j++)if(a[j]<a[i]){t=a[i];a[i]=a[j];a[j]=t}; return a[int((n+1)/2)] }
  END {
    for (k in mbs) printf "%-5s median %7.2f MB/s   peak RSS %6.0f MB\n", k, med(mbs[k]), med(rss[k])
    if (med(mbs["big"]) > 0) printf "ratio many / big: %.2f\n", med(mbs["many"])/med(mbs["big"])
  }'
rm -f "$dir/bench.duckdb" "$dir/bench.duckdb.wal"
