package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/redact"
	"github.com/trajmine/trajmine/schema"
)

// ShowOptions are the flags of trajmine show.
type ShowOptions struct {
	RunID    string
	Width    int // characters of text shown per event
	JSON     bool
	NoRedact bool
	Wide     bool // the event lines not fitted to the terminal
	Out      io.Writer
	Columns  int  // the terminal's width, which the event lines fit (0: no limit)
	Bold     bool // bold turn lines (a terminal that wants it)
}

// NewShowCmd builds `trajmine show RUN`.
func NewShowCmd(d *Deps, runF func(*ShowOptions) error) *cobra.Command {
	o := &ShowOptions{}
	c := &cobra.Command{
		Use:   "show RUN",
		Short: "Show one run call by call: events, logged input tokens, estimate",
		Long: `Show one run call by call. RUN is a run id or a unique prefix of one.

The "end" line is why the run ended: trajmine diagnose's end reason, with
its rule and why, once the run is diagnosed (diag_runs, as of the last
trajmine diagnose or report; an "end as imported" line follows with the
importer's when it differs), else the importer's, marked "not diagnosed".
--json has both: run.end_reason (the importer's) and end (what the line
says, with "by": diagnose or import).

For each model call the header gives the logged input tokens (incl.
cache) and the estimated prompt: the est_tokens of every event of earlier
calls plus the input events of this call, restarting after a compaction (the
compaction summary then opens the new prompt). The ratio shows how well the
estimate tracks the log. After trajmine calibrate, each call also shows the
calibrated estimate, offset + factor × estimated prompt, with the fit of the
run's model family. Events after the run's last model call (the output of
its last tool call, a command the user ran) are shown under a call marked
"after the last model call": no prompt was sent with them, so none is
estimated.

Each event line gives its seq, kind (and tool), estimated tokens and text
(for a tool call its target), "!" after a tool result the log marks as an
error; a context operation logged at the event follows it on a "↳ op" line.
The text takes the width the terminal leaves and is cut with "…" (and at
--width characters); --wide does not fit the lines to the terminal, and
--json has every event's whole text.

Secrets in the log text (API keys, tokens, passwords, private keys, found
by gitleaks' default rules) are printed as [REDACTED:<rule>], in the text
and in --json; --no-redact prints them as logged. The database keeps
them either way.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			o.RunID, o.Out, o.Columns, o.Bold = args[0], c.OutOrStdout(), d.width(), d.bold()
			if o.Wide {
				o.Columns = 0
			}
			if runF != nil {
				return runF(o)
			}
			return onStore(c.Context(), d, true, o, showRun)
		},
	}
	c.Flags().IntVar(&o.Width, "width", 72, "characters of text shown per event")
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON (run, usage, events, context_ops)")
	c.Flags().BoolVar(&o.Wide, "wide", false, "do not fit the event lines to the terminal (text up to --width characters)")
	c.Flags().BoolVar(&o.NoRedact, "no-redact", false, "print secrets found in log text as logged (default: [REDACTED:<rule>])")
	return c
}

// TurnView is one model call of a run as show prints it.
type TurnView struct {
	Turn int64 `json:"turn"`
	// AfterLastCall: the turn follows the run's last model call
	// (diagnose.LastCall): no prompt was sent with its events, and
	// EstimatedInput is 0.
	AfterLastCall  bool           `json:"after_last_call,omitempty"`
	LoggedInput    *int64         `json:"logged_input_tokens,omitempty"`
	LoggedOutput   *int64         `json:"logged_output_tokens,omitempty"`
	EstimatedInput int64          `json:"estimated_prompt_tokens"`
	Calibrated     *int64         `json:"calibrated_prompt_tokens,omitempty"`
	Events         []schema.Event `json:"events"`
}

// BuildTurns groups events by turn, in order of first appearance, and sets
// each turn's estimated prompt from diagnose.EstimatedPrompts (the sum of the
// est_tokens of earlier turns plus this turn's input events, restarting after
// a compaction); a turn after the run's last model call has none
// (AfterLastCall).
func BuildTurns(events []schema.Event, usage []schema.Usage) []TurnView {
	byTurn := map[int64]*schema.Usage{}
	for i := range usage {
		byTurn[usage[i].Turn] = &usage[i]
	}
	est := diagnose.EstimatedPrompts(events)
	lastCall, anyCall := diagnose.LastCall(events, usage)
	var out []TurnView
	idx := map[int64]int{}
	for _, e := range events {
		i, ok := idx[e.Turn]
		if !ok {
			tv := TurnView{Turn: e.Turn, EstimatedInput: est[e.Turn]}
			if !anyCall || e.Turn > lastCall {
				tv.AfterLastCall, tv.EstimatedInput = true, 0
			}
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
	var red *redact.Redactor
	if !o.NoRedact {
		var err error
		if red, err = redact.New(); err != nil {
			return err
		}
	}
	run, err := findRun(ctx, st, o.RunID, red)
	if err != nil {
		return err
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
	ends, err := st.DiagEnds(ctx, run.RunID)
	if err != nil {
		return err
	}
	end := runEnd(run, ends)
	if red != nil {
		end.Why = red.String(end.Why)
		// the text view prints the head of each text: redacting the head
		// (redact.Redactor.Head) costs that, not the whole text
		head := -1
		if !o.JSON {
			head = max(showHead, 4*o.Width)
		}
		red.Records(&run, events, usage, ops, head)
	}
	turns := BuildTurns(events, usage)
	cal, err := st.CalibrationFor(ctx, run.SourceFormat, run.ModelFamily, run.Estimator)
	if err != nil {
		return err
	}
	if cal != nil {
		for i := range turns {
			if turns[i].AfterLastCall {
				continue
			}
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
			End        RunEnd             `json:"end"`
			Usage      []schema.Usage     `json:"usage"`
			Turns      []TurnView         `json:"turns"`
			ContextOps []schema.ContextOp `json:"context_ops"`
		}{run, end, usage, turns, ops})
	}
	w := o.Out
	// the header's lines wrap at the width, the run id and path whole
	head := func(s string) { printIndented(w, o.Columns, "", "    ", s) }
	head(fmt.Sprintf("run %s  (%s, %s)", termSafe(run.RunID), run.SourceFormat, termSafe(run.SourcePath)))
	if run.CopiedCalls > 0 { // a resumed or forked session: its totals leave the copies out
		head(fmt.Sprintf("continues %s: its %s copied from that run (in %s out %s) are counted there, not in the totals below",
			termSafe(run.ContinuesRunID), countOf(int(run.CopiedCalls), "call"), thousands(run.CopiedInputTokens), thousands(run.CopiedOutputTokens)))
	}
	head(fmt.Sprintf("model %s  calls %s  logged in %s out %s cache-read %s cache-write %s  estimated %s (%s)",
		termSafe(orDash(run.Model)), thousands(run.NTurns), thousands(run.InputTokens), thousands(run.OutputTokens),
		thousands(run.CacheReadTokens), thousands(run.CacheWriteTokens), thousands(run.EstTokens), run.Estimator))
	writeShowEnd(w, o.Columns, run, end)
	opsBySeq := map[int64][]schema.ContextOp{}
	for _, op := range ops {
		opsBySeq[op.Seq] = append(opsBySeq[op.Seq], op)
	}
	errs, withOps, cut := false, false, false
	heads := make([]string, len(turns))
	tables := make([]*table, len(turns))
	for k, t := range turns {
		logged := "-"
		ratio := ""
		if t.LoggedInput != nil {
			logged = thousands(*t.LoggedInput)
			if t.EstimatedInput > 0 {
				ratio = "  logged/est " + textfmt.Ratio(float64(*t.LoggedInput)/float64(t.EstimatedInput))
			}
		}
		calibrated := ""
		if t.Calibrated != nil {
			calibrated = "  calibrated " + thousands(*t.Calibrated)
		}
		head := fmt.Sprintf("call %d  logged input %s  estimated prompt %s%s%s", t.Turn, logged, thousands(t.EstimatedInput), calibrated, ratio)
		if t.AfterLastCall {
			head = fmt.Sprintf("call %d  after the last model call: no prompt was sent", t.Turn)
		}
		var hb strings.Builder
		printIndented(&hb, o.Columns, "", "    ", head)
		head = strings.TrimSuffix(hb.String(), "\n")
		if o.Bold {
			head = "\x1b[1m" + strings.ReplaceAll(head, "\n", "\x1b[0m\n\x1b[1m") + "\x1b[0m"
		}
		heads[k] = head
		// seq, event, tokens, text: the text (prose) takes what is left
		tb := &table{header: []string{"SEQ", "EVENT", "TOKENS", "TEXT"}, right: []bool{true, false, true, false}, min: []int{1, 10, 6, 16},
			prose: 4, noHeader: true, indent: "  "}
		for _, e := range t.Events {
			label := string(e.Kind)
			if e.ToolName != "" {
				label += " " + e.ToolName
			}
			text := e.Text
			if e.Kind == schema.KindToolCall && e.Target != "" {
				text = e.Target
			}
			label = snippet(label, 28)
			if e.IsError {
				label += " !"
				errs = true
			}
			tb.add(fmt.Sprint(e.Seq), label, thousands(e.EstTokens)+" tok", snippet(text, o.Width))
			for _, op := range opsBySeq[e.Seq] {
				withOps = true
				tb.add("", "↳ op "+string(op.Op), "", strings.TrimSpace(opKey(op)+"  "+opTokens(op)))
			}
		}
		tables[k] = tb
		cut = cut || tb.cuts(o.Columns)
	}
	for k := range turns {
		fmt.Fprintf(rawWriter(w), "\n%s\n", heads[k])
		if err := tables[k].write(w, o.Columns, false); err != nil {
			return err
		}
	}
	var notes []string
	if errs {
		notes = append(notes, "! a tool result the log marks as an error")
	}
	if withOps {
		notes = append(notes, "↳ op: a context operation logged at the event above (trigger or tool key, tokens before and after)")
	}
	if cut {
		notes = append(notes, "text cut to the terminal's width: --wide for longer lines, --json for the whole text")
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for _, l := range wrap(strings.Join(notes, "; "), o.Columns) {
			fmt.Fprintln(w, l)
		}
	}
	return nil
}

// writeShowEnd prints the end line(s) of trajmine show, wrapped to width:
// the end reason with its source, and by what it was decided (RunEnd).
func writeShowEnd(w io.Writer, width int, run schema.Run, end RunEnd) {
	line := func(parts ...string) {
		printIndented(w, width, "", "    ", strings.TrimRight(strings.Join(parts, " "), " "))
	}
	if end.By != EndByDiagnose {
		line("end", string(end.Reason), "("+string(end.Source)+"; importer, not diagnosed)", snippet(end.Why, 80))
		return
	}
	line("end", string(end.Reason), "("+string(end.Source)+"; trajmine diagnose, rule "+end.Rule+")", snippet(end.Why, 120))
	if run.EndReason != end.Reason || run.EndReasonSource != end.Source {
		line("end as imported:", orDash(string(run.EndReason)), "("+orDash(string(run.EndReasonSource))+")", snippet(run.EndReasonDetail, 80))
	}
}

// maxCandidates is how many runs an ambiguous prefix's error lists.
const maxCandidates = 10

// findRun is the run with id, else the one run whose id starts with id.
// When several do, the error lists them (by id, maxCandidates at most,
// then how many more), as git does for an ambiguous short object id;
// the ids, models and the prefix itself redacted by red as show's output
// is (nil: as stored).
func findRun(ctx context.Context, st *store.Store, id string, red *redact.Redactor) (schema.Run, error) {
	runs, err := st.Runs(ctx, store.RunFilter{RunID: id})
	if err != nil || len(runs) == 1 {
		return firstRun(runs), err
	}
	if runs, err = st.Runs(ctx, store.RunFilter{RunID: id, Prefix: true}); err != nil {
		return schema.Run{}, err
	}
	switch len(runs) {
	case 0:
		return schema.Run{}, fmt.Errorf("no run with id or prefix %q", red.String(id))
	case 1:
		return runs[0], nil
	}
	return schema.Run{}, ambiguousRun(id, runs, red)
}

func firstRun(runs []schema.Run) schema.Run {
	if len(runs) == 0 {
		return schema.Run{}
	}
	return runs[0]
}

// ambiguousRun is the error for a prefix several runs share: the
// candidates by id, with their format, model and calls. red (nil: none)
// redacts the prefix, ids and models as show's output is (a run id is a
// file name, which can hold a key); when it redacts an id, the list also
// gives each run's start and log file (its name, redacted), which tell
// apart runs whose ids read alike once redacted, and says how to list
// the ids as stored.
func ambiguousRun(prefix string, runs []schema.Run, red *redact.Redactor) error {
	runs = slices.Clone(runs)
	slices.SortFunc(runs, func(a, b schema.Run) int { return strings.Compare(a.RunID, b.RunID) })
	shown := runs[:min(len(runs), maxCandidates)]
	hidden := false
	for _, r := range shown {
		hidden = hidden || red.String(r.RunID) != r.RunID
	}
	var b strings.Builder
	fmt.Fprintf(&b, "run prefix %q is ambiguous: %d runs start with it; the candidates are:\n", red.String(prefix), len(runs))
	t := &table{header: []string{"RUN", "FORMAT", "MODEL", "CALLS"}, right: []bool{false, false, false, false}, noHeader: true, indent: "  "}
	if hidden {
		t.header = append(t.header, "STARTED", "FILE")
		t.right = append(t.right, false, false)
	}
	for _, r := range shown {
		row := []string{red.String(r.RunID), r.SourceFormat, orDash(red.String(r.Model)), countOf(int(r.NTurns), "call")}
		if hidden {
			started := "start not logged"
			if r.StartedAt != nil {
				started = "started " + r.StartedAt.UTC().Format("2006-01-02 15:04:05")
			}
			row = append(row, started, red.String(filepath.Base(r.SourcePath)))
		}
		t.add(row...)
	}
	_ = t.write(&b, 0, false)
	if n := len(runs) - maxCandidates; n > 0 {
		fmt.Fprintf(&b, "  and %d more\n", n)
	}
	if hidden {
		b.WriteString("  (secrets in the ids are redacted; trajmine show --no-redact " + red.String(prefix) + " lists them as stored)\n")
	}
	return errors.New(strings.TrimSuffix(b.String(), "\n"))
}

// showHead is the least of each event text trajmine show's text view
// redacts (see redact.Redactor.Head).
const showHead = 1024

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
