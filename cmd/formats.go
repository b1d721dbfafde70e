package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/ingest"
)

// FormatsOptions are the flags of trajmine formats.
type FormatsOptions struct {
	JSON bool
	Out  io.Writer
}

// NewFormatsCmd builds `trajmine formats`.
func NewFormatsCmd(d *Deps, runF func(*FormatsOptions) error) *cobra.Command {
	o := &FormatsOptions{}
	c := &cobra.Command{
		Use:   "formats",
		Short: "List the importers and what each reads",
		Long: `List the importers in the order auto-detection tries them: what each reads
and what its format offers (per-call usage, timestamps, tool-call ids,
compaction events, end reasons), the other agents whose logs it reads because
they copy its layout, the shared-corpus folders it is tested on (those
named corpus-more/… are in ../shared/corpus-more), and the agent versions its
fixtures come from where noted.
A file that several specific importers recognise is refused as ambiguous;
--format on ingest picks one.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.Out = c.OutOrStdout()
			if runF != nil {
				return runF(o)
			}
			return formatsRun(o)
		},
	}
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	return c
}

func formatsRun(o *FormatsOptions) error {
	type row struct {
		Name        string   `json:"name"`
		Description string   `json:"description"`
		TestedOn    []string `json:"corpus_folders"`
		AlsoReads   []string `json:"also_reads,omitempty"`
		Versions    string   `json:"versions,omitempty"`
	}
	var rows []row
	for _, im := range ingest.Importers() {
		folders := ingest.CorpusFolders(im.Name())
		if folders == nil {
			folders = []string{}
		}
		rows = append(rows, row{im.Name(), im.Describe(), folders, ingest.AlsoReads(im.Name()), ingest.TestedVersions(im.Name())})
	}
	if o.JSON {
		return writeJSON(o.Out, rows)
	}
	for i, r := range rows {
		if i > 0 {
			fmt.Fprintln(o.Out)
		}
		tested := "hand-written fixtures only"
		if len(r.TestedOn) > 0 {
			tested = "shared corpus folders " + strings.Join(r.TestedOn, ", ")
		}
		fmt.Fprintf(o.Out, "%s\n  %s\n", r.Name, r.Description)
		if len(r.AlsoReads) > 0 {
			fmt.Fprintf(o.Out, "  also reads: %s\n", strings.Join(r.AlsoReads, "; "))
		}
		fmt.Fprintf(o.Out, "  tested on: %s\n", tested)
		if r.Versions != "" {
			fmt.Fprintf(o.Out, "  versions: %s\n", r.Versions)
		}
	}
	return nil
}
