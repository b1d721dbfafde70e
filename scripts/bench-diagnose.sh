#!/usr/bin/env bash
# Diagnose benchmark of issue 4, the real path end to end: for each size, build
# a synthetic corpus (trajmine synth -n SIZE --seed 1: Claude Code, Codex CLI
# and OpenAI-messages sessions of 5–150 model calls), ingest it into a new
# DuckDB file, then time `trajmine diagnose` on it in its own process: the
# streaming read of runs, events (with text), usage and context ops from
# DuckDB, every per-run metric, the cross-run tables, the write of diag_runs
# and diag_calls, and the text report (to /dev/null). `diagnose --no-save` is
# timed too (the same without the write). Wall time, CPU time (user + system)
# and peak RSS come from GNU time (%e, %U + %S, %M); each figure is the median
# of REPS runs. The load average printed with each size says how busy the
# machine was: on a shared machine CPU time is the steadier figure.
#
#   scripts/bench-diagnose.sh [SIZE...]   # default sizes: 2500 5000 10000
#
# Environment: REPS (default 3); TRAJMINE_BENCH_DIR, a scratch directory
# (default: a new temporary one, removed at the end; 10,000 sessions need
# about 6 GB of logs, deleted once ingested, and 4 GB of database); REUSE=1
# keeps each size's database in TRAJMINE_BENCH_DIR and reuses it when there.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(2500 5000 10000)
reps=${REPS:-3}
if [ -n "${TRAJMINE_BENCH_DIR:-}" ]; then
  work=$TRAJMINE_BENCH_DIR
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
timer=/usr/bin/time
[ -x "$timer" ] || { echo "bench-diagnose: needs GNU time at $timer" >&2; exit 1; }

bin=$work/trajmine
go build -o "$bin" ./cmd/trajmine

# median of the numbers on stdin
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# timed DB ARGS...: runs trajmine REPS times, prints the medians of wall
# seconds, CPU seconds and peak RSS in KB
timed() {
  local db=$1; shift
  local t=() c=() m=() i e u s k
  for i in $(seq "$reps"); do
    read -r e u s k <<<"$("$timer" -f '%e %U %S %M' "$bin" --db "$db" "$@" 2>&1 >/dev/null | tail -1)"
    t+=("$e"); c+=("$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')"); m+=("$k")
  done
  echo "$(printf '%s\n' "${t[@]}" | median) $(printf '%s\n' "${c[@]}" | median) $(printf '%s\n' "${m[@]}" | median)"
}

dist=""
printf '%-8s %7s %8s %9s %7s %7s %8s %11s %8s %10s %9s %s\n' sessions runs calls events "wall s" "cpu s" "RSS MB" "cpu µs/call" \
  "nosave s" "nosave cpu" "nosave MB" "load avg (1, 5, 15 min)"
for n in "${sizes[@]}"; do
  logs=$work/synth-$n db=$work/diag-$n.duckdb
  if [ "${REUSE:-}" != 1 ] || [ ! -s "$db" ]; then
    rm -rf "$logs" "$db"
    "$bin" synth -n "$n" --seed 1 "$logs" >/dev/null
    "$bin" --db "$db" ingest "$logs" >/dev/null
    rm -rf "$logs"
  fi
  read -r wall cpu kb <<<"$(timed "$db" diagnose)"
  read -r nswall nscpu nskb <<<"$(timed "$db" diagnose --no-save)"
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  read -r runs calls events <<<"$("$bin" --db "$db" sql --format csv \
    "SELECT (SELECT count(*) FROM diag_runs), (SELECT count(*) FROM diag_calls), (SELECT count(*) FROM events)" | tail -1 | tr ',' ' ')"
  printf '%-8s %7s %8s %9s %7s %7s %8.0f %11.1f %8s %10s %9.0f %s\n' "$n" "$runs" "$calls" "$events" "$wall" "$cpu" "$((kb / 1024))" \
    "$(awk -v t="$cpu" -v c="$calls" 'BEGIN { print t * 1e6 / c }')" "$nswall" "$nscpu" "$((nskb / 1024))" "$load"
  dist+="$n sessions: calls per run $("$bin" --db "$db" sql --format csv \
    "SELECT min(n_calls) || ' min, ' || median(n_calls) || ' median, ' || round(avg(n_calls), 1) || ' mean, ' || max(n_calls) || ' max; event text ' || round((SELECT sum(chars) FROM events) / 1e6) || 'M chars' FROM diag_runs" | tail -1 | tr -d '"')"$'\n'
  [ "${REUSE:-}" = 1 ] || rm -f "$db" "$db.wal"
done
printf '%s' "$dist"
