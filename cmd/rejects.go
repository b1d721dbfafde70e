package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
)

// RejectsOptions are the flags of trajmine rejects.
type RejectsOptions struct {
	Terminal
	JSON bool
}

// NewRejectsCmd builds `trajmine rejects`.
func NewRejectsCmd(d *Deps, runF func(*RejectsOptions) error) *cobra.Command {
	o := &RejectsOptions{}
	c := &cobra.Command{
		Use:   "rejects",
		Short: "List the records of imported files that could not be read (file:line: why)",
		Long: `List the records that trajmine ingest and report could not read, one per
line, by file and position: FILE:LINE: WHY for a line of a JSONL or JSON
file, FILE: table T row N: WHY for a row of an agent's SQLite store (which
has no lines; its line is 0 in the JSON). An import keeps going past a bad
record (the rest of the file still imports; ingest --strict stops instead)
and stores it in the rejects table; report counts them in one line and this
command lists them. --json adds each record's text (its first 2,048 bytes).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.setTerminal(c, d)
			if runF != nil {
				return runF(o)
			}
			return onStore(c.Context(), d, true, o, rejectsRun)
		},
	}
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON, each record's text included")
	return c
}

func rejectsRun(ctx context.Context, st *store.Store, o *RejectsOptions) error {
	rs, err := st.Rejects(ctx)
	if err != nil {
		return err
	}
	if o.JSON {
		if rs == nil {
			rs = []schema.Reject{}
		}
		return writeJSON(o.Out, rs)
	}
	if len(rs) == 0 {
		fmt.Fprintln(o.Out, "no line rejected")
		return nil
	}
	for _, r := range rs {
		printIndented(o.Out, o.Width, "", "  ", rejectLine(r))
	}
	return nil
}

// rejectLine is one reject as rejects prints it: FILE:LINE: WHY, or, for
// a record with no line (a SQLite store's row, its reason beginning with
// "table T row N"), FILE: WHY.
func rejectLine(r schema.Reject) string {
	path, reason := snippet(r.SourcePath, len(r.SourcePath)), snippet(r.Reason, len(r.Reason))
	if r.Line <= 0 {
		return fmt.Sprintf("%s: %s", path, reason)
	}
	return fmt.Sprintf("%s:%d: %s", path, r.Line, reason)
}
