package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
)

// RunsOptions are the flags of trajmine runs.
type RunsOptions struct {
	Terminal
	Format string
	Limit  int
	JSON   bool
}

// NewRunsCmd builds `trajmine runs`.
func NewRunsCmd(d *Deps, runF func(*RunsOptions) error) *cobra.Command {
	o := &RunsOptions{}
	c := &cobra.Command{
		Use:   "runs",
		Short: "List imported runs: id, format, model, calls, tokens, end reason",
		Long: `List imported runs, one per line. CALLS is the number of model calls; IN and
OUT are the logged input (including cache reads and writes) and output tokens
summed over the run's calls ("~" marks runs whose log has no per-call usage:
their token figures are 0 and est_tokens holds the estimate; "*" marks runs
whose log has usage for only some calls: the totals cover those calls only).

Each API response is counted once: a resumed or forked session ("^") leaves
out the calls its log copies from the run it continues, which counts them
(--json: continues_run_id, copied_calls, and copied_input_tokens … with the
copies' tokens), so the column sums are the spend.

END is why the run ended, with "?" when it was inferred rather than logged.
Once trajmine diagnose (or report) has diagnosed a run, END is diagnose's
end reason (diag_runs, as of that diagnosis) and RULE names the rule that
decided it (see trajmine diagnose); a run not diagnosed shows the importer's
reason (runs.end_reason) with RULE "-". Before any diagnosis there is no RULE
column and END is the importer's. --json prints each run's row with "end":
the same reason, its source, "by" (diagnose or import), rule and why.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.setTerminal(c, d)
			if runF != nil {
				return runF(o)
			}
			return onStore(c.Context(), d, true, o, runsRun)
		},
	}
	c.Flags().StringVar(&o.Format, "format", "", "only runs of this source format")
	c.Flags().IntVar(&o.Limit, "limit", 0, "at most this many runs")
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	return c
}

func runsRun(ctx context.Context, st *store.Store, o *RunsOptions) error {
	runs, err := st.Runs(ctx, store.RunFilter{Format: o.Format, Limit: o.Limit})
	if err != nil {
		return err
	}
	ends, err := st.DiagEnds(ctx, "")
	if err != nil {
		return err
	}
	rows := make([]RunRow, len(runs))
	for i, r := range runs {
		rows[i] = RunRow{Run: r, End: runEnd(r, ends)}
	}
	if o.JSON {
		return writeJSON(o.Out, rows)
	}
	return writeRunsTable(o.Out, rows, o.Width, o.Bold)
}

// RunRow is one run as trajmine runs --json prints it: its runs row and
// End, the end reason trajmine reports for it.
type RunRow struct {
	schema.Run
	End RunEnd `json:"end"`
}

// RunEnd is the end reason runs and show report for a run: trajmine
// diagnose's (diag_runs) once the run is diagnosed, else the importer's
// (runs.end_reason).
type RunEnd struct {
	Reason schema.EndReason    `json:"end_reason"`
	Source schema.ReasonSource `json:"end_reason_source"`
	By     string              `json:"by"`             // EndByDiagnose or EndByImport
	Rule   string              `json:"rule,omitempty"` // diagnose's rule (diagnose.EndRules)
	Why    string              `json:"why"`            // diagnose's why, else the importer's detail
}

// Where a RunEnd comes from.
const (
	EndByDiagnose = "diagnose" // diag_runs: the last trajmine diagnose or report
	EndByImport   = "import"   // runs: the importer's
)

// runEnd is r's RunEnd: its diagnosed end in ends, else the importer's.
func runEnd(r schema.Run, ends map[string]store.DiagEnd) RunEnd {
	if d, ok := ends[r.RunID]; ok {
		return RunEnd{Reason: d.Reason, Source: d.Source, By: EndByDiagnose, Rule: d.Rule, Why: d.Why}
	}
	return RunEnd{Reason: r.EndReason, Source: r.EndReasonSource, By: EndByImport, Why: r.EndReasonDetail}
}

// idCell is a run id as a table cell: on one line, control characters as
// "?", whole (the table's ids column cuts it no shorter than keeps it
// distinct).
func idCell(id string) string { return snippet(id, len(id)) }

// runsMarks explain the runs table's markers; the footer names those used.
var runsMarks = []struct{ mark, says string }{
	{"~", "no per-call usage in the log: IN is the estimate (est_tokens)"},
	{"*", "usage logged for only some calls: the totals cover those"},
	{"^", "resumed or forked session: calls copied from the run it continues are counted there"},
	{"?", "end reason inferred, not logged"},
}

func writeRunsTable(w io.Writer, runs []RunRow, width int, bold bool) error {
	diagnosed := 0
	for _, r := range runs {
		if r.End.By == EndByDiagnose {
			diagnosed++
		}
	}
	t := &table{header: []string{"RUN", "FORMAT", "MODEL", "CALLS", "IN", "OUT", "END"}, min: []int{12, 8, 8, 5, 5, 3, 8}, ids: 1}
	if diagnosed > 0 {
		t.header, t.min = append(t.header, "RULE"), append(t.min, 4)
	}
	used := map[string]bool{}
	for _, r := range runs {
		in, out := thousands(r.InputTokens), thousands(r.OutputTokens)
		if r.UsageEstimated {
			in, out = "~"+thousands(r.EstTokens), "~"
		} else if r.UsageCalls < r.NTurns {
			in, out = in+"*", out+"*"
		}
		if r.CopiedCalls > 0 {
			in, out = in+"^", out+"^"
		}
		end := string(r.End.Reason)
		if r.End.Source == schema.SourceInferred {
			end += "?"
		}
		for _, m := range runsMarks {
			used[m.mark] = used[m.mark] || strings.Contains(in+end, m.mark)
		}
		cells := []string{idCell(r.RunID), r.SourceFormat, snippet(orDash(r.Model), 32), thousands(r.NTurns), in, out, end}
		if diagnosed > 0 {
			cells = append(cells, orDash(r.End.Rule))
		}
		t.add(cells...)
	}
	var says []string
	for _, m := range runsMarks {
		if used[m.mark] {
			says = append(says, m.mark+" "+m.says)
		}
	}
	if len(says) > 0 {
		t.footer = []string{strings.Join(says, "; ")}
	}
	if diagnosed > 0 {
		src := fmt.Sprintf("END: trajmine diagnose's end reason (diag_runs) for %s, RULE the rule that decided it", countOf(diagnosed, "diagnosed run"))
		if n := len(runs) - diagnosed; n > 0 {
			src += fmt.Sprintf("; the importer's for %s not diagnosed (RULE -)", countOf(n, "run"))
		}
		t.footer = append(t.footer, src)
	}
	// on a narrow terminal, OUT, then FORMAT, then CALLS, then RULE give
	// way before the run ids are cut below their minimum (--json has every
	// field)
	t.optional = t.columns("OUT", "FORMAT", "CALLS", "RULE")
	t.optionalHint = "trajmine runs --json has every field"
	return t.write(w, width, bold)
}
