// Package mining does process discovery over agent runs: it turns runs into an
// event log (case = run, activity = what the agent did), and finds in it the
// directly-follows graph, the variants, a heuristics net, and how well each
// run conforms to a model.
//
// # Typical steps
//
//  1. Build a Log: NewBuilder(&Options{Mode: …, Class: …}), then AddRun once
//     per run with its tool-call, tool-result and context-op records (the
//     store streams them: internal/store EventStream), then Log(). The activity
//     of a tool call is its action class (ModeClass: the caller supplies the
//     classifier, e.g. the actions package), its tool name (ModeTool) or its
//     tool and target kind (ModeToolTarget, e.g. "read_file:.go",
//     "Bash:test"). Context operations are activities too:
//     context.disable, context.enable, compaction, summary, masking,
//     truncation, continuation.
//  2. Optionally narrow it: Log.Filter (model family, harness, format,
//     outcome, start-time range, activities present or absent).
//  3. Discover: NewDFG (directly-follows graph with frequency, time and
//     tokens per edge, artificial start ▶ and end ■ nodes), Variants (distinct
//     activity sequences with counts and coverage), NewHeuristics (the
//     Flexible Heuristics Miner's dependency graph).
//  4. Check: Conform replays every case on a Model (a heuristics net's or a
//     DFG's arcs, or a file in the model format: ParseModel) and reports
//     token-replay fitness and the deviations of each case.
//  5. Compare two groups of cases (Compare: resolved against failed, DTOC on
//     against off, model A against model B): each edge's rate per 100
//     transitions per case (so that longer cases do not have more of every
//     edge) with Welch's t-test, the edges from ▶ and to ■ and the variants
//     (repeats collapsed: CollapsedVariants) on presence with Fisher's exact
//     test, every p-value corrected for the number of tests
//     (Benjamini–Hochberg q).
//  6. Render: every result has a canonical sorted text form (WriteText, for
//     the CLI and golden tests) and JSON-friendly exported fields; graphs
//     also render as Graphviz DOT (WriteDOT).
//
// # Invariants
//
// Output is deterministic: every list is sorted (ties broken by name), no
// map is iterated into output. Nothing panics on bad input; ParseModel
// reports errors as "file:line: what". A Log's activities are interned: an
// event holds an int32 activity id into Log.Activities, so a million events
// take about 32 MB. The package imports only schema and internal/stats
// from trajmine; the classifier is a function the caller passes, and the
// store hands records over as schema values.
package mining
