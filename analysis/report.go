package analysis

import (
	"context"
	"sync"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/mining"
	"github.com/trajmine/trajmine/recommend"
	"github.com/trajmine/trajmine/redact"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
)

// FormatTotals aggregates runs per source format for the report.
type FormatTotals struct {
	Format          string `json:"source_format"`
	Runs            int64  `json:"runs"`
	Calls           int64  `json:"calls"`
	InputTokens     int64  `json:"input_tokens"`
	OutputTokens    int64  `json:"output_tokens"`
	CacheReadTokens int64  `json:"cache_read_tokens"`
	EstTokens       int64  `json:"est_tokens"`
	NoUsage         int64  `json:"runs_without_usage"`
	Overflow        int64  `json:"runs_context_overflow"`
	// CopiedCalls are usage rows of resumed sessions that copy another
	// run's (left out of the token sums above, counted in their origin)
	CopiedCalls int64 `json:"copied_calls"`
}

// TotalsByFormat sums runs per format, in first-seen order, each API
// response once: the runs' token totals already leave out the calls a
// resumed session copied from the run it continues (runs.copied_*, set by
// store.MarkCopies), so they are summed as they are:
//
//	SELECT source_format, count(*), sum(n_turns), sum(input_tokens), …, sum(copied_calls) FROM runs GROUP BY source_format
func TotalsByFormat(runs []schema.Run) []FormatTotals {
	var out []FormatTotals
	idx := map[string]int{}
	for _, r := range runs {
		i, ok := idx[r.SourceFormat]
		if !ok {
			out = append(out, FormatTotals{Format: r.SourceFormat})
			i = len(out) - 1
			idx[r.SourceFormat] = i
		}
		a := &out[i]
		a.Runs++
		a.Calls += r.NTurns
		a.InputTokens += r.InputTokens
		a.OutputTokens += r.OutputTokens
		a.CacheReadTokens += r.CacheReadTokens
		a.CopiedCalls += r.CopiedCalls
		a.EstTokens += r.EstTokens
		if r.EndReason == schema.EndContextOverflow {
			a.Overflow++
		}
		if r.UsageEstimated {
			a.NoUsage++
		}
	}
	return out
}

// Add adds b's counts to a (a total over formats; a's Format stays).
func (a *FormatTotals) Add(b FormatTotals) {
	a.Runs += b.Runs
	a.Calls += b.Calls
	a.InputTokens += b.InputTokens
	a.OutputTokens += b.OutputTokens
	a.CacheReadTokens += b.CacheReadTokens
	a.EstTokens += b.EstTokens
	a.NoUsage += b.NoUsage
	a.Overflow += b.Overflow
	a.CopiedCalls += b.CopiedCalls
}

// Report is what trajmine report computes.
type Report struct {
	Diagnosis  diagnose.Summary
	Simulation Simulation
	Recs       []recommend.Result
	Mined      Mined
	Sample     Sample
	// Redactor is ReportOptions.Redact: the sample's texts went through it,
	// and Page passes the page's other log text through it and states its
	// count. nil: nothing is redacted.
	Redactor *redact.Redactor
}

// ReportOptions are what trajmine report's analyses depend on.
type ReportOptions struct {
	Scan      store.ScanOptions // the runs reported on
	SampleTop int               // runs drawn call by call: the top ones by peak share …
	SampleN   int               // … and this many more by run-id hash
	Policies  []string          // replayed besides the catalog's defaults (e.g. tracer(model=FILE))
	Window    simulate.Window   // every run's context window, for diagnose, simulate and recommend (the zero value: each run's own)
	// Redact, when set, redacts the log text of the sample's drill-down
	// (tool-output previews and targets) and, through Page, the page's
	// other log-derived text; nil keeps it as logged.
	Redact *redact.Redactor
	// Progress, when set, is called on AnalyseReport's goroutine as each
	// stage advances: StagePass with the runs added so far and Runs (0
	// when unknown), StageSample with the sampled runs replayed and the
	// sample's size, StageFinish with 0 then 1 of 1 around the tables'
	// write and the aggregates. done never decreases within a stage.
	Progress func(s Stage, done, total int)
	// Runs is how many runs Scan selects (Progress's total for StagePass).
	Runs int
}

// RecommendOptions are the report's recommendation's: trajmine
// recommend's with no flag but --window (recommend's named defaults: the
// built-in grid, held out every recommend.DefaultHoldoutEvery runs, at most
// recommend.DefaultMaxReinv re-invocations per 100 calls), at o.Window.
func (o *ReportOptions) RecommendOptions() *RecommendOptions {
	return &RecommendOptions{HoldoutEvery: recommend.DefaultHoldoutEvery, MaxReinv: recommend.DefaultMaxReinv, Window: o.Window}
}

// reportPolicies are the policies the report replays: keep-all, the
// catalog's defaults, then o.Policies.
func reportPolicies(o *ReportOptions) ([]simulate.Policy, error) {
	var pols []simulate.Policy
	for _, spec := range append(simulate.DefaultSpecs(), o.Policies...) {
		p, err := simulate.Parse(spec)
		if err != nil {
			return nil, err
		}
		pols = append(pols, p)
	}
	return WithKeepAll(pols)
}

// Stage is one stage of AnalyseReport, as Progress reports it.
type Stage string

// The stages of AnalyseReport, in order.
const (
	StagePass   Stage = "analyse" // the shared pass: diagnose, replay, recommend, profiles, mining per run
	StageSample Stage = "sample"  // the sampled runs replayed again for their drill-down
	StageFinish Stage = "finish"  // the tables written, the aggregates (CIs, recommendations, mined models)
)

// progress is a Consumer that counts the runs the pass has added (it is
// last in Pass's list, so a run counts once every analysis has it).
type progress struct {
	done, total int
	fn          func(Stage, int, int)
}

func (p *progress) Worker() (func(*RunWork) struct{}, error) {
	return func(*RunWork) struct{} { return struct{}{} }, nil
}

func (p *progress) Add(struct{}) error {
	p.done++
	p.fn(StagePass, p.done, p.total)
	return nil
}

func (o *ReportOptions) progress(s Stage, done, total int) {
	if o.Progress != nil {
		o.Progress(s, done, total)
	}
}

// AnalyseReport runs trajmine report's analyses in one shared pass over the
// store (Pass): diagnose (trajmine diagnose's defaults, --by model),
// every catalog policy at each run's own window (trajmine simulate), trajmine
// recommend's defaults, the behaviour profiles and trajmine mine's defaults;
// then it draws the sample and replays the sampled runs again for their
// drill-down (sample). sim_runs (every run), sim_calls (the sampled
// runs: what the page draws call by call; trajmine simulate writes every
// run's), diag_runs, diag_calls and diag_rent are replaced in one
// transaction. Each figure is the one the stand-alone command computes:
// they run the same analyses, one at a time.
func AnalyseReport(ctx context.Context, st *store.Store, o *ReportOptions) (*Report, error) {
	res := &Report{Redactor: o.Redact}
	env, err := NewEnv(ctx, st)
	if err != nil {
		return nil, err
	}
	// no per-call rows kept (the sample's come from sample); groups by
	// model family, as trajmine simulate --by model
	// every replay's prompts per call are kept for the page's timeline
	simO := &SimulateOptions{Windows: []simulate.Window{o.Window}, Shards: 1, By: "model", Prompts: true}
	pols, err := reportPolicies(o)
	if err != nil {
		return nil, err
	}
	sa, err := NewSimulate(simO, pols)
	if err != nil {
		return nil, err
	}
	da, err := NewDiagnose(&DiagnoseOptions{By: "model", Window: o.Window})
	if err != nil {
		return nil, err
	}
	if da.conts, err = st.Continuations(ctx); err != nil { // resumed sessions counted once, as in diagnose
		return nil, err
	}
	ra, err := NewRecommend(o.RecommendOptions())
	if err != nil {
		return nil, err
	}
	ma, err := NewMine(&MineOptions{Mode: mining.ModeClass}, env) // trajmine mine's defaults
	if err != nil {
		return nil, err
	}
	ba := NewBehaviour(env, nil) // every run, as recommend and mine (no filter) profile them
	// after the pass, the aggregates (simulate's bootstrap CIs, recommend's
	// choice, the mined models) are computed on one goroutine while this one
	// draws the sample and writes the tables: they read the pass's results
	// and write disjoint fields of res
	var aggErr error
	var agg sync.WaitGroup
	calls := func(add func(vals ...any) error) error {
		as := []Analysis{Of(sa), Of(da), Of(ra), Of(ba), Of(ma)}
		if o.Progress != nil {
			o.Progress(StagePass, 0, o.Runs)
			as = append(as, Of(&progress{total: o.Runs, fn: o.Progress}))
		}
		if err := Pass(ctx, st, o.Scan, env, as...); err != nil {
			return err
		}
		sa.Flatten()
		agg.Add(1)
		go func() {
			defer agg.Done()
			res.Simulation = sa.Finish()
			groups := ba.Groups()
			if res.Recs, aggErr = ra.Finish(groups); aggErr != nil {
				return
			}
			res.Mined, aggErr = ma.Finish(ctx, st, groups)
		}()
		res.Diagnosis = da.Finish()
		// the sample reads only the rows and the policies, not the aggregates
		rows := Simulation{Policies: sa.out.Policies, Results: sa.out.Results}
		res.Sample, err = sample(ctx, st, o, res.Diagnosis, rows, add)
		return err
	}
	tables := append([]store.Derived{{Table: schema.SimCalls, Rows: calls}, {Table: schema.SimRuns, Rows: sa.RunsRows}}, DiagnosisTables(&res.Diagnosis)...)
	err = st.WriteDerived(ctx, tables...)
	o.progress(StageFinish, 0, 1)
	agg.Wait()
	o.progress(StageFinish, 1, 1)
	if err != nil {
		return nil, err
	}
	if aggErr != nil {
		return nil, aggErr
	}
	return res, nil
}
