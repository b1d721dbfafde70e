package cmd

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/internal/store"
)

// CheckOptions are the flags of trajmine check.
type CheckOptions struct {
	JSON bool
	Out  io.Writer
}

// NewCheckCmd builds `trajmine check`.
func NewCheckCmd(d *Deps, runF func(*CheckOptions) error) *cobra.Command {
	o := &CheckOptions{}
	c := &cobra.Command{
		Use:   "check [--json]",
		Short: "Check the database's consistency (no orphaned rows, counts that add up)",
		Long: `Check that the database is consistent: every events, usage, tool_outputs and
context_ops row belongs to a run, every run to an imported file, run ids and
event (run_id, seq) pairs are unique, a file's sha256 is recorded once, and
each sources row counts its file's runs and events, and a resumed session's
copied usage rows are marked (usage.copy_of_run_id: a row with the request
id and the input, output and cache tokens of a row of another run that
ended first; their tokens in the copied_* columns of usage and runs, so
that sums count them once).
Prints each broken rule
with the number of rows that break it and one of them, and exits 1 if any is
broken. Imports keep these rules (each file is one transaction); a failure
means a bug, or a change made outside trajmine.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.Out = c.OutOrStdout()
			if runF != nil {
				return runF(o)
			}
			return onStore(c.Context(), d, true, o, checkRun)
		},
	}
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	return c
}

func checkRun(ctx context.Context, st *store.Store, o *CheckOptions) error {
	probs, err := st.Check(ctx)
	if err != nil {
		return err
	}
	if o.JSON {
		if probs == nil {
			probs = []store.Problem{}
		}
		if err := writeJSON(o.Out, map[string]any{"rules": store.CheckRules(), "problems": probs}); err != nil {
			return err
		}
	} else if len(probs) == 0 {
		fmt.Fprintf(o.Out, "ok: %d rules hold\n", len(store.CheckRules()))
	} else {
		for _, p := range probs {
			fmt.Fprintf(o.Out, "broken: %s\n", termSafe(p.String()))
		}
	}
	if len(probs) > 0 {
		return &exitCodeError{code: exitFailed, msg: fmt.Sprintf("%d of %d consistency rules broken", len(probs), len(store.CheckRules()))}
	}
	return nil
}
