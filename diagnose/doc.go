// Package diagnose answers "do these runs die on window length?" from
// imported runs: the window each run had (Window), the prompt size of every
// model call against it (Occupancy) and why each run ended (End), each with
// the source of the figure and a sentence saying why; which tool outputs each
// call carried and their token rent (NewVisibility, Rent), re-reads, stalls
// and repeats (Stalls), and the reading boundary: the cumulative incidence
// of stopping while still reading, finishing a competing outcome
// (Aalen–Johansen, Boundary; Kaplan–Meier kept for comparison).
//
// It works on schema records only; loading them from the store and printing
// are cmd's job.
//
// # Words
//
// Each word below means one thing, here, in simulate (whose package doc
// defines the replay's words: as-logged, keep-all, token ratio, …), in the
// JSON and in the CLI's text.
//
//   - call: one model call (a request and its reply). Calls are numbered from
//     0; the stored tables name that index turn (events.turn, usage.turn,
//     diag_calls.turn) and count calls in runs.n_turns, names kept from
//     before this vocabulary (a rename would migrate every database). A
//     user's turn is not a call and is never called one.
//   - window: a model's context window, in tokens: what one call's prompt
//     plus output must fit in. A run's own window is its log's, else the
//     known-model table's (Window, WindowSource); --window sets one for every
//     run (simulate.Window names the choices).
//   - prompt: what one call sends (its logged input tokens, else estimated:
//     PromptSource); occupancy is a prompt's share of the window, and the
//     peak is the largest single prompt, never a sum.
//   - window length: the run ended because a prompt did not fit (end reason
//     context_overflow; End, with the rule that said so and why).
//   - overflow: a call whose prompt plus output exceeds the window (here,
//     a call of the log at a window below its own, WindowDeath; in
//     simulate, a replayed call).
//   - token rent: a tool output's tokens times the calls whose prompt carried
//     it (Rent), the system prompt and tool definitions included.
//   - re-read: a later call reading a target again (ReReads); a stall, the
//     same failing command and output again (Stalls).
//   - reading boundary: the first call by which the cumulative incidence
//     of stopping while still reading reaches BoundaryShare (half the
//     runs), finishing being a competing outcome (Boundary; stated on at
//     least BoundaryMinRuns runs).
//   - family: a model family (runs.model_family), never a kind of policy
//     (that is a policy's mechanism, simulate.Def.Mechanism).
package diagnose
