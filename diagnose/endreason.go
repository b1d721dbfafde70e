package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/trajmine/trajmine/schema"
)

// OverflowMargin is the share of the window at or above which a run's last
// request counts as having filled it: a last prompt ≥ 95 % of the window
// leaves under 5 % (10K tokens of a 200K window) for the reply and the next
// tool result, less than agent harnesses reserve for output, so the next
// request could not have fit. It only applies to runs whose log gives no
// explicit end reason.
const OverflowMargin = 0.95

// IsOverflowText reports whether an error text says the prompt exceeded the
// window (the same words the importers use: schema.IsOverflowText).
func IsOverflowText(s string) bool { return schema.IsOverflowText(s) }

// End rules: which rule decided a run's end reason.
const (
	RuleLog         = "log"          // the log states the reason
	RuleErrorText   = "error-text"   // an error at the end of the run names an overflow
	RuleMessageText = "message-text" // an assistant message or tool result of the last turn reports an overflow
	RuleMargin      = "margin"       // the last prompt is within OverflowMargin of the window
	RuleSubmit      = "submit"       // the last tool call is a submit or finish action that did not fail
	RuleOutcome     = "outcome"      // the task is recorded as resolved
	RuleStall       = "stall"        // the last tool call repeats a failing command with the same output
	RuleImporter    = "importer"     // the importer's own inference is kept
)

// End is why a run ended, with how that was determined.
type End struct {
	Reason schema.EndReason    `json:"end_reason"`
	Source schema.ReasonSource `json:"end_reason_source"`
	Rule   string              `json:"rule"`
	Why    string              `json:"why"`
}

// WindowEnd reports whether the run ended on window length.
func (e End) WindowEnd() bool { return e.Reason == schema.EndContextOverflow }

// EndOptions are the optional inputs of EndReasonWith.
type EndOptions struct {
	// Classify gives the action class of a tool call (for RuleSubmit); nil
	// means DefaultClassify.
	Classify ClassifyFunc
	// Stalls are the run's Stalls (for RuleStall); nil computes them.
	Stalls *RunStalls
}

// EndReason is EndReasonWith with default options.
func EndReason(run schema.Run, events []schema.Event, occ RunOccupancy) End {
	return EndReasonWith(run, events, occ, nil)
}

// EndReasonWith decides why run ended, first rule that applies:
//
//  1. an explicit reason from the log stands (RuleLog);
//  2. context_overflow, inferred, when an event of the run's last turn
//     reports an overflow: an error event with a known overflow text
//     (schema.IsOverflowText, RuleErrorText), or an assistant message or tool
//     result whose text reports one (schema.IsOverflowMessage, which prose
//     mentioning the context window does not match; RuleMessageText). The
//     last turn is the turn of the last model output (assistant, reasoning,
//     tool_call) or of the last call with a prompt, whichever is later; events
//     from that turn on count, so overflow errors the run recovered from do
//     not;
//  3. context_overflow, inferred, when the last call's prompt is ≥
//     OverflowMargin of a known window (RuleMargin);
//  4. finished, inferred, when the run's last tool call is a submit or
//     finish action (Classify gives "submit") whose result, if any, did not
//     fail (RuleSubmit);
//  5. finished, inferred, when the task is recorded as resolved (RuleOutcome);
//     a failed outcome says nothing about how the run stopped;
//  6. stalled, inferred, when the run's last tool call is a second or later
//     occurrence of a stall (RunStalls.EndsInStall: the same command failed
//     with the same output before) (RuleStall);
//  7. otherwise the importer's inferred reason is kept (RuleImporter), or
//     unknown when it has none.
func EndReasonWith(run schema.Run, events []schema.Event, occ RunOccupancy, o *EndOptions) End {
	if o == nil {
		o = &EndOptions{}
	}
	if run.EndReasonSource == schema.SourceExplicit && run.EndReason != "" {
		why := "the log records it"
		if d := strings.TrimSpace(run.EndReasonDetail); d != "" {
			why = "the log says: " + endQuote(d)
		}
		return End{run.EndReason, schema.SourceExplicit, RuleLog, why}
	}
	lastTurn, anyOutput := int64(-1<<62), false
	for _, e := range events {
		if e.Kind.IsOutput() {
			lastTurn, anyOutput = max(lastTurn, e.Turn), true
		}
	}
	if !anyOutput {
		for _, e := range events {
			lastTurn = max(lastTurn, e.Turn)
		}
	}
	if c, ok := occ.Last(); ok {
		lastTurn = max(lastTurn, c.Turn)
	}
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i]
		if e.Turn < lastTurn {
			continue
		}
		switch {
		case e.Kind == schema.KindError && IsOverflowText(e.Text):
			return End{schema.EndContextOverflow, schema.SourceInferred, RuleErrorText,
				fmt.Sprintf("the last turn (%d) has an overflow error: %s", e.Turn, endQuote(e.Text))}
		case (e.Kind == schema.KindAssistant || e.Kind == schema.KindToolResult) && schema.IsOverflowMessage(e.Text):
			what := "assistant message"
			if e.Kind == schema.KindToolResult {
				what = "tool result"
			}
			return End{schema.EndContextOverflow, schema.SourceInferred, RuleMessageText,
				fmt.Sprintf("the last turn (%d) has an %s reporting an overflow: %s", e.Turn, what, endQuote(e.Text))}
		}
	}
	if c, ok := occ.Last(); ok && occ.Window > 0 && float64(c.Prompt) >= OverflowMargin*float64(occ.Window) {
		return End{schema.EndContextOverflow, schema.SourceInferred, RuleMargin,
			fmt.Sprintf("the last call (turn %d) sent %d %s tokens, %.1f%% of the %d-token window (≥ %.0f%%)",
				c.Turn, c.Prompt, c.Source, 100*c.Share, occ.Window, 100*OverflowMargin)}
	}
	last, res, hasCall := lastToolCall(events)
	classify := o.Classify
	if classify == nil {
		classify = DefaultClassify
	}
	if hasCall && classify(run.Harness, last.ToolName, last.Args) == "submit" && (res == nil || !failing(res)) {
		what := endQuote(last.ToolName)
		if t := strings.TrimSpace(last.Target); t != "" {
			what += " " + endQuote(t)
		}
		return End{schema.EndFinished, schema.SourceInferred, RuleSubmit,
			fmt.Sprintf("the last tool call (turn %d), %s, is a submit action", last.Turn, what)}
	}
	if run.Resolved != nil && *run.Resolved {
		return End{schema.EndFinished, schema.SourceInferred, RuleOutcome, "the task is recorded as resolved"}
	}
	if hasCall {
		st := o.Stalls
		if st == nil {
			s := Stalls(events)
			st = &s
		}
		if g, ok := st.EndsInStall(last.Seq); ok {
			return End{schema.EndStalled, schema.SourceInferred, RuleStall,
				fmt.Sprintf("the last tool call (turn %d), %s %s, failed with the same output for the %s time",
					last.Turn, endQuote(g.Tool), endQuote(g.Target), ordinal(slices.Index(g.Seqs, last.Seq)+1))}
		}
	}
	if run.EndReason == "" {
		return End{schema.EndUnknown, schema.SourceInferred, RuleImporter, "neither the log nor the prompt sizes say why the run ended"}
	}
	why := "kept the importer's inference"
	if d := strings.TrimSpace(run.EndReasonDetail); d != "" {
		why += ": " + endQuote(d)
	}
	return End{run.EndReason, schema.SourceInferred, RuleImporter, why}
}

// lastToolCall returns the run's tool call with the largest seq and its
// result (by call id, else tool key; nil when it has none).
func lastToolCall(events []schema.Event) (schema.Event, *schema.Event, bool) {
	i := -1
	for j, e := range events {
		if e.Kind == schema.KindToolCall && (i < 0 || cmp.Compare(e.Seq, events[i].Seq) >= 0) {
			i = j
		}
	}
	if i < 0 {
		return schema.Event{}, nil, false
	}
	c := events[i]
	for j := range events {
		r := &events[j]
		if r.Kind != schema.KindToolResult {
			continue
		}
		if (c.CallID != "" && r.CallID == c.CallID) || (c.CallID == "" && c.ToolKey != "" && r.ToolKey == c.ToolKey) {
			return c, r, true
		}
	}
	return c, nil, true
}

// ordinal is n as "2nd", "3rd", "4th", ….
func ordinal(n int) string {
	suf := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suf = "st"
	case n%10 == 2:
		suf = "nd"
	case n%10 == 3:
		suf = "rd"
	}
	return fmt.Sprintf("%d%s", n, suf)
}

// endQuote quotes at most 120 characters of s on one line.
func endQuote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
