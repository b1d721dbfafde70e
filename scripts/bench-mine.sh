#!/usr/bin/env bash
# bench-mine.sh: default `trajmine mine` (action classes and the manage_context
# behaviour profiles) against discovery alone by tool name (`mine --no-profiles
# --activity tool`), whole processes under GNU time, interleaved, medians of
# ROUNDS (default 3) rounds. BENCHMARKS.md, "Process discovery", issue 18.
#
#   scripts/bench-mine.sh [DB]        # default DB: /work/data/s23k.duckdb
#
# DB is opened read-only (mine writes nothing). Build it with
#   trajmine synth -n 23000 --seed 5 DIR && trajmine --db DB ingest DIR
# BIN (default: built from this checkout into $TMPDIR) is the trajmine to time;
# BEFORE, when set, is another trajmine binary whose default mine is timed in
# the same rounds (the commit before, for a before/after ratio).
set -euo pipefail
DB=${1:-/work/data/s23k.duckdb}
ROUNDS=${ROUNDS:-3}
cd "$(dirname "$0")/.."
if [[ -z "${BIN:-}" ]]; then
	BIN=${TMPDIR:-/tmp}/trajmine-bench-mine
	go build -o "$BIN" ./cmd/trajmine
fi
variants=("tool|$BIN|--no-profiles --activity tool" "default|$BIN|" "class|$BIN|--no-profiles")
if [[ -n "${BEFORE:-}" ]]; then
	variants+=("before-default|$BEFORE|")
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# warm-up: one call of each, untimed (the page cache holds the file alike for all)
for v in "${variants[@]}"; do
	IFS='|' read -r name bin args <<<"$v"
	# shellcheck disable=SC2086
	"$bin" --db "$DB" mine --json $args >/dev/null
done
for r in $(seq "$ROUNDS"); do
	for v in "${variants[@]}"; do
		IFS='|' read -r name bin args <<<"$v"
		# shellcheck disable=SC2086
		/usr/bin/time -v "$bin" --db "$DB" mine --json $args >"$out/$name.$r.json" 2>"$out/$name.$r.time"
		wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$out/$name.$r.time")
		cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {print u+s}' "$out/$name.$r.time")
		rss=$(awk -F': ' '/Maximum resident/ {print int($2/1024)}' "$out/$name.$r.time")
		echo "$name $r $wall $cpu $rss" | tee -a "$out/all"
	done
done
if [[ -n "${BEFORE:-}" ]] && ! cmp -s "$out/default.1.json" "$out/before-default.1.json"; then
	echo "default mine --json differs from BEFORE's" >&2
	exit 1
fi
echo "uptime: $(uptime)"
echo "variant        wall s  cpu s  peak RSS MB  (medians)  wall/tool  cpu/tool (medians of the per-round ratios)"
awk '
{ w[$1]=w[$1] " " $3; c[$1]=c[$1] " " $4; m[$1]=m[$1] " " $5; W[$1,$2]=$3; C[$1,$2]=$4; R[$2]=1
  if (!($1 in seen)) { order[++n]=$1; seen[$1]=1 } }
function median(s,   a, k, i, j, t) { k=split(s, a, " "); for (i=1;i<=k;i++) for (j=i+1;j<=k;j++) if (a[j]+0<a[i]+0) { t=a[i]; a[i]=a[j]; a[j]=t }; return (k%2) ? a[(k+1)/2] : (a[k/2]+a[k/2+1])/2 }
END { for (i=1;i<=n;i++) { v=order[i]; rw=""; rc=""; for (r in R) { rw=rw " " W[v,r]/W["tool",r]; rc=rc " " C[v,r]/C["tool",r] }
  printf "%-15s %6.2f %6.2f %8d %18.2fx %8.2fx\n", v, median(w[v]), median(c[v]), median(m[v]), median(rw), median(rc) } }' "$out/all"
