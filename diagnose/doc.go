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
package diagnose
