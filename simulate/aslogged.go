package simulate

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/trajmine/trajmine/internal/stats"
	"github.com/trajmine/trajmine/internal/textfmt"
)

// The as-logged baseline: the run replayed under the context management its
// log shows, the reference every comparison is made against.
//
// At each call t, in this order:
//
//  1. every logged compaction of call t (Trace.Compactions) replaces the
//     admitted items it summarized (all but the system items) and the
//     previous summary by a summary of the logged size (Compaction.Summary;
//     when the log states none, the compact-* summary-size model with its
//     defaults: clamp(300 + 0.015 × summarized, 200, 20,000)), and counts one
//     summarizer call (input: the prompt before it; output: the summary);
//  2. the logged visibility ops of call t (Trace.Ops: manage_context
//     disables and enables, masking and truncation of one output) apply as
//     the dtoc policy applies them (placeholder 40 tokens), never to an item
//     already summarized; a masking or truncation op that states its
//     tokens after leaves a stand-in of that size, and none when the
//     recorded output is no larger (it was cut when produced).
//
// Item tokens, the hidden prefix and per-call outputs are the trace's, so
// the baseline is calibrated to the logged input exactly as keep-all is. It
// predicts no re-invocation: whatever the agent re-read is in the log.

// Summary-size model of the as-logged replay when a log states no summary
// size: the compact-* policies' defaults (see catalog.go).
const (
	asLoggedSummaryA   = 300
	asLoggedSummaryB   = 0.015
	asLoggedSummaryMin = 200
	asLoggedSummaryCap = 20_000
	asLoggedHidden     = 40 // placeholder tokens of an output the log hid
	// Claude Code's re-attached files (compact-claude-code's defaults)
	asLoggedFileTokens  = 5_000
	asLoggedFilesTokens = 50_000
)

// AsLoggedName is the catalog name of the as-logged baseline.
const AsLoggedName = "as-logged"

type asLogged struct {
	ops  dtoc
	next int // next compaction
}

func newAsLogged(*Args) (rules, error) {
	return &asLogged{ops: dtoc{mode: dtocLogged, placeholder: asLoggedHidden}}, nil
}

func (p *asLogged) Reset(s *Sim) { p.next = 0; p.ops.Reset(s) }

func (p *asLogged) Before(t int, s *Sim) {
	cs := s.Tr.Compactions
	for ; p.next < len(cs) && int(cs[p.next].Call) <= t; p.next++ {
		c := &cs[p.next]
		in := s.Prompt()
		summarized := s.SummaryTokens()
		first := int32(math.MaxInt32)
		// Claude Code re-attaches the newest read files (≤ 5,000 tokens each, 50,000 in all)
		files := map[int32]bool{}
		var used int64
		for i := min(c.Upto, int32(len(s.Tr.Items))) - 1; i >= 0 && len(files) < c.Files; i-- {
			it := &s.Tr.Items[i]
			if !s.Admitted(i) || it.Kind != ItemToolResult || it.Class != ClassRead || s.Mode(i) == Summarized {
				continue
			}
			tok := min(int64(it.Tokens), asLoggedFileTokens)
			if used+tok > asLoggedFilesTokens {
				break
			}
			used += tok
			files[i] = true
			if int64(it.Tokens) > asLoggedFileTokens && it.Tokens > 0 {
				keep := int32(int64(it.Chars) * asLoggedFileTokens / int64(it.Tokens))
				s.Truncate(i, keep, keep, 0, 0)
				s.MarkLogged(i, true)
			}
		}
		for i := int32(0); i < c.Upto && int(i) < len(s.Tr.Items); i++ {
			if !s.Admitted(i) || s.Tr.Items[i].Kind == ItemSystem || s.Mode(i) == Summarized || files[i] {
				continue
			}
			summarized += int64(s.Tokens(i))
			first = min(first, i)
			s.Summarize(i)
			s.MarkLogged(i, true) // what the agent re-read after it is in the log
		}
		sum := c.Summary
		if sum < 0 {
			sum = int64(math.Round(asLoggedSummaryA + asLoggedSummaryB*float64(summarized)))
			sum = min(max(sum, asLoggedSummaryMin), asLoggedSummaryCap)
		}
		if first == math.MaxInt32 {
			first = 0
		}
		s.SummarizerCall(in, sum)
		s.SetSummary(sum, first)
	}
	// the logged visibility ops, as dtoc replays them, skipping summarized items
	factor := s.Tr.Tokens.Factor
	if factor <= 0 {
		factor = 1
	}
	ops := s.Tr.Ops
	for ; p.ops.next < len(ops) && int(ops[p.ops.next].From) <= t; p.ops.next++ {
		op := ops[p.ops.next]
		if !s.Admitted(op.Item) || s.Mode(op.Item) == Summarized {
			continue
		}
		switch {
		case op.Visible:
			s.Restore(op.Item)
		case op.After > 0 && float64(s.Tr.Items[op.Item].Tokens) <= math.Ceil(float64(op.After)*factor):
			// the recorded text is already what the op left (an output
			// truncated when it was produced)
		case op.After > 0:
			after := int32(math.Ceil(float64(op.After) * factor))
			s.SetPlaceholder(op.Item, after, op.After*4)
		default:
			s.SetPlaceholder(op.Item, asLoggedHidden, asLoggedHidden*4)
		}
		s.MarkLogged(op.Item, !op.Visible)
	}
}

// asLoggedCalls returns the as-logged replay's per-call results (window
// ignored), computed once per trace (NewTrace and Finalize compute it, so a
// trace can be replayed from several goroutines). A trace with no
// compaction and no logged op replays as keep-all (the same replay, so its
// cached prefixes are the as-logged policy's own).
func (tr *Trace) asLoggedCalls() []CallResult {
	if len(tr.asLogged) == tr.NCalls && tr.NCalls > 0 {
		return tr.asLogged
	}
	var rp Replayer
	rp.noBase = true
	calls := make([]CallResult, 0, tr.NCalls)
	p, _ := newAsLogged(nil)
	rp.Replay(tr, named{rules: p, name: AsLoggedName, short: AsLoggedName}, Options{Window: Unbounded, Calls: &calls})
	tr.asLogged = calls
	return calls
}

// asLoggedCallsWith is asLoggedCalls under cache rule m instead of the
// trace's own (not kept).
func (tr *Trace) asLoggedCallsWith(m CacheModel) []CallResult {
	if m == tr.Cache {
		return tr.asLoggedCalls()
	}
	var rp Replayer
	rp.noBase = true
	calls := make([]CallResult, 0, tr.NCalls)
	p, _ := newAsLogged(nil)
	rp.Replay(tr, named{rules: p, name: AsLoggedName, short: AsLoggedName}, Options{Window: Unbounded, Calls: &calls, Cache: &m})
	return calls
}

// uncached is the call's prompt tokens neither read from nor written to
// the cache.
func (c *CallResult) uncached() int64 { return c.PromptTokens - c.CachedTokens - c.CacheWriteTokens }

// AsLogged returns the as-logged prompt of every call (window ignored).
func AsLogged(tr *Trace) []int64 {
	cs := tr.asLoggedCalls()
	out := make([]int64, len(cs))
	for i, c := range cs {
		out[i] = c.PromptTokens
	}
	return out
}

// LoggedErrors are one run's per-call relative errors against the logged
// input, (replayed prompt − logged) / logged, at every call with logged
// input, for the as-logged baseline and for keep-all; the last After of
// them are the calls at or after the run's first logged compaction.
// Before it the token model was fitted on these calls (in sample); after
// it they check the compaction replay out of sample.
type LoggedErrors struct {
	AsLogged, KeepAll []float64
	After             int
}

// RunLoggedErrors computes tr's LoggedErrors.
func RunLoggedErrors(tr *Trace) LoggedErrors {
	var e LoggedErrors
	cs := tr.asLoggedCalls()
	ka := tr.keepAllPrompts()
	for t, c := range cs {
		if t >= len(tr.Logged) || tr.Logged[t] <= 0 {
			continue
		}
		y := float64(tr.Logged[t])
		e.AsLogged = append(e.AsLogged, (float64(c.PromptTokens)-y)/y)
		e.KeepAll = append(e.KeepAll, (float64(ka[t])-y)/y)
		if t >= tr.FirstCompaction {
			e.After++
		}
	}
	return e
}

// LoggedAccuracyRow is the as-logged baseline's accuracy for one source
// format × model family, beside keep-all's on the same calls.
type LoggedAccuracyRow struct {
	Format       string  `json:"source_format"`
	Family       string  `json:"model_family"`
	Runs         int     `json:"runs"`
	Calls        int     `json:"calls"`
	MedianAbs    float64 `json:"median_abs_error"` // as-logged, every logged call
	MedianSigned float64 `json:"median_signed_error"`
	P90Abs       float64 `json:"p90_abs_error"`
	// the calls at or after a run's first logged compaction, of the
	// CompactedRuns that have any
	CompactedRuns int `json:"compacted_runs"`
	AfterCalls    int `json:"after_compaction_calls"`
	// nil when AfterCalls is 0
	MedianAbsAfter        *float64 `json:"median_abs_error_after_compaction"`
	KeepAllMedianAbsAfter *float64 `json:"keep_all_median_abs_error_after_compaction"`
	KeepAllMedianAfter    *float64 `json:"keep_all_median_signed_error_after_compaction"`
	// keep-all over every logged call, in sample where the fit was made
	KeepAllMedianAbs float64 `json:"keep_all_median_abs_error"`
}

// LoggedAccuracy accumulates LoggedErrors per format × family.
type LoggedAccuracy struct {
	groups map[[2]string]*loggedAcc
}

type loggedAcc struct {
	runs, compacted int
	al, ka          []float64
	alAfter, kaAft  []float64
}

// Add records one run's errors.
func (a *LoggedAccuracy) Add(format, family string, e LoggedErrors) {
	if len(e.AsLogged) == 0 {
		return
	}
	if a.groups == nil {
		a.groups = map[[2]string]*loggedAcc{}
	}
	k := [2]string{format, family}
	g := a.groups[k]
	if g == nil {
		g = &loggedAcc{}
		a.groups[k] = g
	}
	g.add(e)
}

func (g *loggedAcc) add(e LoggedErrors) {
	g.runs++
	g.al = append(g.al, e.AsLogged...)
	g.ka = append(g.ka, e.KeepAll...)
	if e.After > 0 {
		g.compacted++
		n := len(e.AsLogged)
		g.alAfter = append(g.alAfter, e.AsLogged[n-e.After:]...)
		g.kaAft = append(g.kaAft, e.KeepAll[n-e.After:]...)
	}
}

// Rows returns the table ordered by format and family, plus an "all" row
// (Format "*") when there is more than one group.
func (a *LoggedAccuracy) Rows() []LoggedAccuracyRow {
	var out []LoggedAccuracyRow
	var all loggedAcc
	for k, g := range a.groups {
		out = append(out, g.row(k[0], k[1]))
		all.runs += g.runs
		all.compacted += g.compacted
		all.al = append(all.al, g.al...)
		all.ka = append(all.ka, g.ka...)
		all.alAfter = append(all.alAfter, g.alAfter...)
		all.kaAft = append(all.kaAft, g.kaAft...)
	}
	slices.SortFunc(out, func(x, y LoggedAccuracyRow) int {
		return cmp.Or(cmp.Compare(x.Format, y.Format), cmp.Compare(x.Family, y.Family))
	})
	if len(out) > 1 {
		// the pooled errors in a fixed order, so the medians do not depend on map order
		slices.Sort(all.al)
		slices.Sort(all.ka)
		slices.Sort(all.alAfter)
		slices.Sort(all.kaAft)
		out = append(out, all.row("*", "*"))
	}
	return out
}

func absAll(e []float64) []float64 {
	out := make([]float64, len(e))
	for i, v := range e {
		out[i] = math.Abs(v)
	}
	slices.Sort(out)
	return out
}

func (g *loggedAcc) row(format, family string) LoggedAccuracyRow {
	abs := absAll(g.al)
	p90 := abs[min(len(abs)-1, int(math.Ceil(0.9*float64(len(abs))))-1)]
	r := LoggedAccuracyRow{Format: format, Family: family, Runs: g.runs, Calls: len(g.al),
		MedianAbs: stats.Median(abs), MedianSigned: stats.Median(g.al), P90Abs: p90,
		CompactedRuns: g.compacted, AfterCalls: len(g.alAfter), KeepAllMedianAbs: stats.Median(absAll(g.ka))}
	if len(g.alAfter) > 0 {
		r.MedianAbsAfter = finite(stats.Median(absAll(g.alAfter)))
		r.KeepAllMedianAbsAfter = finite(stats.Median(absAll(g.kaAft)))
		r.KeepAllMedianAfter = finite(stats.Median(g.kaAft))
	}
	return r
}

// LoggedAccuracyText says in one line how the as-logged baseline tracks the
// logged input (the last row of rows), beside keep-all after compactions.
func LoggedAccuracyText(rows []LoggedAccuracyRow) string {
	if len(rows) == 0 {
		return "as-logged accuracy: no run has logged per-call input tokens to check against"
	}
	a := rows[len(rows)-1]
	s := fmt.Sprintf("as-logged accuracy (against logged input, every logged call): median |error| %.1f%% (signed %+.1f%%, p90 %.1f%%) over %s in %s",
		100*a.MedianAbs, 100*a.MedianSigned, 100*a.P90Abs, textfmt.CountOf(a.Calls, "call"), textfmt.CountOf(a.Runs, "run"))
	if a.MedianAbsAfter != nil {
		s += fmt.Sprintf("; after a logged compaction %.1f%% over %s in %s, where keep-all is off by %.1f%% (median %.2f× the logged input)",
			100**a.MedianAbsAfter, textfmt.CountOf(a.AfterCalls, "call"), textfmt.CountOf(a.CompactedRuns, "run"), 100**a.KeepAllMedianAbsAfter, 1+*a.KeepAllMedianAfter)
	}
	return s
}
