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
	printf '%s wall %s user %s sys %s rss_kb %s\n' "$label" \
		"$(grep 'Elapsed (wall' "$out/$label.time" | awk '{print $NF}')" \
		"$(grep 'User time' "$out/$label.time" | awk '{print $NF}')" \
		"$(grep 'System time' "$out/$label.time" | awk '{print $NF}')" \
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
	# (the shared corpus at 16,000 tokens: at each run's own window none of
	# its held-out runs reaches a compression event)
	for db in c2 c1 shared; do
		w=0
		[ "$db" = shared ] && w=16000
		for c in 1 3 10 30; do
			"$bin" --db "$out/$db.duckdb" train tracer --no-save --window "$w" --credit "$c" --attribution 1000 \
				-o "$out/$db-credit$c.json" >"$out/$db-credit$c.log" 2>&1
		done
	done
	# planted truth
	if [ ! -f "$out/planted.duckdb" ]; then
		"$bin" synth -n 300 --formats openai-messages --plant-reuse "$out/planted" >/dev/null
		"$bin" --db "$out/planted.duckdb" ingest "$out/planted" >"$out/ingest-planted.log" 2>&1
	fi
	"$bin" --db "$out/planted.duckdb" train tracer --no-save --window 32000 -o "$out/planted.json" >"$out/planted.log" 2>&1
fi

if [[ " $steps " == *" ablate "* ]]; then
	"$bin" --db "$out/c1.duckdb" train tracer --no-save --ablate target= -o "$out/c1-notarget.json" >"$out/c1-notarget.log" 2>&1
	"$bin" --db "$out/shared.duckdb" train tracer --no-save --window 16000 --ablate target= -o "$out/shared-notarget.json" >"$out/shared-notarget.log" 2>&1
fi
