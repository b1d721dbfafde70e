#!/usr/bin/env bash
# The page with every run's timeline (issue 16.8): trajmine report on a
# distinct synthetic store (trajmine synth -n N --seed 11), the baseline
# binary (BASE, a checkout of main) and this one alternated REPS times on the
# same imported database, each run's wall time, CPU time (user + system) and
# peak RSS from GNU time, and the page's size; prints the medians and the
# ratios (ours / baseline), and the page's run-records block size. BASE must
# share this checkout's store schema (both binaries write the same store).
#
#   BASE=/path/to/main-checkout scripts/bench-page-timeline.sh [N]   # N default 10000
#
# Environment: REPS (default 3); TRAJMINE_BENCH_DIR, a scratch directory
# (default: a new temporary one, removed at the end). The corpus and its
# database are built once (DB kept when there); 10,000 sessions take about
# 6 GB of logs and 4 GB of database.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
reps=${REPS:-3}
: "${BASE:?BASE must name a checkout of the baseline (main)}"
if [ -n "${TRAJMINE_BENCH_DIR:-}" ]; then
  work=$TRAJMINE_BENCH_DIR
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
timer=/usr/bin/time
go build -o "$work/trajmine-new" ./cmd/trajmine
(cd "$BASE" && go build -o "$work/trajmine-base" ./cmd/trajmine)
db=$work/base.duckdb
if [ ! -f "$db" ]; then
  "$work/trajmine-new" synth -n "$n" --seed 11 "$work/corpus" >/dev/null
  "$work/trajmine-new" --db "$db" ingest "$work/corpus" >/dev/null
fi
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for i in $(seq "$reps"); do
  for which in base new; do
    out=$work/page-$which.html
    $timer -f "%e %U %S %M" -o "$work/time-$which-$i" "$work/trajmine-$which" --db "$db" report -o "$out" "$work/corpus" >/dev/null 2>"$work/err-$which-$i" || { cat "$work/err-$which-$i" >&2; exit 1; }
    read -r wall user sys rss <"$work/time-$which-$i"
    size=$(stat -c %s "$out")
    echo "$which rep $i: wall ${wall}s cpu $(echo "$user + $sys" | bc)s peak RSS ${rss} KB page ${size} B"
    echo "$wall" >>"$work/wall-$which"; echo "$user + $sys" | bc >>"$work/cpu-$which"; echo "$rss" >>"$work/rss-$which"; echo "$size" >>"$work/size-$which"
  done
done
for m in wall cpu rss size; do
  b=$(median <"$work/$m-base"); o=$(median <"$work/$m-new")
  echo "$m: baseline $b, ours $o, ratio $(echo "scale=3; $o / $b" | bc)"
done
# the run-records block (base64) of our page
python3 - "$work/page-new.html" <<'PY'
import json, re, sys, base64, gzip
page = open(sys.argv[1], encoding='utf-8').read()
m = re.search(r'<script type="application/json" id="trajmine-runs">(.*?)</script>', page, re.S)
b = json.loads(m.group(1))['all']
raw = gzip.decompress(base64.b64decode(b))
print(f"run records: {len(b)} B base64, {len(raw)} B raw JSON")
PY
rm -f "$work"/wall-* "$work"/cpu-* "$work"/rss-* "$work"/size-*
