#!/usr/bin/env bash
# Report benchmark of issue 18: `trajmine report --all` on N distinct
# synthetic runs (trajmine synth -n N --seed SEED: every run generated, none
# repeated), old code against new, interleaved. The corpus is built and
# ingested once into a DuckDB file; each timed run gets a fresh copy of that
# file (report replaces diag_* and sim_* in it), so both binaries start from
# the same database. Old and new alternate REPS times (old, new, old, new, …)
# and each figure is the median of its REPS runs: wall seconds, CPU seconds
# (user + system) and peak RSS, from GNU time (%e, %U + %S, %M). On a shared
# machine the ratio old/new and the CPU seconds are the steadier figures;
# the load average printed says how busy the machine was.
#
#   scripts/bench-report.sh [OLD_REV]     # default OLD_REV: main
#
# Environment: N (default 10000), SEED (default 11), REPS (default 3);
# TRAJMINE_BENCH_DIR, a scratch directory (default: a new temporary one,
# removed at the end; 10,000 sessions are about 5 GB of logs, deleted once
# ingested, and 0.7 GB of database); REUSE=1 keeps the database there and
# reuses it. CHECK=1 also compares the two binaries' results: the diag_* and
# sim_* tables (SQL dumps) and the page's embedded data must be identical.
set -euo pipefail
cd "$(dirname "$0")/.."
old_rev=${1:-main}
n=${N:-10000} seed=${SEED:-11} reps=${REPS:-3}
if [ -n "${TRAJMINE_BENCH_DIR:-}" ]; then
  work=$TRAJMINE_BENCH_DIR
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
timer=/usr/bin/time
[ -x "$timer" ] || { echo "bench-report: needs GNU time at $timer" >&2; exit 1; }

new=$work/trajmine-new old=$work/trajmine-old
go build -o "$new" ./cmd/trajmine
rm -rf "$work/old-src"
git worktree add --detach "$work/old-src" "$old_rev" >/dev/null 2>&1
(cd "$work/old-src" && go build -o "$old" ./cmd/trajmine)
git worktree remove --force "$work/old-src"

db=$work/report-$n-$seed.duckdb
if [ "${REUSE:-}" != 1 ] || [ ! -s "$db" ]; then
  rm -rf "$work/synth" "$db" "$db.wal"
  "$new" synth -n "$n" --seed "$seed" "$work/synth" >/dev/null
  "$new" --db "$db" ingest "$work/synth" >/dev/null
  rm -rf "$work/synth"
fi
runs=$("$new" --db "$db" sql --format csv "SELECT count(*) FROM runs" | tail -1)
echo "data: trajmine synth -n $n --seed $seed, distinct; $runs runs in $db"

# median of the numbers on stdin
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# one BIN TAG REP: times trajmine report --all on a fresh copy of the
# database, appending "wall cpu kb" to $work/TAG.times
one() {
  local bin=$1 tag=$2 rep=$3 e u s k
  cp "$db" "$work/run.duckdb"
  rm -f "$work/run.duckdb.wal"
  read -r e u s k <<<"$("$timer" -f '%e %U %S %M' "$bin" --db "$work/run.duckdb" report --all -o "$work/$tag.html" 2>&1 >/dev/null | tail -1)"
  echo "$e $(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') $k" >>"$work/$tag.times"
  printf '  %s rep %d: %6.1f s wall, %6.1f s cpu, %5d MB peak RSS (load %s)\n' "$tag" "$rep" "$e" "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" \
    "$((k / 1024))" "$(cut -d' ' -f1 /proc/loadavg)"
  if [ "${CHECK:-}" = 1 ] && [ "$rep" = 1 ]; then
    dump "$bin" "$work/run.duckdb" >"$work/$tag.tables"
    pagedata "$work/$tag.html" >"$work/$tag.page"
  fi
}

# dump BIN DB: every row of the report's tables, sorted, as CSV
dump() {
  local t
  for t in diag_runs diag_calls diag_rent sim_runs sim_calls; do
    echo "== $t"
    "$1" --db "$2" sql --format csv "SELECT * FROM $t ORDER BY ALL"
  done
}

# pagedata HTML: the page without its generation time
pagedata() {
  sed 's/generated [0-9-]* [0-9:]* UTC/generated …/g' "$1"
}

# no log in the standard places: the report covers the database alone
mkdir -p "$work/home"
export HOME=$work/home
rm -f "$work/old.times" "$work/new.times"
for rep in $(seq "$reps"); do
  one "$old" old "$rep"
  one "$new" new "$rep"
done
rm -f "$work/run.duckdb" "$work/run.duckdb.wal"

printf '%-5s %8s %8s %8s\n' code "wall s" "cpu s" "RSS MB"
for tag in old new; do
  w=$(cut -d' ' -f1 "$work/$tag.times" | median)
  c=$(cut -d' ' -f2 "$work/$tag.times" | median)
  k=$(cut -d' ' -f3 "$work/$tag.times" | median)
  printf '%-5s %8s %8s %8d\n' "$tag" "$w" "$c" "$((k / 1024))"
  eval "${tag}_w=$w ${tag}_c=$c"
done
awk -v ow="$old_w" -v nw="$new_w" -v oc="$old_c" -v nc="$new_c" 'BEGIN { printf "ratio old/new: wall %.2f×, cpu %.2f×\n", ow / nw, oc / nc }'
if [ "${CHECK:-}" = 1 ]; then
  if cmp -s "$work/old.tables" "$work/new.tables" && cmp -s "$work/old.page" "$work/new.page"; then
    echo "results: diag_*/sim_* tables and the page's data identical"
  else
    echo "results DIFFER: diff $work/old.tables $work/new.tables; diff $work/old.page $work/new.page" >&2
    exit 1
  fi
fi
