package cmd

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/simulate"
)

// PoliciesOptions are the flags of trajmine policies.
type PoliciesOptions struct {
	JSON bool
	Out  io.Writer
}

// NewPoliciesCmd builds `trajmine policies`.
func NewPoliciesCmd(d *Deps, runF func(*PoliciesOptions) error) *cobra.Command {
	o := &PoliciesOptions{}
	c := &cobra.Command{
		Use:   "policies",
		Short: "List the context policies trajmine simulate replays, with parameters, defaults and sources",
		Long: `List the policy catalog of trajmine simulate: each policy's rule, its
parameters with defaults, and where the semantics and numbers come from.
A policy spec is name or name(param=value,…), e.g.
'halflife(activate=0.5,keep=4,cap=8000)'.

A policy that replaces the agent's own context management (every mechanism
but dtoc and logged: keep-all, masking, truncation, compaction) is replayed
without the agent's manage_context calls, as a harness that does not offer
the tool would run: a model call whose tool calls are all manage_context is
dropped (its prompt, output and result), a manage_context call inside another
call loses just that tool call and result. The agent's other actions are held
fixed; what it would have done instead the log cannot say.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.Out = c.OutOrStdout()
			if runF != nil {
				return runF(o)
			}
			defs := simulate.Catalog()
			if o.JSON {
				return writeJSON(o.Out, defs)
			}
			return writePolicies(o.Out, defs)
		},
	}
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	return c
}

func writePolicies(w io.Writer, defs []simulate.Def) error {
	for i, d := range defs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n", d.Name)
		fmt.Fprintf(w, "  %s\n", wrapText(d.Doc, 76, "  "))
		fmt.Fprintf(w, "  source: %s\n", wrapText(d.Source, 68, "          "))
		if d.ReplacesContext {
			fmt.Fprintf(w, "  mechanism: %s; replaces manage_context: replayed without the agent's manage_context calls\n", d.Mechanism)
		} else {
			fmt.Fprintf(w, "  mechanism: %s; keeps the agent's manage_context calls as logged\n", d.Mechanism)
		}
		if len(d.Params) == 0 {
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, p := range d.Params {
			def := p.Default
			if def == "" {
				def = `""`
			}
			fmt.Fprintf(tw, "  %s=%s\t%s\n", p.Name, def, p.Doc)
		}
		tw.Flush()
	}
	return nil
}

// wrapText wraps s at width columns, continuing lines with indent.
func wrapText(s string, width int, indent string) string {
	var b strings.Builder
	col := 0
	for i, word := range strings.Fields(s) {
		if i > 0 {
			if col+1+len([]rune(word)) > width {
				b.WriteString("\n" + indent)
				col = 0
			} else {
				b.WriteByte(' ')
				col++
			}
		}
		b.WriteString(word)
		col += len([]rune(word))
	}
	return b.String()
}
