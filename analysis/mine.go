package analysis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/trajmine/trajmine/actions"
	"github.com/trajmine/trajmine/behavior"
	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/eventlog"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/mining"
	"github.com/trajmine/trajmine/redact"
	"github.com/trajmine/trajmine/schema"
	"golang.org/x/sync/errgroup"
)

// MineOptions are what mining the store depends on.
type MineOptions struct {
	Mode      mining.Mode    // activity names: action class, tool, tool and target kind
	Outcome   mining.Outcome // the runs the maps are drawn from
	By        string         // "model": also mine per model family
	Compare   []string       // two groups to compare (MineGroup), or none
	Models    []string       // keep runs of these model families; nil all
	Harnesses []string       // keep runs of these harnesses; nil all
	From, To  time.Time      // keep runs started in [From, To); zero: unbounded
	ModelFile string         // conformance against this model instead of the heuristics net's
	Export    string         // xes:FILE, events-xes:FILE, ocel:FILE or dot:FILE; "" none
	ExportOut io.Writer      // where FILE "-" goes
	// Redact redacts the log text --export writes (redact.Records; the
	// mined log's run ids and activities, the DFG's activities); nil
	// writes it as stored.
	Redact *redact.Redactor
	// NoProfiles skips the behaviour profiles, which are read from
	// run_profiles, or, for runs without a stored one, from the events of
	// the runs with context ops or manage_context calls (mineBehaviour);
	// the event log is read through store.EventStream either way.
	NoProfiles bool
}

// MineGroup turns a --compare group into a case predicate.
func MineGroup(spec string) (func(*mining.Case, bool) bool, error) {
	k, v, _ := strings.Cut(spec, "=")
	switch {
	case spec == "resolved":
		return func(c *mining.Case, _ bool) bool { return c.Resolved != nil && *c.Resolved }, nil
	case spec == "failed":
		return func(c *mining.Case, _ bool) bool { return c.Resolved != nil && !*c.Resolved }, nil
	case spec == "dtoc":
		return func(_ *mining.Case, dtoc bool) bool { return dtoc }, nil
	case spec == "no-dtoc":
		return func(_ *mining.Case, dtoc bool) bool { return !dtoc }, nil
	case k == "model" && v != "":
		return func(c *mining.Case, _ bool) bool { return c.ModelFamily == v }, nil
	case k == "harness" && v != "":
		return func(c *mining.Case, _ bool) bool { return c.Harness == v }, nil
	case k == "format" && v != "":
		return func(c *mining.Case, _ bool) bool { return c.Format == v }, nil
	}
	return nil, fmt.Errorf("unknown group %q (resolved, failed, dtoc, no-dtoc, model=F, harness=H, format=F)", spec)
}

// Mined is mine's result.
type Mined struct {
	Activity string           `json:"activity"`
	Cases    int              `json:"cases"`
	Events   int              `json:"events"`
	Variants []mining.Variant `json:"variants"`
	// Coarse are the variants at a coarser level (mining.CoarseVariants:
	// repeats collapsed, else the order of first occurrence): where almost
	// every run is a variant of its own, runs that differ only in how
	// often they repeated a step, or in nothing but their path, share one.
	Coarse      []mining.Variant      `json:"variants_coarse"`
	CoarseLevel mining.VariantLevel   `json:"variant_level_coarse"`
	DFG         *mining.DFG           `json:"dfg"`
	Heuristics  *mining.HeuristicsNet `json:"heuristics"`
	Conformance *mining.Conformance   `json:"conformance"`
	Comparison  *mining.Comparison    `json:"comparison,omitempty"`
	ByModel     []MinedGroup          `json:"by_model,omitempty"`
	Behaviour   []behavior.Group      `json:"behaviour"`
}

// MinedGroup is the log of one model family (--by model).
type MinedGroup struct {
	ModelFamily string           `json:"model_family"`
	Cases       int              `json:"cases"`
	Variants    []mining.Variant `json:"variants"`
	DFG         *mining.DFG      `json:"dfg"`
}

// MineStore mines the store (see the command's help) and writes --export.
func MineStore(ctx context.Context, st *store.Store, o *MineOptions) (Mined, error) {
	env, err := NewEnv(ctx, st)
	if err != nil {
		return Mined{}, err
	}
	ma, err := NewMine(o, env)
	if err != nil {
		return Mined{}, err
	}
	if o.NoProfiles {
		if err := ma.eventLog(ctx, st); err != nil {
			return Mined{}, err
		}
		return ma.Finish(ctx, st, nil)
	}
	// the event log and the profiles share nothing but the store and the
	// (read-only) classifier: read at once, on their own connections
	var groups []behavior.Group
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	berr := make(chan error, 1)
	go func() {
		var err error
		groups, err = mineBehaviour(ctx, st, env, ma.keep)
		if err != nil {
			cancel()
		}
		berr <- err
	}()
	lerr := ma.eventLog(ctx, st)
	if lerr != nil {
		cancel()
	}
	if err := <-berr; err != nil && (lerr == nil || !errors.Is(err, context.Canceled)) {
		return Mined{}, err
	}
	if lerr != nil {
		return Mined{}, lerr
	}
	return ma.Finish(ctx, st, groups)
}

// eventLog builds the event log through store.EventStream, which reads only
// the columns it needs, runs in run_id order (the log and what is mined
// from it do not depend on the order).
//
// Tool calls take the class ingest stored (events.action_class) when their
// run was classified by this version's default classifier; only when some
// run was not (imported by an older version, or before the classes were
// stored) are the arguments read, to classify that run's calls again.
func (ma *Mine) eventLog(ctx context.Context, st *store.Store) error {
	o := ma.o
	eo := store.EventStreamOptions{Targets: o.Mode == mining.ModeToolTarget, Args: o.Mode != mining.ModeTool,
		Classes: o.Mode != mining.ModeTool, ModelFamilies: o.Models, Harnesses: o.Harnesses}
	if o.Mode == mining.ModeClass {
		stale, err := st.RunsNotClassified(ctx, actions.DefaultFingerprint())
		if err != nil {
			return err
		}
		eo.Args = stale > 0
	}
	return st.EventStream(ctx, eo, func(run *schema.Run, events []schema.Event, ops []schema.ContextOp) error {
		if !ma.keep(run) {
			return nil
		}
		ma.noteDTOC(run.RunID, ops)
		return ma.b.AddRun(run, events, ops)
	})
}

// mineBehaviour profiles the runs keep selects and pools them per model
// family (behavior.ByFamily), as the shared pass's Behaviour does over
// every run's records: the profiles ingest stored (run_profiles, under
// ProfileFingerprint, for the run's current source) are read back, and
// only the runs without one are profiled here (profileRuns), which on a
// store an older version imported is every run.
func mineBehaviour(ctx context.Context, st *store.Store, env *Env, keep func(*schema.Run) bool) ([]behavior.Group, error) {
	ba := NewBehaviour(env, keep)
	stored, err := st.StoredProfiles(ctx, ProfileFingerprint())
	if err != nil {
		return nil, err
	}
	profiles := make([]behavior.RunProfile, 0, len(stored))
	missing := map[string]bool{}
	for i := range stored {
		sp := &stored[i]
		if !keep(&sp.Run) {
			continue
		}
		if sp.Profile == nil {
			missing[sp.Run.RunID] = true
			continue
		}
		var p behavior.RunProfile
		if err := json.Unmarshal(sp.Profile, &p); err != nil {
			return nil, fmt.Errorf("mine: stored profile of run %s: %w", sp.Run.RunID, err)
		}
		if p.RunID != sp.Run.RunID {
			// a lake's reader renamed a run id two shards claim (id@sha8):
			// its profile is computed under the id it has here
			missing[sp.Run.RunID] = true
			continue
		}
		profiles = append(profiles, p)
	}
	if len(missing) > 0 {
		only := missing
		if len(missing) == len(stored) {
			only = nil // every run: read whole, without run lists
		}
		ps, err := profileRuns(ctx, st, env, func(r *schema.Run) bool { return missing[r.RunID] }, only)
		if err != nil {
			return nil, err
		}
		if len(ps) != len(missing) {
			return nil, fmt.Errorf("mine: %d runs profiled of %d (imported during the read?)", len(ps), len(missing))
		}
		profiles = append(profiles, ps...)
	}
	return behavior.ByFamily(profiles, ba.o), nil
}

// profileRuns profiles the runs keep selects (behavior.Run), reading the
// events of few runs; only, when not nil, limits the reads of runs with
// context ops to its runs (keep must not select others):
//
//  1. store.RunShapes gives every run's row counts, last turns, whether it
//     calls manage_context or has context ops, and whether a DTOC key or
//     a system prompt naming manage_context says it had the tool (stored
//     at import; else read from the text of system events only), while
//     store.ContextRuns (which runs have context ops or manage_context
//     calls) starts step 2.
//  2. The runs with context ops or manage_context calls are read whole
//     (store.Scan of those runs) and profiled by behavior.Run in the pass:
//     with their text when they disable outputs (behavior.NeedsText) and
//     ingest stored no uses for them (store.StoredUses, DeriveUses), else
//     without it, which Run does not read then, the stored uses standing
//     in for counterfactual.Uses (the two scans at once).
//  3. Every other run's profile is behavior.RunBrief of its shape: Run
//     reads nothing more of such a run.
//  4. The profiles are returned in Scan's order (the shapes' order), as the
//     pass over every run would add them (behavior.GroupBy does not depend
//     on the order).
func profileRuns(ctx context.Context, st *store.Store, env *Env, keep func(*schema.Run) bool, only map[string]bool) ([]behavior.RunProfile, error) {
	// every run's shape, while the runs with context ops are read; the
	// first error cancels the other reads
	g, ctx := errgroup.WithContext(ctx)
	var shapes []store.RunShape
	g.Go(func() error {
		var err error
		var ids []string // every run's shape, or those of only
		for id := range only {
			ids = append(ids, id)
		}
		if only != nil && len(ids) == 0 {
			return nil // nothing to profile
		}
		shapes, err = st.RunShapes(ctx, "manage_context", ids...)
		return err
	})
	bas := [2]*Behaviour{NewBehaviour(env, keep), NewBehaviour(env, keep)}
	var ctxRuns map[string]store.ContextRun
	var stored map[string][]store.StoredUse
	g.Go(func() error {
		var err error
		if ctxRuns, err = st.ContextRuns(ctx); err != nil {
			return err
		}
		if stored, err = st.StoredUses(ctx, counterfactual.UsesVersion); err != nil {
			return err
		}
		// the run filter (keep) is applied in the pass, which has the runs
		text, noText := []string{}, []string{}
		for id, c := range ctxRuns {
			if only != nil && !only[id] {
				continue
			}
			if c.Disables > 0 && stored[id] == nil { // behavior.NeedsText, no stored uses
				text = append(text, id)
			} else {
				noText = append(noText, id)
			}
		}
		// the two reads share nothing: at once, each into its own Behaviour
		bas[1].stored = stored // the runs read without text whose uses ingest stored
		for k, so := range [2]store.ScanOptions{{RunIDs: text}, {RunIDs: noText, NoText: true}} {
			if len(so.RunIDs) > 0 {
				g.Go(func() error { return Pass(ctx, st, so, env, Of(bas[k])) })
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	ba := bas[0]
	ba.profiles = append(ba.profiles, bas[1].profiles...)
	byID := make(map[string]int, len(ba.profiles))
	for i := range ba.profiles {
		byID[ba.profiles[i].RunID] = i
	}
	profiles := make([]behavior.RunProfile, 0, len(shapes))
	for i := range shapes {
		sh := &shapes[i]
		if !keep(&sh.Run) {
			continue
		}
		if sh.Ops > 0 || sh.ManageCall {
			j, ok := byID[sh.Run.RunID]
			if c := ctxRuns[sh.Run.RunID]; !ok || c.Ops != sh.Ops || c.Disables != sh.Disables || c.ManageCall != sh.ManageCall {
				return nil, fmt.Errorf("mine: run %s not profiled (imported during the read?)", sh.Run.RunID)
			}
			p := ba.profiles[j]
			if sh.Disables == 0 || stored[sh.Run.RunID] != nil {
				// read without text: the system prompt's mention (the
				// one text Run reads then) comes from the shape
				p.Manage.HasTool = p.Manage.HasTool || sh.Mentions
			}
			profiles = append(profiles, p)
			continue
		}
		profiles = append(profiles, behavior.RunBrief(sh.Run, behavior.Brief{LastCall: sh.LastTurn, LastOutputCall: sh.LastOutputTurn,
			HasTool: sh.EnvelopeKey || sh.Mentions}, ba.o))
	}
	return profiles, nil
}

// NewMine prepares mining with o: the builder of the event log and the run
// filter (o.Models, o.Harnesses, o.From, o.To).
func NewMine(o *MineOptions, env *Env) (*Mine, error) {
	ma := &Mine{o: o, classify: env.classify, dtoc: map[string]bool{}}
	// the builder classifies the run being added through its runWork's
	// memo, filled on a worker (the add stage is one goroutine)
	class := func(harness, tool, args string) string {
		if ma.cur != nil {
			return ma.cur.Classify(harness, tool, args)
		}
		return env.classify(harness, tool, args)
	}
	b, err := mining.NewBuilder(&mining.Options{Mode: o.Mode, Class: class, StoredClasses: true})
	if err != nil {
		return nil, err
	}
	keep := func(r *schema.Run) bool {
		if len(o.Models) > 0 && !slices.Contains(o.Models, r.ModelFamily) {
			return false
		}
		if (!o.From.IsZero() || !o.To.IsZero()) && (r.StartedAt == nil || // a run without a start fails a set bound
			!o.From.IsZero() && r.StartedAt.Before(o.From) || !o.To.IsZero() && !r.StartedAt.Before(o.To)) {
			return false
		}
		return len(o.Harnesses) == 0 || slices.Contains(o.Harnesses, r.Harness)
	}
	ma.b, ma.keep = b, keep
	return ma, nil
}

// Finish mines the log built in the pass (see the command's help), with the
// behaviour groups of the same runs, and writes --export.
func (ma *Mine) Finish(ctx context.Context, st *store.Store, behaviour []behavior.Group) (Mined, error) {
	var out Mined
	o, b, dtoc, keep, classify := ma.o, ma.b, ma.dtoc, ma.keep, ma.classify
	log := b.Log()
	if o.Outcome != mining.OutcomeAny {
		log = log.Filter(&mining.Filter{Outcome: o.Outcome})
	}
	out = Mined{Activity: o.Mode.String(), Cases: len(log.Cases), Events: log.Events()}
	out.Variants = mining.Variants(log)
	out.Coarse, out.CoarseLevel = mining.CoarseVariants(log)
	out.DFG = mining.NewDFG(log)
	out.Heuristics = mining.NewHeuristics(log, nil)
	model := out.Heuristics.Model()
	if o.ModelFile != "" {
		fh, err := os.Open(o.ModelFile)
		if err != nil {
			return out, fmt.Errorf("--model-file: %w", err)
		}
		model, err = mining.ParseModel(o.ModelFile, fh)
		fh.Close()
		if err != nil {
			return out, err
		}
	}
	out.Conformance = mining.Conform(log, model)
	if len(o.Compare) == 2 {
		ga, _ := MineGroup(o.Compare[0])
		gb, _ := MineGroup(o.Compare[1])
		a := log.Select(func(c *mining.Case) bool { return ga(c, dtoc[c.ID]) })
		bl := log.Select(func(c *mining.Case) bool { return gb(c, dtoc[c.ID]) })
		out.Comparison = mining.Compare(o.Compare[0], a, o.Compare[1], bl)
	}
	if o.By == "model" {
		var fams []string
		for _, c := range log.Cases {
			if !slices.Contains(fams, c.ModelFamily) {
				fams = append(fams, c.ModelFamily)
			}
		}
		slices.Sort(fams)
		for _, f := range fams {
			sub := log.Filter(&mining.Filter{ModelFamilies: []string{f}})
			out.ByModel = append(out.ByModel, MinedGroup{ModelFamily: textfmt.OrDash(f), Cases: len(sub.Cases), Variants: mining.Variants(sub), DFG: mining.NewDFG(sub)})
		}
	}
	out.Behaviour = behaviour
	if o.Export != "" {
		if err := mineExport(ctx, st, o, log, out.DFG, keep, classify); err != nil {
			return out, err
		}
	}
	return out, nil
}

// Mine is mine's part of the shared pass: the runs keep selects
// added, in scan order, to the event log being built.
type Mine struct {
	cur      *RunWork // the run being added (add's goroutine only)
	o        *MineOptions
	classify func(harness, tool, args string) string
	b        *mining.Builder
	keep     func(*schema.Run) bool
	dtoc     map[string]bool // runs with manage_context ops
}

// Worker classifies one kept run's tool calls (Consumer).
func (a *Mine) Worker() (func(*RunWork) *RunWork, error) {
	return func(w *RunWork) *RunWork {
		if !a.keep(&w.Run) {
			return nil
		}
		if a.o.Mode == mining.ModeClass {
			for i := range w.Events {
				if e := &w.Events[i]; e.Kind == schema.KindToolCall && e.ActionClass == "" {
					w.Classify(w.Run.Harness, e.ToolName, e.Args)
				}
			}
		}
		return w // the Builder copies what it keeps, in add
	}, nil
}

// Add adds one kept run to the event log, in scan order (Consumer).
func (a *Mine) Add(w *RunWork) error {
	if w == nil { // a run keep left out
		return nil
	}
	// the worker is done with w: its memo is this goroutine's now
	a.cur = w
	defer func() { a.cur = nil }()
	d := &w.RunData
	a.noteDTOC(d.Run.RunID, d.Ops)
	return a.b.AddRun(&d.Run, d.Events, d.Ops)
}

// noteDTOC records whether the run has manage_context ops.
func (a *Mine) noteDTOC(runID string, ops []schema.ContextOp) {
	for _, op := range ops {
		if op.Op == schema.OpDisable || op.Op == schema.OpEnable {
			a.dtoc[runID] = true
			return
		}
	}
}

// mineExport writes --export (o.Export: xes:FILE, events-xes:FILE,
// ocel:FILE or dot:FILE; FILE "-" is o.ExportOut): xes the mined log (its
// DFG is dfg), events-xes and ocel every event of the runs keep selects.
// With o.Redact, what it writes is redacted: the records before they are
// written (tool calls classified first, from their arguments as logged),
// the mined log's run ids and activity names, the DFG's activities.
func mineExport(ctx context.Context, st *store.Store, o *MineOptions, log *mining.Log, dfg *mining.DFG, keep func(*schema.Run) bool, classify func(h, t, a string) string) error {
	kind, file, _ := strings.Cut(o.Export, ":")
	var w io.Writer = o.ExportOut
	if file != "-" {
		fh, err := os.Create(file)
		if err != nil {
			return fmt.Errorf("--export: %w", err)
		}
		defer fh.Close()
		w = fh
	}
	red := o.Redact
	switch kind {
	case "dot":
		return redactDFG(dfg, red).WriteDOT(w)
	case "xes":
		if _, err := eventlog.WriteMinedXES(ctx, w, minedTraces(log, red), ""); err != nil {
			return fmt.Errorf("--export xes: %w", err)
		}
		return nil
	}
	byClass := o.Mode == mining.ModeClass
	src := func(yield func(*eventlog.RunRecords) error) error {
		return st.Scan(ctx, store.ScanOptions{}, func(d *store.RunData) error {
			if !keep(&d.Run) {
				return nil
			}
			if byClass { // the activity, before the arguments are redacted
				for i := range d.Events {
					if e := &d.Events[i]; e.Kind == schema.KindToolCall || e.Kind == schema.KindToolResult {
						e.ActionClass = classify(d.Run.Harness, e.ToolName, e.Args)
					}
				}
			}
			if red != nil {
				for i := range d.Events {
					d.Events[i].Text = "" // not written (eventlog.Options.TextLimit 0): not redacted
				}
				red.Records(&d.Run, d.Events, nil, d.Ops, 0)
			}
			return yield(&eventlog.RunRecords{Run: d.Run, Events: d.Events, Ops: d.Ops})
		})
	}
	eo := &eventlog.Options{OpActivity: func(_ *schema.Run, c *schema.ContextOp) string { return mining.OpActivity(c.Op) }}
	if byClass {
		eo.Activity = func(r *schema.Run, e *schema.Event) string {
			if e.Kind == schema.KindToolCall || e.Kind == schema.KindToolResult {
				return e.ActionClass
			}
			return eventlog.DefaultActivity(r, e)
		}
	}
	var err error
	if kind == "events-xes" {
		_, err = eventlog.WriteXES(ctx, w, src, eo)
	} else {
		_, err = eventlog.WriteOCEL(ctx, w, src, eo)
	}
	if err != nil {
		return fmt.Errorf("--export %s: %w", kind, err)
	}
	return nil
}

// redactDFG is d with its activity names redacted by red (d itself when
// red is nil).
func redactDFG(d *mining.DFG, red *redact.Redactor) *mining.DFG {
	if red == nil {
		return d
	}
	r := *d
	r.Nodes = slices.Clone(d.Nodes)
	for i := range r.Nodes {
		r.Nodes[i].Name = red.String(r.Nodes[i].Name)
	}
	r.Edges = slices.Clone(d.Edges)
	for i := range r.Edges {
		r.Edges[i].From, r.Edges[i].To = red.String(r.Edges[i].From), red.String(r.Edges[i].To)
	}
	return &r
}

// minedTraces hands the cases of log to eventlog.WriteMinedXES, in the
// log's order (case id), their ids and activity names redacted by red
// (as they are when red is nil).
func minedTraces(log *mining.Log, red *redact.Redactor) func(yield func(*eventlog.MinedTrace) error) error {
	acts := log.Activities
	if red != nil {
		acts = make([]string, len(log.Activities))
		for i, a := range log.Activities {
			acts[i] = red.String(a)
		}
	}
	return func(yield func(*eventlog.MinedTrace) error) error {
		var t eventlog.MinedTrace
		for i := range log.Cases {
			c := &log.Cases[i]
			t = eventlog.MinedTrace{ID: red.String(c.ID), ModelFamily: c.ModelFamily, Harness: c.Harness, Format: c.Format,
				Resolved: c.Resolved, Start: c.Start, Events: t.Events[:0]}
			for _, e := range c.Events {
				t.Events = append(t.Events, eventlog.MinedEvent{Activity: acts[e.Activity], Seq: e.Seq, TS: e.TS, Tokens: e.Tokens})
			}
			if err := yield(&t); err != nil {
				return err
			}
		}
		return nil
	}
}
