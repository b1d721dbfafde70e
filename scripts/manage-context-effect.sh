#!/usr/bin/env bash
# The manage_context counterfactual's effect on a corpus (issue 13): ingest
# the corpus into a new database, replay every run with `trajmine simulate
# --json` built from BASE (default main) and from this checkout, and compare,
# over the runs that make manage_context calls (sim_runs
# dropped_context_calls > 0 for keep-all at the run's own window, or a
# context-only call count from the new binary's manage_context_runs), each
# policy's Σ effective tokens / Σ as-logged before and after. Counts, not
# timings: the machine's load does not matter.
#
#   scripts/manage-context-effect.sh [CORPUS...]   # default ../shared/corpus
#
# Environment: BASE (a git revision, default main), WORK (scratch directory,
# default a new temporary one, removed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=("$@")
[ ${#corpus[@]} -gt 0 ] || corpus=(../shared/corpus)
base=${BASE:-main}
if [ -n "${WORK:-}" ]; then mkdir -p "$WORK"; work=$WORK; else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
go build -o "$work/new" ./cmd/trajmine
rm -rf "$work/base-src"
git worktree add -q --detach "$work/base-src" "$base"
(cd "$work/base-src" && go build -o "$work/old" ./cmd/trajmine)
git worktree remove --force "$work/base-src"
rm -f "$work/c.duckdb"
"$work/new" --db "$work/c.duckdb" ingest "${corpus[@]}" >/dev/null 2>&1
"$work/old" --db "$work/c.duckdb" simulate --no-save --json >"$work/old.json"
"$work/new" --db "$work/c.duckdb" simulate --no-save --json >"$work/new.json"
python3 - "$work/old.json" "$work/new.json" <<'PY'
import json, sys, collections
old, new = (json.load(open(p)) for p in sys.argv[1:3])
short = {p['spec']: p['short'] for p in new['policies']}
print(f"runs: {new['runs']}; runs with manage_context calls: {new.get('manage_context_runs')}; context-only calls: {new.get('context_only_calls')}")
# the window in tokens: window_tokens since simulate.Window (window is then the one asked for)
def key(r): return (r['run_id'], r['policy'], r.get('window_tokens', r['window']))
oldk = {key(r): r for r in old['results']}
touched = {r['run_id'] for r in new['results'] if r.get('dropped_context_calls', 0) > 0 or r['prompt_tokens'] != oldk[key(r)]['prompt_tokens']}
print(f"runs whose replays changed: {len(touched)}; rows changed outside them: "
      f"{sum(1 for r in new['results'] if r['run_id'] not in touched and json.dumps(r, sort_keys=True) != json.dumps({**oldk[key(r)], 'dropped_context_calls': 0, 'dropped_context_output_tokens': 0}, sort_keys=True))}")
def agg(d, group):
    s = collections.defaultdict(lambda: [0, 0, 0, 0])
    for r in d['results']:
        if r['run_id'] not in touched:
            continue
        eff = r['prompt_tokens'] + r['reinvocation_tokens'] + r['summarizer_in']
        b = r.get('as_logged_prompt_tokens', r.get('as_logged_tokens', 0)) + r['as_logged_summarizer_in']
        a = s[(group(r), r['policy'])]
        a[0] += eff; a[1] += b; a[2] += r['saved']; a[3] += r['lost']
    return s
for title, group in (("all runs with manage_context calls", lambda r: "all"), ("by model family", lambda r: r['Family'])):
    o, n = agg(old, group), agg(new, group)
    print(f"\n{title}: Σ effective / Σ as-logged, before → after; runs saved and lost before/after")
    print(f"{'group':<16} {'policy':<22} {'before ×':>9} {'after ×':>9} {'saved':>7} {'lost':>7}")
    for g, p in sorted(n, key=lambda k: (k[0], n[k][0] / max(n[k][1], 1))):
        ob, nb = o[(g, p)], n[(g, p)]
        print(f"{g:<16} {short[p]:<22} {ob[0]/max(ob[1],1):9.3f} {nb[0]/max(nb[1],1):9.3f} {ob[2]:>3}/{nb[2]:<3} {ob[3]:>3}/{nb[3]:<3}")
PY
