package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
	"github.com/trajmine/trajmine/synth"
)

// ReportOptions are the flags of trajmine report.
type ReportOptions struct {
	Inputs   []string
	Demo     bool
	DemoN    int
	Limit    int
	JSON     bool
	Out, Err io.Writer
	Progress bool
	source   string
}

// standardPlaces are where agent harnesses keep their logs, relative to $HOME:
// Claude Code, Codex CLI, Gemini CLI, pi, OpenCode (on-disk storage), Cline.
var standardPlaces = []string{".claude/projects", ".codex/sessions", ".gemini/tmp", ".pi/agent/sessions", ".local/share/opencode/storage", ".cline/data/sessions"}

// NewReportCmd builds `trajmine report`, the main job.
func NewReportCmd(d *Deps, runF func(*ReportOptions) error) *cobra.Command {
	o := &ReportOptions{}
	c := &cobra.Command{
		Use:   "report [PATH...]",
		Short: "Ingest agent logs and report on them (the main job)",
		Long: `Ingest agent logs and report on them. With no PATH it reads the logs found in
the standard local places (~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp,
~/.pi/agent/sessions, ~/.local/share/opencode/storage, ~/.cline/data/sessions);
where there are none, it generates a demo corpus (trajmine synth) and reports on that.
For now the report is the ingest summary, totals per format and the runs table.`,
		Args: usageArgs(cobra.ArbitraryArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.Inputs, o.Out, o.Err = args, c.OutOrStdout(), c.ErrOrStderr()
			o.Progress = d.ErrIsTTY()
			if runF != nil {
				return runF(o)
			}
			return reportRun(c.Context(), d, o)
		},
	}
	c.Flags().BoolVar(&o.Demo, "demo", false, "report on a generated demo corpus even if local logs exist")
	c.Flags().IntVar(&o.DemoN, "demo-sessions", 40, "sessions in the demo corpus")
	c.Flags().IntVar(&o.Limit, "limit", 25, "runs listed in the table (0 = all)")
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON (ingest summary, totals per format, all runs)")
	return c
}

func reportRun(ctx context.Context, d *Deps, o *ReportOptions) error {
	inputs := o.Inputs
	source := "the given paths"
	if len(inputs) == 0 && !o.Demo {
		if home, err := d.HomeDir(); err == nil {
			for _, p := range standardPlaces {
				if st, err := os.Stat(filepath.Join(home, p)); err == nil && st.IsDir() {
					inputs = append(inputs, filepath.Join(home, p))
				}
			}
		}
		source = "local agent logs"
	}
	if len(inputs) == 0 {
		dir, err := os.MkdirTemp("", "trajmine-demo-")
		if err != nil {
			return fmt.Errorf("demo corpus: %w", err)
		}
		defer os.RemoveAll(dir)
		m, err := synth.Write(dir, &synth.Options{N: o.DemoN, Seed: 1})
		if err != nil {
			return fmt.Errorf("demo corpus: %w", err)
		}
		note := o.Out
		if o.JSON {
			note = o.Err
		}
		fmt.Fprintf(note, "No agent logs found in ~/%s: reporting on a demo corpus.\n", strings.Join(standardPlaces, ", ~/"))
		printSynth(note, "a temporary directory", m)
		inputs, source = []string{dir}, "demo corpus (trajmine synth -n "+fmt.Sprint(o.DemoN)+" --seed 1)"
	}
	st, err := d.open(ctx, false)
	if err != nil {
		return err
	}
	defer st.Close()
	if !o.JSON {
		fmt.Fprintf(o.Out, "Ingesting %s into %s\n", source, d.dbPath())
	}
	sum, err := runIngest(ctx, st, inputs, &ingest.Options{}, o.Err, o.Progress)
	if err != nil {
		return err
	}
	o.source = source
	if !o.JSON {
		printSummary(o.Out, sum)
	}
	return writeReport(ctx, st, o, sum)
}

// formatTotals aggregates runs per source format for the report.
type formatTotals struct {
	Format          string `json:"source_format"`
	Runs            int64  `json:"runs"`
	Turns           int64  `json:"turns"`
	InputTokens     int64  `json:"input_tokens"`
	OutputTokens    int64  `json:"output_tokens"`
	CacheReadTokens int64  `json:"cache_read_tokens"`
	EstTokens       int64  `json:"est_tokens"`
	NoUsage         int64  `json:"runs_without_usage"`
	Overflow        int64  `json:"runs_context_overflow"`
}

// totalsByFormat sums runs per format, in first-seen order:
//
//	SELECT source_format, count(*), sum(n_turns), sum(input_tokens), … FROM runs GROUP BY source_format
func totalsByFormat(runs []schema.Run) []formatTotals {
	var out []formatTotals
	idx := map[string]int{}
	for _, r := range runs {
		i, ok := idx[r.SourceFormat]
		if !ok {
			out = append(out, formatTotals{Format: r.SourceFormat})
			i = len(out) - 1
			idx[r.SourceFormat] = i
		}
		a := &out[i]
		a.Runs++
		a.Turns += r.NTurns
		a.InputTokens += r.InputTokens
		a.OutputTokens += r.OutputTokens
		a.CacheReadTokens += r.CacheReadTokens
		a.EstTokens += r.EstTokens
		if r.EndReason == schema.EndContextOverflow {
			a.Overflow++
		}
		if r.UsageEstimated {
			a.NoUsage++
		}
	}
	return out
}

func writeReport(ctx context.Context, st *store.Store, o *ReportOptions, sum *ingest.Summary) error {
	runs, err := st.Runs(ctx, store.RunFilter{})
	if err != nil {
		return err
	}
	totals := totalsByFormat(runs)
	// every catalog policy at each run's own window; results kept in sim_runs and sim_calls
	simO := &SimulateOptions{Calls: true, windows: []int64{-1}, shards: 1}
	pols, err := simulatePolicies(simO)
	if err != nil {
		return err
	}
	sim, err := simulateCompute(ctx, st, simO, pols)
	if err != nil {
		return err
	}
	if o.JSON {
		if runs == nil {
			runs = []schema.Run{}
		}
		return writeJSON(o.Out, struct {
			Source     string                 `json:"source"`
			Ingest     ingestSummaryJSON      `json:"ingest"`
			Formats    []formatTotals         `json:"formats"`
			Simulation []simulate.Agg         `json:"simulation"`
			Accuracy   []simulate.AccuracyRow `json:"simulation_accuracy"`
			Runs       []schema.Run           `json:"runs"`
		}{o.source, summaryJSON(sum), totals, sim.Comparison, sim.Accuracy, runs})
	}
	fmt.Fprintf(o.Out, "\nDatabase holds %d runs.\n\n", len(runs))
	diag, err := diagnoseCompute(ctx, st, &DiagnoseOptions{By: "model"})
	if err != nil {
		return err
	}
	fmt.Fprint(o.Out, "Verdict (trajmine diagnose has the tables): ")
	writeVerdict(o.Out, diag)
	fmt.Fprintln(o.Out)
	fmt.Fprintln(o.Out, "Context policies replayed at each run's own window (trajmine simulate; trajmine policies explains them):")
	writeAccuracyLine(o.Out, sim.Accuracy)
	short := map[string]string{}
	for _, p := range sim.Policies {
		short[p.Spec] = p.Short
	}
	writeComparison(o.Out, sim.Comparison, short, false)
	fmt.Fprintln(o.Out)
	tw := tabwriter.NewWriter(o.Out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "FORMAT\tRUNS\tTURNS\tLOGGED IN\tLOGGED OUT\tCACHE READ\tEST. EVENT TOKENS\tNO USAGE\tOVERFLOW\t")
	for _, a := range totals {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t\n", a.Format, a.Runs, thousands(a.Turns), thousands(a.InputTokens), thousands(a.OutputTokens), thousands(a.CacheReadTokens), thousands(a.EstTokens), a.NoUsage, a.Overflow)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(o.Out, "\nLOGGED IN/OUT: sums of per-call logged usage (input incl. cache); EST. EVENT TOKENS: sum of est_tokens of all events;\nNO USAGE: runs whose log has no per-call usage; OVERFLOW: runs whose end reason is context_overflow.")
	fmt.Fprintln(o.Out)
	shown := runs
	if o.Limit > 0 && len(shown) > o.Limit {
		shown = shown[:o.Limit]
	}
	if err := writeRunsTable(o.Out, shown); err != nil {
		return err
	}
	if len(shown) < len(runs) {
		fmt.Fprintf(o.Out, "… and %d more (trajmine runs lists all)\n", len(runs)-len(shown))
	}
	return nil
}
