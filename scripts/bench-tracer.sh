#!/usr/bin/env bash
# Reproduces BENCHMARKS.md "TRACER offline" (issue 15): the 1,000-run
# training time (interleaved against a baseline binary), the credit-weight
# sweep on a validation and a test synthetic corpus and the shared corpus,
# and the target-kind ablation.
#
#   scripts/bench-tracer.sh OUT_DIR [BASELINE_BINARY]
#
# OUT_DIR receives the corpora, databases and one log per measurement.
# BASELINE_BINARY (optional) is a trajmine built from the commit to compare
# training time with (e.g. main before this branch); without it only this
# build is timed. Steps can be chosen with STEPS="time sweep ablate".
set -euo pipefail
out=${1:?usage: bench-tracer.sh OUT_DIR [BASELINE_BINARY]}
base=${2:-}
steps=${STEPS:-time sweep ablate}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
bin="$out/trajmine"
(cd "$root" && go build -o "$bin" ./cmd/trajmine)
shared=${SHARED:-$root/../shared}

# test corpus: synth seed 1 (the one BENCHMARKS.md's earlier table used);
# validation corpus: synth seed 2 (chooses --credit); shared: the real logs
for s in 1 2; do
	if [ ! -f "$out/c$s.duckdb" ]; then
		"$bin" synth -n 1000 --seed "$s" "$out/c$s" >/dev/null
		"$bin" --db "$out/c$s.duckdb" ingest "$out/c$s" >"$out/ingest-c$s.log" 2>&1
	fi
done
if [ ! -f "$out/shared.duckdb" ]; then
	"$bin" --db "$out/shared.duckdb" ingest "$shared/corpus" "$shared/corpus-more" >"$out/ingest-shared.log" 2>&1 || true
fi

timeit() { # label binary args…: wall and peak RSS of one training
	local label=$1 b=$2
	shift 2
	/usr/bin/time -v "$b" "$@" >"$out/$label.out" 2>"$out/$label.time"
	printf '%s wall %s rss_kb %s\n' "$label" \
		"$(grep 'Elapsed (wall' "$out/$label.time" | awk '{print $NF}')" \
		"$(grep 'Maximum resident' "$out/$label.time" | awk '{print $NF}')" | tee -a "$out/time.txt"
}

if [[ " $steps " == *" time "* ]]; then
	# every run trained on (--holdout-every 0), each at its own window;
	# baseline and this build alternated, 3 each
	for k in 1 2 3; do
		if [ -n "$base" ]; then
			timeit "base-$k" "$base" --db "$out/c1.duckdb" train tracer --holdout 0 --no-save -o "$out/base.json"
		fi
		timeit "ours-$k" "$bin" --db "$out/c1.duckdb" train tracer --holdout-every 0 --no-save -o "$out/ours.json"
	done
fi

if [[ " $steps " == *" sweep "* ]]; then
	# --credit sweep; the held-out table of each (held out: FNV-1a(run id) mod 4 = 0)
	for db in c2 c1 shared; do
		for c in 1 3 10 30; do
			"$bin" --db "$out/$db.duckdb" train tracer --no-save --credit "$c" -o "$out/$db-credit$c.json" >"$out/$db-credit$c.log" 2>&1
		done
	done
fi

if [[ " $steps " == *" ablate "* ]]; then
	for db in c1 shared; do
		"$bin" --db "$out/$db.duckdb" train tracer --no-save --ablate target= -o "$out/$db-notarget.json" >"$out/$db-notarget.log" 2>&1
	done
fi
