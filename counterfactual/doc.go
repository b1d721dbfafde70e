// Package counterfactual traces the provenance of tool outputs: which later
// step of a run needed which output. It is the basis of the predicted
// re-invocations of `trajmine simulate`: when a context policy hides an
// output that a later call used, the agent would likely have had to fetch it
// again (policy-survey.md §1, "Likely re-invocation of hidden outputs").
//
// Uses takes one run's events in seq order and returns every Use: an output
// (a tool_result event) and a later model output (assistant text, reasoning
// or tool call) that needed it, either because distinctive words of the
// output reappear in it (UseContent, with the words and their offsets as
// evidence) or because it is a tool call acting on the same target as the
// call that produced the output (UseTarget). Summarize folds the uses into
// one row per output. OutputReReads sets, per output, the re-read the uses
// predict against the re-reads the log shows, and ReReadValidator compares
// them per tool, per run and per output (calibration, held-out half).
//
// Turn semantics follow the events table: an input event (system, user,
// tool_result) with turn t is first seen by model call t; an output event
// (assistant, reasoning, tool_call) with turn t was produced by model call t,
// so call t's prompt held every input with turn ≤ t.
//
// The package works on schema records only and does no I/O. Everything is
// deterministic and linear in the total text size of the run (output texts
// are scanned up to MaxScan bytes).
package counterfactual
