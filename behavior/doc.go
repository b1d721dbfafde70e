// Package behavior profiles how models and harnesses manage their context:
// how a model uses DTOC's manage_context(enable, disable) tool, and when and
// how much a harness compacts. It is the evidence `trajmine mine` prints per
// model family and `recommend` reads before choosing a policy.
//
// # Typical steps
//
//  1. Run(run, events, usage, ops, o) profiles one run from its schema
//     records (events in seq order): its manage_context calls (ManageRun:
//     one ManageOp per call, one Hide per disabled key) and its harness
//     compactions (one Compaction per compaction, summary or continuation
//     op). It uses diagnose for the window (diagnose.Window), each call's
//     prompt (diagnose.Occupancy: logged input, else estimated) and which
//     call carried which output (diagnose.NewVisibility), and counterfactual
//     for which later call used which output (counterfactual.Uses).
//  2. Summarize(runs, o) pools any set of run profiles into one
//     ManageProfile and one CompactionProfile; ByFamily(runs, o) does it per
//     model family and labels each family's manage_context behaviour with
//     Classify (selective, shallow, never, thrasher).
//
// Every figure is defined in the doc comment of its field; Options holds the
// defaults (placeholder 40 tokens, shallow below 500 tokens freed, thrash
// window 5 calls, re-read window 10 calls) and Thresholds the classifier's.
//
// # Conventions
//
// Calls are model calls numbered from 0 as the events table's turn: an input
// event (tool result, user message, compaction) with turn t is first seen by
// call t; a manage_context tool call with turn d was made by call d, so call
// d still saw what it disables, and a disabled output is hidden from call
// d+1 on (diagnose.NewVisibility, step 4). The calls of a run are
// run.NTurns, or the last call seen in its events plus one. Tokens are the
// events' est_tokens (the import's estimator) unless a field says logged.
//
// All result types are plain structs with JSON tags, free of NaN and
// infinities (an undefined ratio is 0), so they encode as they are for the
// HTML report. The package does no I/O and is deterministic.
package behavior
