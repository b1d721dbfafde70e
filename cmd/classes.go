package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/actions"
	"github.com/trajmine/trajmine/internal/store"
)

// ClassesOptions are the flags of trajmine classes.
type ClassesOptions struct {
	Terminal
	Err   io.Writer
	Rules string // user mapping file, tried before the defaults
	JSON  bool
	Wide  bool // MATCHES whole, not fitted to the terminal
}

// NewClassesCmd builds `trajmine classes`.
func NewClassesCmd(d *Deps, runF func(*ClassesOptions) error) *cobra.Command {
	o := &ClassesOptions{}
	c := &cobra.Command{
		Use:   "classes",
		Short: "Show how tool calls are classified into action classes, and what is left unclassified",
		Long: `Show the rules that give every tool call an action class (read, search, edit,
execute, test, context, submit, or other when no rule says), in the order they
are tried, each with its source: "default" or FILE:LINE of the --rules file,
whose rules are tried before the defaults.

A rule matches on the tool name (a name or glob, "|" between alternatives,
case-insensitive; an MCP tool also by its bare name), optionally the harness,
argument regexps (arg), and a command regexp matched against each simple
command of a shell tool's command line (cd, echo, export and the like count
only when nothing else does; the most significant command decides: submit,
test, edit, execute, context, search, read).

When the database exists, the rules are applied to every tool call in it:
CALLS is how many calls each rule decided, then the share of calls per class,
the unclassified (other) share overall and per harness, and the tool names
most often left unclassified, so you know what to add. The MATCHES column
takes the width the terminal leaves and is cut with "…"; --wide prints it
whole, --json has every field. A rules file is YAML or JSON, a list of rules:

  - {tool: deploy_service, harness: my-agent, class: execute}
  - tool: "*"
    command: '^make (lint|typecheck)\b'
    class: test
  - {tool: mcp__jira__*, arg: {action: '^(get|search)'}, class: read}`,
		Example: `  trajmine classes
  trajmine classes --rules my-tools.yaml --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.setTerminal(c, d)
			o.Err = c.ErrOrStderr()
			if o.Wide {
				o.Width = 0
			}
			if runF != nil {
				return runF(o)
			}
			return classesRun(c.Context(), d, o)
		},
	}
	c.Flags().StringVar(&o.Rules, "rules", "", "YAML or JSON `FILE` of rules tried before the defaults")
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	c.Flags().BoolVar(&o.Wide, "wide", false, "print MATCHES whole, not cut to the terminal's width")
	return c
}

// topUnclassified is how many unclassified tool names are listed overall,
// and topPerHarness how many per harness.
const (
	topUnclassified = 10
	topPerHarness   = 3
)

type classRule struct {
	actions.Rule
	Calls *int64 `json:"calls,omitempty"`
}

type classShare struct {
	Class string  `json:"class"`
	Calls int64   `json:"calls"`
	Share float64 `json:"share"`
}

type toolCount struct {
	Harness string `json:"harness"`
	Tool    string `json:"tool"`
	Calls   int64  `json:"calls"`
}

type harnessShare struct {
	Harness      string      `json:"harness"`
	Calls        int64       `json:"calls"`
	Other        int64       `json:"other"`
	OtherShare   float64     `json:"other_share"`
	Unclassified []toolCount `json:"top_unclassified"`
}

type classCalls struct {
	Total        int64          `json:"total"`
	Classes      []classShare   `json:"classes"`
	Other        int64          `json:"other"`
	OtherShare   float64        `json:"other_share"`
	Harnesses    []harnessShare `json:"harnesses"`
	Unclassified []toolCount    `json:"top_unclassified"`
}

type classesResult struct {
	Rules []classRule `json:"rules"`
	Calls *classCalls `json:"calls"` // null when there is no database
}

func classesRun(ctx context.Context, d *Deps, o *ClassesOptions) error {
	var user []actions.Rule
	if o.Rules != "" {
		f, err := os.Open(o.Rules)
		if err != nil {
			return fmt.Errorf("--rules: %w", err)
		}
		user, err = actions.LoadRules(f, o.Rules)
		f.Close()
		if err != nil {
			return err
		}
	}
	cl, err := actions.New(&actions.Options{Rules: user})
	if err != nil {
		return err
	}
	var tally *classTally
	if _, err := os.Stat(d.dbPath()); err == nil {
		st, err := d.open(ctx, true)
		if err != nil {
			return err
		}
		defer st.Close()
		if tally, err = tallyClasses(ctx, st, cl); err != nil {
			return err
		}
	} else if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(o.Err, "no database at %s: showing the rules only (trajmine ingest first to see the shares)\n", d.dbPath())
	} else {
		return fmt.Errorf("open database %s: %w", d.dbPath(), err)
	}
	out := classesReport(cl, tally)
	if o.JSON {
		return writeJSON(o.Out, out)
	}
	return writeClasses(o.Out, out, o.Width, o.Bold)
}

// classTally counts tool calls by the rule and class that classified them.
type classTally struct {
	total     int64
	byRule    map[int]int64 // rule index (0 = none) → calls
	byClass   map[actions.Class]int64
	byHarness map[string]*harnessTally
}

type harnessTally struct {
	calls, other int64
	otherTools   map[string]int64
}

func tallyClasses(ctx context.Context, st *store.Store, cl *actions.Classifier) (*classTally, error) {
	t := &classTally{byRule: map[int]int64{}, byClass: map[actions.Class]int64{}, byHarness: map[string]*harnessTally{}}
	err := st.ToolCalls(ctx, func(g store.ToolCallGroup) error {
		c, r := cl.Classify(g.Harness, g.ToolName, g.Args)
		t.total += g.N
		t.byRule[r.Index] += g.N
		t.byClass[c] += g.N
		h := t.byHarness[g.Harness]
		if h == nil {
			h = &harnessTally{otherTools: map[string]int64{}}
			t.byHarness[g.Harness] = h
		}
		h.calls += g.N
		if c == actions.Other {
			h.other += g.N
			h.otherTools[g.ToolName] += g.N
		}
		return nil
	})
	return t, err
}

func share(n, total int64) float64 {
	if total == 0 {
		return 0
	}
	return float64(n) / float64(total)
}

// classesReport assembles what classes prints; tally is nil without a database.
func classesReport(cl *actions.Classifier, t *classTally) classesResult {
	var out classesResult
	for _, r := range cl.Rules() {
		row := classRule{Rule: r}
		if t != nil {
			n := t.byRule[r.Index]
			row.Calls = &n
		}
		out.Rules = append(out.Rules, row)
	}
	if t == nil {
		return out
	}
	calls := &classCalls{Total: t.total, Other: t.byClass[actions.Other], OtherShare: share(t.byClass[actions.Other], t.total), Classes: []classShare{}, Harnesses: []harnessShare{}, Unclassified: []toolCount{}}
	for _, c := range actions.Classes {
		calls.Classes = append(calls.Classes, classShare{c.String(), t.byClass[c], share(t.byClass[c], t.total)})
	}
	var all []toolCount
	for name, h := range t.byHarness {
		var tools []toolCount
		for tool, n := range h.otherTools {
			tools = append(tools, toolCount{name, tool, n})
		}
		sortToolCounts(tools)
		all = append(all, tools...)
		if tools == nil {
			tools = []toolCount{}
		}
		calls.Harnesses = append(calls.Harnesses, harnessShare{name, h.calls, h.other, share(h.other, h.calls), tools[:min(len(tools), topPerHarness)]})
	}
	sort.Slice(calls.Harnesses, func(i, j int) bool {
		a, b := calls.Harnesses[i], calls.Harnesses[j]
		if a.Calls != b.Calls {
			return a.Calls > b.Calls
		}
		return a.Harness < b.Harness
	})
	sortToolCounts(all)
	calls.Unclassified = append(calls.Unclassified, all[:min(len(all), topUnclassified)]...)
	out.Calls = calls
	return out
}

func sortToolCounts(ts []toolCount) {
	sort.Slice(ts, func(i, j int) bool {
		a, b := ts[i], ts[j]
		if a.Calls != b.Calls {
			return a.Calls > b.Calls
		}
		if a.Harness != b.Harness {
			return a.Harness < b.Harness
		}
		return a.Tool < b.Tool
	})
}

func writeClasses(w io.Writer, r classesResult, width int, bold bool) error {
	say := func(line string) { // a heading, wrapped to the terminal
		for _, l := range wrap(line, width) {
			fmt.Fprintln(w, l)
		}
	}
	say("Rules, in the order they are tried (the first that matches decides):")
	rules := &table{header: []string{"#", "CLASS", "SOURCE", "MATCHES"}, min: []int{1, 7, 10, max(20, 2*width/5)}, prose: 4}
	if r.Calls != nil {
		rules.header = []string{"#", "CLASS", "SOURCE", "CALLS", "MATCHES"}
		rules.min, rules.prose = []int{1, 7, 10, 5, max(20, 2*width/5)}, 5
	}
	var matched int64
	for _, row := range r.Rules {
		src := row.Source
		if row.Line > 0 {
			src = fmt.Sprintf("%s:%d", src, row.Line)
		}
		desc := snippet(row.Describe(), 400)
		if row.Note != "" {
			desc += "  — " + snippet(row.Note, 200)
		}
		if r.Calls != nil {
			matched += *row.Calls
			rules.add(fmt.Sprint(row.Index), row.Class.String(), snippet(src, 80), thousands(*row.Calls), desc)
		} else {
			rules.add(fmt.Sprint(row.Index), row.Class.String(), snippet(src, 80), desc)
		}
	}
	c := r.Calls
	if c != nil {
		rules.totals = []string{"", "all", "", thousands(matched)}
		rules.footer = []string{fmt.Sprintf("CALLS: tool calls each rule decided; %s matched no rule (other).", thousands(c.Total-matched))}
	}
	if rules.cuts(width) {
		rules.footer = append(rules.footer, "MATCHES is cut to the terminal's width: --wide prints it whole.")
	}
	if err := rules.write(w, width, bold); err != nil {
		return err
	}
	if c == nil {
		return nil
	}
	fmt.Fprintln(w)
	if c.Total == 0 {
		fmt.Fprintln(w, "The database holds no tool calls.")
		return nil
	}
	say(fmt.Sprintf("Tool calls in the database: %s, %s (%s) unclassified (other).", thousands(c.Total), thousands(c.Other), pct(c.OtherShare)))
	fmt.Fprintln(w)
	shares := &table{header: []string{"CLASS", "CALLS", "SHARE"}}
	var sum int64
	for _, s := range c.Classes {
		sum += s.Calls
		shares.add(s.Class, thousands(s.Calls), pct(s.Share))
	}
	shares.totals = []string{"total", thousands(sum), pct(share(sum, c.Total))}
	if err := shares.write(w, width, bold); err != nil {
		return err
	}
	fmt.Fprintln(w)
	say("Unclassified (other) per harness:")
	hs := &table{header: []string{"HARNESS", "CALLS", "OTHER", "SHARE", "MOST UNCLASSIFIED"}, min: []int{8, 5, 5, 5, 20}, prose: 5,
		right: []bool{false, true, true, true, false}}
	for _, h := range c.Harnesses {
		top := "-"
		for i, t := range h.Unclassified {
			if i == 0 {
				top = ""
			} else {
				top += ", "
			}
			top += fmt.Sprintf("%s (%s)", snippet(t.Tool, 40), thousands(t.Calls))
		}
		hs.add(snippet(orDash(h.Harness), 40), thousands(h.Calls), thousands(h.Other), pct(h.OtherShare), top)
	}
	hs.totals = []string{"total", thousands(c.Total), thousands(c.Other), pct(c.OtherShare)}
	hs.footer = []string{fmt.Sprintf("MOST UNCLASSIFIED: up to %d tool names per harness that no rule classified, with their calls.", topPerHarness)}
	if err := hs.write(w, width, bold); err != nil {
		return err
	}
	if len(c.Unclassified) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	say("Tool names most often unclassified (add rules for them with --rules FILE):")
	un := &table{header: []string{"CALLS", "HARNESS", "TOOL"}, min: []int{5, 8, 12}}
	for _, t := range c.Unclassified {
		un.add(thousands(t.Calls), snippet(orDash(t.Harness), 40), snippet(orDash(t.Tool), 60))
	}
	return un.write(w, width, bold)
}
