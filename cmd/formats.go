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
named corpus-more/… are in ../shared/corpus-more) with the agent versions
their logs state, and the public agent fixtures of ingest/testdata/agents it
is tested on (agent, versions, source repository; parsers' and session
viewers' test files unless marked a real session or capture); last, the
agents with no licensed public sample to test on.
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
		Name          string                `json:"name"`
		Description   string                `json:"description"`
		TestedOn      []string              `json:"corpus_folders"`
		AgentFixtures []ingest.AgentFixture `json:"agent_fixtures"`
		AlsoReads     []string              `json:"also_reads,omitempty"`
		Versions      string                `json:"versions,omitempty"`
	}
	var rows []row
	for _, im := range ingest.Importers() {
		folders := ingest.CorpusFolders(im.Name())
		if folders == nil {
			folders = []string{}
		}
		fixtures := ingest.AgentFixtures(im.Name())
		if fixtures == nil {
			fixtures = []ingest.AgentFixture{}
		}
		rows = append(rows, row{im.Name(), im.Describe(), folders, fixtures, ingest.AlsoReads(im.Name()), ingest.TestedVersions(im.Name())})
	}
	if o.JSON {
		return writeJSON(o.Out, rows)
	}
	for i, r := range rows {
		if i > 0 {
			fmt.Fprintln(o.Out)
		}
		var tested []string
		if len(r.TestedOn) > 0 {
			tested = append(tested, "shared corpus folders "+strings.Join(r.TestedOn, ", "))
		}
		if len(r.AgentFixtures) > 0 {
			tested = append(tested, "the public agent fixtures below")
		}
		if len(tested) == 0 {
			tested = append(tested, "hand-written fixtures only")
		}
		fmt.Fprintf(o.Out, "%s\n  %s\n", r.Name, r.Description)
		if len(r.AlsoReads) > 0 {
			fmt.Fprintf(o.Out, "  also reads: %s\n", strings.Join(r.AlsoReads, "; "))
		}
		fmt.Fprintf(o.Out, "  tested on: %s\n", strings.Join(tested, "; "))
		if r.Versions != "" {
			fmt.Fprintf(o.Out, "  versions: %s\n", r.Versions)
		}
		for _, f := range r.AgentFixtures {
			fmt.Fprintf(o.Out, "  fixture ingest/testdata/agents/%s: %s; from %s\n", f.Folder, f.Agent, f.Source)
		}
	}
	if missing := ingest.AgentFixtures(""); len(missing) > 0 {
		fmt.Fprintln(o.Out)
		fmt.Fprintln(o.Out, "agents with no licensed public sample to test on (what was searched: ingest/testdata/agents/<folder>/SOURCE.md):")
		for _, f := range missing {
			fmt.Fprintf(o.Out, "  %s: %s\n", f.Folder, f.Agent)
		}
	}
	return nil
}
