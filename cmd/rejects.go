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
		Short: "List the lines of imported files that could not be read (file:line: why)",
		Long: `List the records (lines, for JSONL) that trajmine ingest and report could not
read, one per line as FILE:LINE: WHY, by file and line. An import keeps going
past a bad line (the rest of the file still imports; ingest --strict stops
instead) and stores it in the rejects table; report counts them in one line
and this command lists them. --json adds each record's text (its first
2,048 bytes).`,
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
		printIndented(o.Out, o.Width, "", "  ", fmt.Sprintf("%s:%d: %s", snippet(r.SourcePath, len(r.SourcePath)), r.Line, snippet(r.Reason, len(r.Reason))))
	}
	return nil
}
