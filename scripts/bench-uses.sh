#!/usr/bin/env bash
# Uses benchmark of issue 18: counterfactual.BenchmarkUsesSynth (Uses over
# 60 distinct runs of trajmine synth --seed 11, imported in memory) and
# BenchmarkUses, old code against new, interleaved: the test binaries of
# OLD_REV and of the working tree alternate COUNT times (old, new, old, …),
# each run in its own process, the same data and warm-up. benchstat
# (golang.org/x/perf/cmd/benchstat) compares them when it is installed; the
# cpu-ns/op metric (the process's user + system time per op) is the
# steadier figure on a shared machine.
#
#   scripts/bench-uses.sh [OLD_REV]     # default OLD_REV: main
#
# Environment: COUNT (default 5), BENCHTIME (default 40x).
set -euo pipefail
cd "$(dirname "$0")/.."
old_rev=${1:-main}
count=${COUNT:-5} benchtime=${BENCHTIME:-40x}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go test -c -o "$work/new.test" ./counterfactual/
git worktree add --detach "$work/old-src" "$old_rev" >/dev/null 2>&1
# the old tree may predate BenchmarkUsesSynth: give it this tree's benchmark file
cp counterfactual/bench_test.go counterfactual/cputime_*_test.go "$work/old-src/counterfactual/"
(cd "$work/old-src" && go test -c -o "$work/old.test" ./counterfactual/)
git worktree remove --force "$work/old-src"

for i in $(seq "$count"); do
  for tag in old new; do
    "$work/$tag.test" -test.run '^$' -test.bench '^BenchmarkUses' -test.benchtime "$benchtime" >>"$work/$tag.txt"
  done
  echo "round $i of $count (load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
bs=$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")
if [ -x "$bs" ]; then
  "$bs" old="$work/old.txt" new="$work/new.txt"
else
  cat "$work/old.txt" "$work/new.txt"
fi
