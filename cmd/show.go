package cmd

import (
	"context"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
)

// ShowOptions are the flags of trajmine show.
type ShowOptions struct {
	RunID string
	Width int
	JSON  bool
	Out   io.Writer
}

// NewShowCmd builds `trajmine show RUN`.
func NewShowCmd(d *Deps, runF func(*ShowOptions) error) *cobra.Command {
	o := &ShowOptions{}
	c := &cobra.Command{
		Use:   "show RUN",
		Short: "Show one run turn by turn: events, logged input tokens, estimate",
		Long: `Show one run turn by turn. RUN is a run id or a unique prefix of one.

For each model call (turn) the header gives the logged input tokens (incl.
cache) and the estimated prompt: the est_tokens of every event of earlier
turns plus the input events of this turn, restarting after a compaction (the
compaction summary then opens the new prompt). The ratio shows how well the
estimate tracks the log. After trajmine calibrate, each turn also shows the
calibrated estimate, offset + factor × estimated prompt, with the fit of the
run's model family.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			o.RunID, o.Out = args[0], c.OutOrStdout()
			if runF != nil {
				return runF(o)
			}
			st, err := d.open(c.Context(), true)
			if err != nil {
				return err
			}
			defer st.Close()
			return showRun(c.Context(), st, o)
		},
	}
	c.Flags().IntVar(&o.Width, "width", 72, "characters of text shown per event")
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON (run, usage, events, context_ops)")
	return c
}

// TurnView is one model call of a run as show prints it.
type TurnView struct {
	Turn           int64          `json:"turn"`
	LoggedInput    *int64         `json:"logged_input_tokens,omitempty"`
	LoggedOutput   *int64         `json:"logged_output_tokens,omitempty"`
	EstimatedInput int64          `json:"estimated_prompt_tokens"`
	Calibrated     *int64         `json:"calibrated_prompt_tokens,omitempty"`
	Events         []schema.Event `json:"events"`
}

// BuildTurns groups events by turn, in order of first appearance, and sets
// each turn's estimated prompt from diagnose.EstimatedPrompts (the sum of the
// est_tokens of earlier turns plus this turn's input events, restarting after
// a compaction).
func BuildTurns(events []schema.Event, usage []schema.Usage) []TurnView {
	byTurn := map[int64]*schema.Usage{}
	for i := range usage {
		byTurn[usage[i].Turn] = &usage[i]
	}
	est := diagnose.EstimatedPrompts(events)
	var out []TurnView
	idx := map[int64]int{}
	for _, e := range events {
		i, ok := idx[e.Turn]
		if !ok {
			tv := TurnView{Turn: e.Turn, EstimatedInput: est[e.Turn]}
			if u := byTurn[e.Turn]; u != nil {
				in, o := u.InputTokens, u.OutputTokens
				tv.LoggedInput, tv.LoggedOutput = &in, &o
			}
			out = append(out, tv)
			i = len(out) - 1
			idx[e.Turn] = i
		}
		out[i].Events = append(out[i].Events, e)
	}
	return out
}

func showRun(ctx context.Context, st *store.Store, o *ShowOptions) error {
	runs, err := st.Runs(ctx, store.RunFilter{RunID: o.RunID, Prefix: true, Limit: 2})
	if err != nil {
		return err
	}
	switch {
	case len(runs) == 0:
		return fmt.Errorf("no run with id or prefix %q", o.RunID)
	case len(runs) > 1 && runs[0].RunID != o.RunID:
		return fmt.Errorf("run prefix %q is ambiguous (%s, %s, …)", o.RunID, runs[0].RunID, runs[1].RunID)
	}
	run := runs[0]
	if len(runs) > 1 { // exact match wins
		for _, r := range runs {
			if r.RunID == o.RunID {
				run = r
			}
		}
	}
	events, err := st.Events(ctx, run.RunID)
	if err != nil {
		return err
	}
	usage, err := st.Usage(ctx, run.RunID)
	if err != nil {
		return err
	}
	ops, err := st.ContextOps(ctx, run.RunID)
	if err != nil {
		return err
	}
	turns := BuildTurns(events, usage)
	cal, err := st.CalibrationFor(ctx, run.SourceFormat, run.ModelFamily, run.Estimator)
	if err != nil {
		return err
	}
	if cal != nil {
		for i := range turns {
			v := int64(math.Round(cal.Offset + cal.Factor*float64(turns[i].EstimatedInput)))
			turns[i].Calibrated = &v
		}
	}
	if o.JSON {
		if ops == nil {
			ops = []schema.ContextOp{}
		}
		return writeJSON(o.Out, struct {
			Run        schema.Run         `json:"run"`
			Usage      []schema.Usage     `json:"usage"`
			Turns      []TurnView         `json:"turns"`
			ContextOps []schema.ContextOp `json:"context_ops"`
		}{run, usage, turns, ops})
	}
	w := o.Out
	fmt.Fprintf(w, "run %s  (%s, %s)\n", termSafe(run.RunID), run.SourceFormat, termSafe(run.SourcePath))
	fmt.Fprintf(w, "model %s  turns %d  logged in %s out %s cache-read %s cache-write %s  estimated %s (%s)\n",
		termSafe(orDash(run.Model)), run.NTurns, thousands(run.InputTokens), thousands(run.OutputTokens),
		thousands(run.CacheReadTokens), thousands(run.CacheWriteTokens), thousands(run.EstTokens), run.Estimator)
	fmt.Fprintf(w, "end %s (%s) %s\n", run.EndReason, run.EndReasonSource, snippet(run.EndReasonDetail, 80))
	opsBySeq := map[int64][]schema.ContextOp{}
	for _, op := range ops {
		opsBySeq[op.Seq] = append(opsBySeq[op.Seq], op)
	}
	for _, t := range turns {
		logged := "-"
		ratio := ""
		if t.LoggedInput != nil {
			logged = thousands(*t.LoggedInput)
			if t.EstimatedInput > 0 {
				ratio = fmt.Sprintf("  logged/est %.2f", float64(*t.LoggedInput)/float64(t.EstimatedInput))
			}
		}
		calibrated := ""
		if t.Calibrated != nil {
			calibrated = "  calibrated " + thousands(*t.Calibrated)
		}
		fmt.Fprintf(w, "\nturn %d  logged input %s  estimated prompt %s%s%s\n", t.Turn, logged, thousands(t.EstimatedInput), calibrated, ratio)
		tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
		for _, e := range t.Events {
			label := string(e.Kind)
			if e.ToolName != "" {
				label += " " + e.ToolName
			}
			text := e.Text
			if e.Kind == schema.KindToolCall && e.Target != "" {
				text = e.Target
			}
			flag := ""
			if e.IsError {
				flag = " !"
			}
			fmt.Fprintf(tw, "  %d\t%s%s\t%s tok\t%s\n", e.Seq, snippet(label, 28), flag, thousands(e.EstTokens), snippet(text, o.Width))
			for _, op := range opsBySeq[e.Seq] {
				fmt.Fprintf(tw, "  \t↳ op %s\t%s\t%s\n", op.Op, termSafe(opKey(op)), opTokens(op))
			}
		}
		tw.Flush()
	}
	return nil
}

func opKey(op schema.ContextOp) string {
	if op.ToolKey != "" {
		return "key " + snippet(op.ToolKey, 40)
	}
	return op.Trigger
}

func opTokens(op schema.ContextOp) string {
	s := ""
	if op.TokensBefore != nil {
		s += "before " + thousands(*op.TokensBefore)
	}
	if op.TokensAfter != nil {
		s += " after " + thousands(*op.TokensAfter)
	}
	return s
}
