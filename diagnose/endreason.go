package diagnose

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/trajmine/trajmine/schema"
)

// OverflowMargin is the share of the window at or above which a run's last
// request counts as having filled it: a last prompt ≥ 95 % of the window
// leaves under 5 % (10K tokens of a 200K window) for the reply and the next
// tool result, less than agent harnesses reserve for output, so the next
// request could not have fit. It only applies to runs whose log gives no
// explicit end reason.
const OverflowMargin = 0.95

// CutShare is the share of the window at or above which a last reply that
// stops mid-sentence is read as cut rather than as a final answer
// (RuleCutReply): with a prompt at 80 % of the window, the reply and the
// requests after it were near the end of the room left.
const CutShare = 0.80

// End rules: which rule decided a run's end reason.
const (
	RuleLog         = "log"          // the log states the reason
	RuleSubmit      = "submit"       // the last tool call is a submit or finish action that did not fail
	RuleOutcome     = "outcome"      // the task is recorded as resolved
	RuleErrorText   = "error-text"   // an error at the end of the run names an overflow
	RuleMessageText = "message-text" // an assistant message or tool result of the last call holds a provider's overflow error
	RuleSelfReport  = "self-report"  // the last assistant message says the window is full
	RuleMargin      = "margin"       // the last prompt is within OverflowMargin of the window
	RuleCutReply    = "cut-reply"    // the run ends on a reply cut mid-sentence near a full window (not finished)
	RuleFinalAnswer = "final-answer" // the run ends on the model's reply without a tool call
	RuleStall       = "stall"        // the last tool call repeats a failing command with the same output
	RuleImporter    = "importer"     // the importer's own inference is kept
)

// EndRules lists the end rules in the order EndReasonWith tries them.
var EndRules = []string{RuleLog, RuleSubmit, RuleOutcome, RuleErrorText, RuleMessageText, RuleSelfReport, RuleMargin, RuleCutReply, RuleFinalAnswer, RuleStall, RuleImporter}

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
	// means FallbackClassify.
	Classify ClassifyFunc
	// Stalls are the run's Stalls (for RuleStall); nil computes them.
	Stalls *RunStalls
}

// EndReason is EndReasonWith with default options.
func EndReason(run schema.Run, events []schema.Event, occ RunOccupancy) End {
	return EndReasonWith(run, events, occ, nil)
}

// EndReasonWith decides why run ended, first rule that applies (EndRules).
// occ's calls are the run's model calls (Occupancy: what follows the last
// call is not one). Every reason but the log's is inferred. What the run is
// known to have done (submitted, solved the task) outranks what its text
// suggests, and overflow text counts only when it is shaped as a provider's
// error.
//
//  1. an explicit reason from the log stands (RuleLog);
//  2. finished when the run's last tool call is a submit or finish action
//     (Classify gives "submit", or pydantic-ai's output tool final_result)
//     whose result, if any, did not fail, and no user message follows it
//     (RuleSubmit);
//  3. finished when the task is recorded as resolved (RuleOutcome); a failed
//     outcome says nothing about how the run stopped;
//  4. context_overflow when an error event of the last turn holds an
//     overflow phrase (IsOverflowError; RuleErrorText);
//  5. context_overflow when an assistant message or tool result of the last
//     turn holds a provider's overflow error (IsProviderOverflow: the line
//     opens as an API error, an SDK's error class or a JSON error body, or
//     with the phrase itself; RuleMessageText);
//  6. context_overflow when an assistant message of the last turn says the
//     window is full (IsOverflowReport: "I've hit the context window
//     limit"; RuleSelfReport);
//  7. context_overflow when the last call's prompt is ≥ OverflowMargin of a
//     known window (RuleMargin);
//  8. unknown when the run ends on the model's reply (as in rule 9) but the
//     reply is cut: it stops inside an open code block, or mid-sentence
//     (its last line is prose ending in a letter, digit, comma or dash) with
//     the last call's prompt ≥ CutShare of a known window (RuleCutReply); the
//     importer's finished is not kept;
//  9. finished when the run ends on the model's reply: the last model
//     output is assistant text, from the last call, in a call without tool
//     calls, and no user message, tool result or error follows it (a
//     τ-bench user's closing ###STOP### may; RuleFinalAnswer);
//  10. stalled when the run's last tool call is a second or later
//     occurrence of a stall (RunStalls.EndsInStall: the same command failed
//     with the same output before) (RuleStall);
//  11. otherwise the importer's inferred reason is kept (RuleImporter), or
//     unknown when it has none (or a bare unknown, without a detail).
//
// The last turn of rules 4–6 is the turn of the last model output or of the
// last call, whichever is later; events from that turn on count (the
// error after the last call included), so overflow errors the run
// recovered from do not.
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
	last, res, hasCall := lastToolCall(events)
	classify := o.Classify
	if classify == nil {
		classify = FallbackClassify
	}
	if hasCall && isSubmit(classify, run.Harness, last) && (res == nil || !failing(res)) && !userAfter(events, last.Seq) {
		what := endQuote(last.ToolName)
		if t := strings.TrimSpace(last.Target); t != "" {
			what += " " + endQuote(t)
		}
		return End{schema.EndFinished, schema.SourceInferred, RuleSubmit,
			fmt.Sprintf("the last tool call (call %d), %s, is a submit action", last.Turn, what)}
	}
	if run.Resolved != nil && *run.Resolved {
		return End{schema.EndFinished, schema.SourceInferred, RuleOutcome, "the task is recorded as resolved"}
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
		lastTurn = max(lastTurn, c.Call)
	}
	if e, ok := lastEvent(events, lastTurn, func(e *schema.Event) bool {
		return e.Kind == schema.KindError && IsOverflowError(e.Text)
	}); ok {
		return End{schema.EndContextOverflow, schema.SourceInferred, RuleErrorText,
			fmt.Sprintf("the last call (%d) has an overflow error: %s", e.Turn, endQuote(e.Text))}
	}
	if e, ok := lastEvent(events, lastTurn, func(e *schema.Event) bool {
		return (e.Kind == schema.KindAssistant || e.Kind == schema.KindToolResult) && IsProviderOverflow(e.Text)
	}); ok {
		what := "an assistant message"
		if e.Kind == schema.KindToolResult {
			what = "a tool result"
		}
		return End{schema.EndContextOverflow, schema.SourceInferred, RuleMessageText,
			fmt.Sprintf("the last call (%d) has %s holding a provider's overflow error: %s", e.Turn, what, endQuote(e.Text))}
	}
	if e, ok := lastEvent(events, lastTurn, func(e *schema.Event) bool {
		return e.Kind == schema.KindAssistant && IsOverflowReport(e.Text)
	}); ok {
		return End{schema.EndContextOverflow, schema.SourceInferred, RuleSelfReport,
			fmt.Sprintf("the last assistant message (call %d) says the window is full: %s", e.Turn, endQuote(overflowReportQuote(e.Text)))}
	}
	lastCall, hasLastCall := occ.Last()
	if hasLastCall && occ.Window > 0 && float64(lastCall.Prompt) >= OverflowMargin*float64(occ.Window) {
		return End{schema.EndContextOverflow, schema.SourceInferred, RuleMargin,
			fmt.Sprintf("the last call (%d) sent %d %s tokens, %.1f%% of the %d-token window (≥ %.0f%%)",
				lastCall.Call, lastCall.Prompt, lastCall.Source, 100*lastCall.Share, occ.Window, 100*OverflowMargin)}
	}
	if reply, ok := finalReply(events, occ); ok {
		switch {
		case openFence(reply.Text):
			return End{schema.EndUnknown, schema.SourceInferred, RuleCutReply,
				fmt.Sprintf("the last reply (call %d) stops inside a code block: %s; it is cut, not a final answer", reply.Turn, endQuote(replyTail(reply.Text)))}
		case midSentence(reply.Text) && hasLastCall && occ.Window > 0 && float64(lastCall.Prompt) >= CutShare*float64(occ.Window):
			return End{schema.EndUnknown, schema.SourceInferred, RuleCutReply,
				fmt.Sprintf("the last reply (call %d) stops mid-sentence (%s) with the last prompt at %.1f%% of the %d-token window (≥ %.0f%%); it is cut, not a final answer",
					reply.Turn, endQuote(replyTail(reply.Text)), 100*lastCall.Share, occ.Window, 100*CutShare)}
		}
		return End{schema.EndFinished, schema.SourceInferred, RuleFinalAnswer,
			fmt.Sprintf("the run ends on the model's reply without a tool call (call %d): %s", reply.Turn, endQuote(reply.Text))}
	}
	if hasCall {
		st := o.Stalls
		if st == nil {
			s := Stalls(events)
			st = &s
		}
		if g, ok := st.EndsInStall(last.Seq); ok {
			return End{schema.EndStalled, schema.SourceInferred, RuleStall,
				fmt.Sprintf("the last tool call (call %d), %s %s, failed with the same output for the %s time",
					last.Turn, endQuote(g.Tool), endQuote(g.Target), ordinal(slices.Index(g.Seqs, last.Seq)+1))}
		}
	}
	if run.EndReason == "" || run.EndReason == schema.EndUnknown && strings.TrimSpace(run.EndReasonDetail) == "" {
		return End{schema.EndUnknown, schema.SourceInferred, RuleImporter, "neither the log nor the prompt sizes say why the run ended"}
	}
	why := "kept the importer's inference"
	if d := strings.TrimSpace(run.EndReasonDetail); d != "" {
		why += ": " + endQuote(d)
	}
	return End{run.EndReason, schema.SourceInferred, RuleImporter, why}
}

// isSubmit reports whether a tool call hands in the result: classify says
// "submit", or it is pydantic-ai's output tool (final_result, or
// final_result_<Type> with several output types), whose call is the run's
// result.
func isSubmit(classify ClassifyFunc, harness string, c schema.Event) bool {
	n := strings.ToLower(c.ToolName)
	return n == "final_result" || strings.HasPrefix(n, "final_result_") || classify(harness, c.ToolName, c.Args) == "submit"
}

// isUserMessage reports whether e is a message of the user (kind user, role
// user): a new request. Text a harness adds as user input under another role
// (pi's bashExecution, a command the user ran) is not.
func isUserMessage(e *schema.Event) bool {
	return e.Kind == schema.KindUser && strings.EqualFold(e.Role, "user")
}

// userAfter reports whether a user message follows seq: the user asked for
// more after it.
func userAfter(events []schema.Event, seq int64) bool {
	for i := range events {
		if events[i].Seq > seq && isUserMessage(&events[i]) {
			return true
		}
	}
	return false
}

// lastEvent is the event with the largest seq at turn ≥ from for which ok holds.
func lastEvent(events []schema.Event, from int64, ok func(*schema.Event) bool) (schema.Event, bool) {
	i := -1
	for j := range events {
		e := &events[j]
		if e.Turn >= from && (i < 0 || e.Seq > events[i].Seq) && ok(e) {
			i = j
		}
	}
	if i < 0 {
		return schema.Event{}, false
	}
	return events[i], true
}

// tauStop is what τ-bench's simulated user says to end the conversation.
const tauStop = "###STOP###"

// finalReply is the run's closing reply to the user, when it has one: its
// last model output (by seq) is an assistant message with text, of the run's
// last call (occ) or later, the call made no tool call, and no user message
// (but τ-bench's ###STOP###), tool result or error follows it.
func finalReply(events []schema.Event, occ RunOccupancy) (schema.Event, bool) {
	i := -1
	for j := range events {
		if events[j].Kind.IsOutput() && (i < 0 || events[j].Seq > events[i].Seq) {
			i = j
		}
	}
	if i < 0 {
		return schema.Event{}, false
	}
	r := events[i]
	if r.Kind != schema.KindAssistant || strings.TrimSpace(r.Text) == "" {
		return schema.Event{}, false
	}
	if c, ok := occ.Last(); ok && c.Call > r.Turn {
		return schema.Event{}, false
	}
	for j := range events {
		e := &events[j]
		switch {
		case e.Turn == r.Turn && e.Kind == schema.KindToolCall:
			return schema.Event{}, false
		case e.Seq <= r.Seq:
		case isUserMessage(e) && strings.TrimSpace(e.Text) != tauStop,
			e.Kind == schema.KindToolResult, e.Kind == schema.KindError:
			return schema.Event{}, false
		}
	}
	return r, true
}

// openFence reports whether s opens a ``` code block it does not close.
func openFence(s string) bool {
	n := 0
	for line := range strings.Lines(s) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			n++
		}
	}
	return n%2 == 1
}

// midSentence reports whether s stops mid-sentence: its last non-blank
// line is prose (not a list item, heading, table row, quote or code fence)
// whose last character is a letter, a digit, a comma or a dash.
func midSentence(s string) bool {
	s = strings.TrimSpace(s)
	line := s[strings.LastIndexByte(s, '\n')+1:]
	line = strings.TrimSpace(line)
	if line == "" || listLine.MatchString(line) {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(line)
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(",-–—", r)
}

// listLine matches a line that is not prose: a list item, heading, table
// row, quote or code fence.
var listLine = regexp.MustCompile("^(?:[-*+•>#|]|\\d+[.)]\\s|```)")

// replyTail is the last sentence of s (after the last ". ", "! ", "? " or
// line break) on one line, at most its last 80 characters from a word's
// start, after "…" when something precedes it.
func replyTail(s string) string {
	s = strings.TrimSpace(s)
	t := s
	if k := sentenceStart(s); k > 0 {
		t = s[k:]
	}
	t = strings.Join(strings.Fields(t), " ")
	if r := []rune(t); len(r) > 80 {
		t = string(r[len(r)-80:])
		if i := strings.IndexByte(t, ' '); i >= 0 {
			t = t[i+1:]
		}
	}
	if t != strings.Join(strings.Fields(s), " ") {
		t = "…" + t
	}
	return t
}

// sentenceStart is the index in s where its last sentence starts: after
// the last '.', '!' or '?' followed by white space, or the last line break
// (0 when there is none).
func sentenceStart(s string) int {
	for k := len(s) - 2; k >= 0; k-- {
		switch {
		case s[k] == '\n':
			return k + 1
		case strings.IndexByte(".!?", s[k]) >= 0 && (s[k+1] == ' ' || s[k+1] == '\t' || s[k+1] == '\n'):
			return k + 2
		}
	}
	return 0
}

// sentenceEnd is the index in s just after the sentence that holds s[from]
// ends: a '.', '!' or '?' followed by white space or the end, or a line
// break (len(s) when there is none).
func sentenceEnd(s string, from int) int {
	for k := from; k < len(s); k++ {
		switch {
		case s[k] == '\n':
			return k
		case strings.IndexByte(".!?", s[k]) >= 0 && (k+1 == len(s) || s[k+1] == ' ' || s[k+1] == '\t' || s[k+1] == '\n'):
			return k + 1
		}
	}
	return len(s)
}

// overflowReportQuote is the sentence of s that reports the overflow.
func overflowReportQuote(s string) string {
	l := strings.ReplaceAll(strings.ToLower(s), "’", "'")
	loc := overflowReport.FindStringIndex(l)
	if loc == nil || len(l) != len(s) {
		return s
	}
	return strings.TrimSpace(s[sentenceStart(s[:loc[0]]):sentenceEnd(s, loc[1])])
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
