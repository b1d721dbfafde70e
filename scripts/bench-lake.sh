#!/usr/bin/env bash
# Lake benchmark of issue 18: ingest, simulate and diagnose of one distinct
# synth corpus (trajmine synth -n N --seed 31) by one process into a DuckDB
# file against 4 concurrent shard processes (--shard i/4) into a Parquet
# lake, interleaved (one process, then the shards, R times). Wall time per
# phase and peak RSS (/usr/bin/time -v; for the shards the largest of the 4
# and their sum) are printed per round, then the medians and the ratios
# one process / 4 shards.
#
#   scripts/bench-lake.sh [R]   # default R=3; TRAJMINE_BENCH_N runs (default 1000),
#                               # TRAJMINE_BENCH_DIR scratch directory (default a temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."
r=${1:-3}
n=${TRAJMINE_BENCH_N:-1000}
dir=${TRAJMINE_BENCH_DIR:-$(mktemp -d)}
mkdir -p "$dir"
bin="$dir/trajmine"
go build -o "$bin" ./cmd/trajmine
[ -d "$dir/corpus" ] || "$bin" synth -n "$n" --seed 31 "$dir/corpus" >/dev/null
pol=(--policy 'halflife(cap=8000)' --policy mask)

# timed LABEL CMD...: wall seconds and peak RSS (KB) of one process
timed() {
  local label=$1; shift
  /usr/bin/time -f "$label %e %M" -o "$dir/.t.$label" "$@" >/dev/null
  cat "$dir/.t.$label"
}
# shards PHASE ARGS...: the 4 shard processes at once; wall of the slowest
# start-to-end, max and sum of their peak RSS
shards() {
  local phase=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  for i in 0 1 2 3; do
    /usr/bin/time -f "%e %M" -o "$dir/.s$i" "$bin" --lake "$dir/lake" "$@" --shard "$i/4" >/dev/null &
  done
  wait
  t1=$(date +%s.%N)
  awk -v p="lake-$phase" -v w="$(echo "$t1 - $t0" | bc)" '{ if ($2 > m) m = $2; s += $2 } END { printf "%s %.2f %d %d\n", p, w, m, s }' "$dir"/.s[0-3]
}

for round in $(seq "$r"); do
  rm -rf "$dir/one.duckdb" "$dir/one.duckdb.wal" "$dir/lake"
  timed one-ingest "$bin" --db "$dir/one.duckdb" ingest "$dir/corpus"
  timed one-simulate "$bin" --db "$dir/one.duckdb" simulate "${pol[@]}"
  timed one-diagnose "$bin" --db "$dir/one.duckdb" diagnose
  shards ingest ingest "$dir/corpus"
  shards simulate simulate "${pol[@]}"
  shards diagnose diagnose
done | tee /dev/stderr | awk '
  function med(s,   a,k,n,i,j,t) { n=split(s,a," "); for(i=1;i<=n;i++)for(j=i+1;j<=n;j++)if(a[j]+0<a[i]+0){t=a[i];a[i]=a[j];a[j]=t}; return a[int((n+1)/2)] }
  { w[$1]=w[$1]" "$2; m[$1]=m[$1]" "$3; if (NF > 3) s[$1]=s[$1]" "$4 }
  END {
    split("ingest simulate diagnose", ph, " ")
    for (i=1;i<=3;i++) {
      o="one-" ph[i]; l="lake-" ph[i]
      printf "%-9s one process %7.2f s, peak RSS %6.0f MB | 4 shards %7.2f s, peak RSS max %6.0f MB, sum %6.0f MB | wall one/4 shards %.2fx\n",
        ph[i], med(w[o]), med(m[o])/1024, med(w[l]), med(m[l])/1024, med(s[l])/1024, med(w[o])/med(w[l])
    }
  }'
