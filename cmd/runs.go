package cmd

import (
	"context"
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
		Short: "List imported runs: id, format, model, turns, tokens, end reason",
		Long: `List imported runs, one per line. TURNS is the number of model calls; IN and
OUT are the logged input (including cache reads and writes) and output tokens
summed over the run's calls ("~" marks runs whose log has no per-call usage:
their token figures are 0 and est_tokens holds the estimate; "*" marks runs
whose log has usage for only some calls: the totals cover those calls only).
Each API response is counted once: a resumed or forked session ("^") leaves
out the calls its log copies from the run it continues, which counts them
(--json: continues_run_id, copied_calls, and copied_input_tokens … with the
copies' tokens), so the column sums are the spend. END is the end reason
with "?" when it was inferred rather than logged.`,
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
	if o.JSON {
		if runs == nil {
			runs = []schema.Run{}
		}
		return writeJSON(o.Out, runs)
	}
	return writeRunsTable(o.Out, runs, o.Width, o.Bold)
}

// runsMarks explain the runs table's markers; the footer names those used.
var runsMarks = []struct{ mark, says string }{
	{"~", "no per-call usage in the log: IN is the estimate (est_tokens)"},
	{"*", "usage logged for only some calls: the totals cover those"},
	{"^", "resumed or forked session: calls copied from the run it continues are counted there"},
	{"?", "end reason inferred, not logged"},
}

func writeRunsTable(w io.Writer, runs []schema.Run, width int, bold bool) error {
	t := &table{header: []string{"RUN", "FORMAT", "MODEL", "TURNS", "IN", "OUT", "END"}, min: []int{12, 8, 8, 5, 5, 3, 8}}
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
		end := string(r.EndReason)
		if r.EndReasonSource == schema.SourceInferred {
			end += "?"
		}
		for _, m := range runsMarks {
			used[m.mark] = used[m.mark] || strings.Contains(in+end, m.mark)
		}
		t.add(snippet(r.RunID, 60), r.SourceFormat, snippet(orDash(r.Model), 32), thousands(r.NTurns), in, out, end)
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
	// on a narrow terminal, OUT, then FORMAT, then TURNS give way before
	// the run ids are cut below their minimum (--json has every field)
	t.optional = t.columns("OUT", "FORMAT", "TURNS")
	t.optionalHint = "trajmine runs --json has every field"
	return t.write(w, width, bold)
}
