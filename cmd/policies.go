package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/simulate"
)

// PoliciesOptions are the flags of trajmine policies.
type PoliciesOptions struct {
	Terminal
	JSON bool
	Wide bool // each policy's whole rule, parameters and source
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
fixed; what it would have done instead the log cannot say.


The table gives each policy's parameters with their defaults and its rule,
which takes the width the terminal leaves and is cut with "…"; --wide prints
each policy's whole rule, every parameter with what it does, and the source,
wrapped to the terminal; --json has all of it.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.setTerminal(c, d)
			if runF != nil {
				return runF(o)
			}
			defs := simulate.Catalog()
			if o.JSON {
				return writeJSON(o.Out, defs)
			}
			if o.Wide {
				return writePoliciesWide(o.Out, defs, o.Width)
			}
			return writePolicies(o.Out, defs, o.Width, o.Bold)
		},
	}
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	c.Flags().BoolVar(&o.Wide, "wide", false, "print each policy's whole rule, parameters and source")
	return c
}

// writePolicies is the catalog as a table: name, parameters with their
// defaults, and the rule (prose: cut to the width left).
func writePolicies(w io.Writer, defs []simulate.Def, width int, bold bool) error {
	// the rule keeps at least two fifths of the width; the parameters
	// give way after it
	t := &table{header: []string{"POLICY", "PARAMETERS", "RULE"}, min: []int{8, 10, max(20, 2*width/5)}, prose: 3,
		right: []bool{false, false, false}}
	for _, d := range defs {
		var ps []string
		for _, p := range d.Params {
			ps = append(ps, p.Name+"="+paramDefault(p.Default))
		}
		t.add(d.Name, orDash(strings.Join(ps, " ")), d.Doc)
	}
	if t.cuts(width) {
		t.footer = []string{"Cut to the terminal's width: trajmine policies --wide prints each policy's whole rule, what each parameter does and the source; --json has all of it."}
	}
	return t.write(w, width, bold)
}

func paramDefault(v string) string {
	if v == "" {
		return `""`
	}
	return v
}

// writePoliciesWide is each policy's whole rule, its parameters with what
// they do, and its source, wrapped to width (0: 78 columns).
func writePoliciesWide(w io.Writer, defs []simulate.Def, width int) error {
	if width <= 0 {
		width = 78
	}
	for i, d := range defs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n", d.Name)
		fmt.Fprintf(w, "  %s\n", wrapText(d.Doc, max(width-2, 20), "  "))
		fmt.Fprintf(w, "  source: %s\n", wrapText(d.Source, max(width-10, 20), "          "))
		if d.ReplacesContext {
			fmt.Fprintf(w, "  mechanism: %s; replaces manage_context: replayed without the agent's manage_context calls\n", d.Mechanism)
		} else {
			fmt.Fprintf(w, "  mechanism: %s; keeps the agent's manage_context calls as logged\n", d.Mechanism)
		}
		if len(d.Params) == 0 {
			continue
		}
		t := &table{header: []string{"PARAM", "WHAT"}, right: []bool{false, false}, noHeader: true, indent: "  "}
		for _, p := range d.Params {
			t.add(p.Name+"="+paramDefault(p.Default), p.Doc)
		}
		if err := t.write(w, 0, false); err != nil {
			return err
		}
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
