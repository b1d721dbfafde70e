package tracer

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/holdout"
	"github.com/trajmine/trajmine/simulate"
)

// Options configures Train. A nil *Options means defaults; zero fields take
// their defaults.
type Options struct {
	Seed       uint64
	Window     simulate.Window // replay window (the zero value: each run's own)
	Reserve    int64           // minimum output tokens reserved per call
	Epochs     int             // passes over the training runs (default 30)
	Samples    int             // sampled replays per run and epoch (default 2; ≥ 2 for the leave-one-out baseline)
	Batch      int             // runs per Adam step (default 16)
	Hidden     int             // hidden units (default 32)
	LR         float64         // Adam step size (default 0.02)
	Lambda     float64         // reward per predicted re-invocation (default 0.02; negative means 0)
	Overflow   float64         // OverflowPenalty: subtracted from an overflowing replay's reward (default 1)
	Credit     float64         // weight of the outcome model's per-decision channel (default 10; negative means 0, the floor alone)
	Trigger    float64         // compression event at prompt ≥ Trigger × window (default 0.5)
	Keep       int             // newest tool results left whole at an event (default 1; negative means 0)
	Compressor string          // simulate.CompressTruncate (default), CompressHead or CompressSummary
	// OutcomeSamples caps the decisions the outcome model is refitted on
	// per epoch (an even subsample; default 8000).
	OutcomeSamples int
	// Ablate names features (simulate.FeatureNames) held at zero, or
	// prefixes of them ending in '=' or '#' ("target=" is every target
	// kind): training never sees them and the model's weights on them are
	// zero, so it ignores them at evaluation too (an ablation).
	Ablate []string
	// Reward is RewardCost (default: prompts priced under each run's
	// cache rule, PromptCost) or RewardTokens (prompt tokens, nothing
	// cached: the reward before issue 27).
	Reward string
	// Prices prices the runs for RewardCost (nil: the embedded table;
	// a run it has no entry for gets StandInPrice).
	Prices diagnose.Prices
	// Family is the family filter the caller chose the runs by ("" none),
	// recorded in Training.
	Family string
}

// ablated returns the indexes of the features o.Ablate names.
func (o *Options) ablated() ([]int, error) {
	var idx []int
	for _, a := range o.Ablate {
		n := 0
		for k, f := range simulate.FeatureNames {
			if f == a || (strings.HasSuffix(a, "=") || strings.HasSuffix(a, "#")) && strings.HasPrefix(f, a) {
				if !slices.Contains(idx, k) {
					idx = append(idx, k)
				}
				n++
			}
		}
		if n == 0 || a == "bias" {
			return nil, fmt.Errorf("train tracer: ablate %q names no feature but the bias (features: %s)", a, strings.Join(simulate.FeatureNames, ", "))
		}
	}
	slices.Sort(idx)
	return idx, nil
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	// a zero field takes its default (cmp.Or); Keep and the rates are
	// also held at ≥ 0
	r.Epochs = cmp.Or(r.Epochs, 30)
	r.Samples = cmp.Or(r.Samples, 2)
	r.Batch = cmp.Or(r.Batch, 16)
	r.Hidden = cmp.Or(r.Hidden, 32)
	r.OutcomeSamples = cmp.Or(r.OutcomeSamples, 8000)
	r.Keep = max(cmp.Or(r.Keep, 1), 0)
	r.LR = max(cmp.Or(r.LR, 0.02), 0)
	r.Lambda = max(cmp.Or(r.Lambda, 0.02), 0)
	r.Overflow = max(cmp.Or(r.Overflow, 1), 0)
	r.Credit = max(cmp.Or(r.Credit, 10), 0)
	r.Trigger = max(cmp.Or(r.Trigger, 0.5), 0)
	r.Compressor = cmp.Or(r.Compressor, simulate.CompressTruncate)
	r.Reward = cmp.Or(r.Reward, RewardCost)
	return r
}

// check validates defaulted options.
func (o *Options) check() error {
	if o.Samples < 2 {
		return fmt.Errorf("train tracer: samples must be ≥ 2 (the baseline leaves one out)")
	}
	if o.Trigger > 1 {
		return fmt.Errorf("train tracer: trigger must be in [0,1]")
	}
	if o.Reward != RewardCost && o.Reward != RewardTokens {
		return fmt.Errorf("train tracer: reward must be %s or %s", RewardCost, RewardTokens)
	}
	if _, err := simulate.NewLearned(&sampler{}, &simulate.LearnedOptions{Trigger: o.Trigger, Keep: o.Keep, Compressor: o.Compressor}); err != nil {
		return fmt.Errorf("train tracer: %w", err)
	}
	return nil
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

// Epoch is one line of the training curves: the sampled replays of the
// epoch, and the mean policy on the training runs after it.
type Epoch struct {
	Epoch        int     `json:"epoch"`
	Reward       float64 `json:"reward"`        // mean sampled reward
	TokenRatio   float64 `json:"token_ratio"`   // sampled: Σ (prompt + re-invocation tokens) / Σ keep-all
	CostRatio    float64 `json:"cost_ratio"`    // sampled: Σ PromptCost / Σ keep-all's (cached, input-price units)
	ReinvPer100  float64 `json:"reinv_per_100"` // sampled: re-invocations per 100 replayed calls
	Overflows    int     `json:"overflows"`     // sampled replays that overflowed
	MeanRatio    float64 `json:"mean_ratio"`    // mean sampled retention ratio
	Decisions    int     `json:"decisions"`     // sampled decisions
	MeanReward   float64 `json:"mean_reward"`   // the mean policy's reward on the training runs
	MeanTokens   float64 `json:"mean_token_ratio"`
	OutcomeLoss  float64 `json:"outcome_logloss"` // the outcome model's log loss of "needed" on this epoch's decisions before refitting (−1 before the first fit)
	OutcomeLost  int     `json:"outcome_lost"`    // decisions whose output a later use lost (a re-invocation)
	PolicyUpdate int     `json:"updates"`         // Adam steps so far
}

// Model is a trained policy: the replayable part (simulate.RetentionModel,
// what tracer(model=FILE) reads), the outcome model and the training record.
type Model struct {
	simulate.RetentionModel
	Outcome  Outcome  `json:"outcome"`
	Training Training `json:"training"`
}

// Training records how a model was trained.
type Training struct {
	Seed     uint64          `json:"seed"`
	Window   simulate.Window `json:"replay_window"` // Options.Window
	Epochs   int             `json:"epochs"`
	Samples  int             `json:"samples"`
	Batch    int             `json:"batch"`
	LR       float64         `json:"lr"`
	Lambda   float64         `json:"lambda"`
	Overflow float64         `json:"overflow_penalty"`
	Credit   float64         `json:"credit"`
	Ablate   []string        `json:"ablate,omitempty"` // Options.Ablate
	// Reward is the objective (RewardCost or RewardTokens); a file
	// without one was trained on tokens.
	Reward string `json:"reward,omitempty"`
	// Family is the family filter the runs were chosen by ("" none) and
	// Families the training runs per model family (simulate.Trace.Family):
	// applying the model to another family warns (FamilyWarning).
	Family   string         `json:"family,omitempty"`
	Families map[string]int `json:"families,omitempty"`
	Runs     int            `json:"runs"`
	RunIDs   []string       `json:"run_ids"`     // the training runs, in input order
	Digest   string         `json:"runs_sha256"` // holdout.Digest(RunIDs): the training set, in any order
	// Uniform is TRACER's uniform baseline tuned on the training runs by
	// the same reward (TuneUniform); the held-out table reports it.
	Uniform *Tuned `json:"uniform_tuned,omitempty"`
	// Split is the rule that chose the training runs (holdout.Rule) and
	// HoldoutEvery its parameter, as the caller (trajmine train tracer)
	// records them; empty when the caller split otherwise.
	Split        string  `json:"split,omitempty"`
	HoldoutEvery uint32  `json:"holdout_every,omitempty"`
	Curves       []Epoch `json:"curves"`
}

// decision is one sampled ratio with what the outcome model needs.
type decision struct {
	x       []float64
	r       float64
	item    int32
	call    int
	tokens  int32
	lost    bool // a later use lost its evidence under the chosen ratio
	needed  bool // a later content use needs it (dropping it would lose that)
	logCost float64
	credit  float64
}

// sampler draws each candidate's ratio from the policy's Beta and records it.
type sampler struct {
	n    *net
	rng  *rand.Rand
	mean bool  // use the mean (evaluation), record nothing
	drop []int // ablated features, zeroed before the net sees them
}

const ratioEps = 1e-3

func (s *sampler) Retain(_ *simulate.Trace, ev *simulate.Event) {
	for k := range ev.Cands {
		for _, j := range s.drop {
			ev.Cands[k].X[j] = 0
		}
		a, b := s.n.beta(ev.Cands[k].X)
		var r float64
		if s.mean {
			r = a / (a + b)
		} else {
			r = distuv.Beta{Alpha: a, Beta: b, Src: s.rng}.Rand()
			r = min(max(r, ratioEps), 1-ratioEps)
		}
		ev.Cands[k].Ratio = r
	}
}

// pending holds the last event's renderings until the replay ends (the labels need its uses).
type pendingCand struct {
	simulate.Candidate
	call int
}

type recorder struct {
	*sampler
	cands []pendingCand
}

func (r *recorder) Applied(_ *simulate.Trace, ev *simulate.Event) {
	if r.mean {
		return
	}
	for _, c := range ev.Cands {
		c.X = slices.Clone(c.X)
		r.cands = append(r.cands, pendingCand{Candidate: c, call: ev.Call})
	}
}

// rollout is one replay of a run under a policy.
type rollout struct {
	res    simulate.RunResult
	reward float64
	decs   []decision
}

type trainer struct {
	o    Options
	drop []int // Options.ablated
	n    *net
	out  *Outcome
	obj  *objective
}

// worker is one goroutine's replay state: a view of the net with its own
// scratch (θ is shared and only read during a batch), a replayer, and the
// run's random source.
type worker struct {
	n     net
	rp    simulate.Replayer
	calls []simulate.CallResult
	rng   *rand.Rand
	uses  map[int32][]int32 // per item: indexes into the trace's Uses
}

func (tn *trainer) newWorker() *worker {
	w := &worker{n: *tn.n}
	w.n.h, w.n.o = make([]float64, tn.n.m.Hidden), make([]float64, 2)
	return w
}

func (tn *trainer) policy(r simulate.Retainer) simulate.Policy {
	p, err := simulate.NewLearned(r, &simulate.LearnedOptions{Trigger: tn.o.Trigger, Keep: tn.o.Keep, Compressor: tn.o.Compressor, Name: "tracer(training)"})
	if err != nil {
		panic(err) // options were validated by Train
	}
	return p
}

// run replays tr once on w: sampled (recording decisions and their labels) or at the mean.
func (tn *trainer) run(w *worker, tr *simulate.Trace, mean bool) rollout {
	rec := &recorder{sampler: &sampler{n: &w.n, rng: w.rng, mean: mean, drop: tn.drop}}
	w.calls = w.calls[:0]
	res := w.rp.Replay(tr, tn.policy(rec), simulate.Options{Window: tn.o.Window, Reserve: tn.o.Reserve, Calls: &w.calls})
	ro := rollout{res: res, reward: tn.obj.reward(tr, &res)}
	if mean {
		return ro
	}
	if w.uses == nil {
		w.uses = map[int32][]int32{}
		for ui, u := range tr.Uses {
			w.uses[u.Item] = append(w.uses[u.Item], int32(ui))
		}
	}
	// the credit's units are the reward's: keep-all's tokens or their
	// cost, and a token the cut removes from a later call counts perTok
	// (the cache-read ratio under RewardCost: kept, it would be read from
	// the cache); the cache break the cut causes is left to the floor R − b
	ka, perTok := tn.obj.scale(tr, &res)
	for _, c := range rec.cands {
		d := decision{x: c.X, r: c.Ratio, item: c.Item, call: c.call, tokens: tr.Items[c.Item].Tokens}
		// the labels, from the provenance of the later (replayed) calls:
		// lost, whether a use lost its evidence under the chosen rendering;
		// needed, whether a content use comes at all — the single-tool
		// counterfactual of dropping it, known whatever ratio was chosen —
		// and the cost of re-fetching it there
		for _, ui := range w.uses[c.Item] {
			u := &tr.Uses[ui]
			if int(u.Call) < c.call || int(u.Call) >= res.Calls || !u.Content {
				continue
			}
			if !d.needed {
				d.needed = true
				d.logCost = math.Log(float64(tr.Items[c.Item].Tokens) + float64(w.calls[u.Call].PromptTokens) + 1)
			}
			if c.Lost(tr, u) {
				d.lost = true
				break
			}
		}
		// the per-decision channel: tokens saved against predicted harm, relative to keeping it whole
		if tn.out != nil && tn.o.Credit > 0 {
			left := float64(max(res.Calls-c.call, 0))
			saving := (1 - d.r) * float64(d.tokens) * left * perTok / ka
			dp := tn.out.P(d.x, d.r) - tn.out.P(d.x, 1)
			harm := dp * (tn.out.C(d.x)/ka + tn.o.Lambda)
			d.credit = tn.o.Credit * (saving - harm)
		}
		ro.decs = append(ro.decs, d)
	}
	return ro
}

// runResult is one training run's part of a batch: its gradient and what
// the epoch's curves and the outcome model need.
type runResult struct {
	grad    []float64
	ros     []rollout
	samples []sample
}

// runSampled replays tr Samples times from the run's own random source
// (seeded by the epoch and the run's index, so the result does not depend
// on which worker runs it) and returns its REINFORCE gradient.
func (tn *trainer) runSampled(w *worker, tr *simulate.Trace, seed uint64, stream uint64, rr *runResult) {
	w.rng = rand.New(rand.NewPCG(seed, stream))
	w.uses = nil
	rr.grad = resize(rr.grad, len(tn.n.theta))
	rr.ros = rr.ros[:0]
	rr.samples = rr.samples[:0]
	var sum float64
	for range tn.o.Samples {
		ro := tn.run(w, tr, false)
		sum += ro.reward
		rr.ros = append(rr.ros, ro)
	}
	for k := range rr.ros {
		ro := &rr.ros[k]
		b := (sum - ro.reward) / float64(len(rr.ros)-1) // leave-one-out baseline
		adv := ro.reward - b
		for _, d := range ro.decs {
			w.n.addGrad(rr.grad, d.x, d.r, adv+d.credit)
			rr.samples = append(rr.samples, sample{x: d.x, r: d.r, lost: d.lost, needed: d.needed, logCost: d.logCost})
		}
	}
}

func resize(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// parallel calls f(w, i) for i in [0, n) on up to GOMAXPROCS workers.
func parallel(ws []*worker, n int, f func(w *worker, i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(w, i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// Train learns a retention policy on traces (see the package doc). It is
// deterministic for o.Seed and the traces' order, whatever GOMAXPROCS: each
// run's sampling has its own random stream and the gradients of a batch
// are summed in run order. progress, when non-nil, receives each epoch's
// curve line as it is done.
func Train(ctx context.Context, traces []*simulate.Trace, o *Options, progress func(Epoch)) (*Model, error) {
	oo := o.withDefaults()
	if err := oo.check(); err != nil {
		return nil, err
	}
	if len(traces) == 0 {
		return nil, fmt.Errorf("train tracer: no runs to train on")
	}
	drop, err := oo.ablated()
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(oo.Seed, 0x7ACE5))
	tn := &trainer{o: oo, n: newNet(oo.Hidden), drop: drop, obj: newObjective(&oo, traces)}
	tn.n.init(rng)
	ws := make([]*worker, max(1, min(runtime.GOMAXPROCS(0), oo.Batch)))
	for k := range ws {
		ws[k] = tn.newWorker()
	}
	opt := newAdam(len(tn.n.theta), oo.LR)
	grad := make([]float64, len(tn.n.theta))
	order := make([]int, len(traces))
	for i := range order {
		order[i] = i
	}
	m := &Model{Training: Training{Seed: oo.Seed, Window: oo.Window, Epochs: oo.Epochs, Samples: oo.Samples, Batch: oo.Batch,
		LR: oo.LR, Lambda: oo.Lambda, Overflow: oo.Overflow, Credit: oo.Credit, Ablate: slices.Clone(oo.Ablate), Runs: len(traces),
		Reward: oo.Reward, Family: oo.Family, Families: map[string]int{}}}
	for _, tr := range traces {
		m.Training.RunIDs = append(m.Training.RunIDs, tr.RunID)
		m.Training.Families[tr.Family]++
	}
	m.Training.Digest = holdout.Digest(m.Training.RunIDs)
	batch := make([]runResult, oo.Batch)
	var mem []sample // the outcome model's memory of decisions
	means := make([]rollout, len(traces))
	for ep := range oo.Epochs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		epSeed := rng.Uint64()
		e := Epoch{Epoch: ep + 1}
		var eff, ka, cost, kaCost, reinv, calls, ratios float64
		var samples []sample
		for lo := 0; lo < len(order); lo += oo.Batch {
			hi := min(lo+oo.Batch, len(order))
			parallel(ws, hi-lo, func(w *worker, k int) {
				idx := order[lo+k]
				tn.runSampled(w, traces[idx], epSeed, uint64(idx), &batch[k])
			})
			clear(grad)
			for k := range hi - lo {
				rr := &batch[k]
				for j, g := range rr.grad {
					grad[j] += g
				}
				for _, s := range rr.samples {
					samples = append(samples, s)
					ratios += s.r
					if s.lost {
						e.OutcomeLost++
					}
				}
				tr := traces[order[lo+k]]
				for _, ro := range rr.ros {
					e.Decisions += len(ro.decs)
					e.Reward += ro.reward
					eff += float64(ro.res.PromptTokens + ro.res.ReinvocationTok)
					ka += float64(ro.res.KeepAllTokens)
					c, kc := PromptCost(&ro.res, tn.obj.price[tr])
					cost, kaCost = cost+c, kaCost+kc
					reinv += float64(ro.res.Reinvocations)
					calls += float64(ro.res.Calls)
					if ro.res.Status == simulate.Overflow {
						e.Overflows++
					}
				}
			}
			scale := 1 / float64((hi-lo)*oo.Samples)
			for k := range grad {
				grad[k] *= scale
			}
			opt.step(tn.n.theta, grad, 5)
		}
		nr := float64(len(order) * oo.Samples)
		e.Reward /= nr
		e.TokenRatio = eff / max(ka, 1)
		e.CostRatio = cost / max(kaCost, 1)
		e.ReinvPer100 = 100 * reinv / max(calls, 1)
		if e.Decisions > 0 {
			e.MeanRatio = ratios / float64(e.Decisions)
		}
		e.OutcomeLoss = -1
		if tn.out != nil {
			e.OutcomeLoss = logLoss(tn.out, samples)
		}
		// refit the outcome model on a bounded memory of decisions: half an
		// even subsample of this epoch's, half of the previous memory, so
		// the spread-out ratios of early epochs still inform the risk of
		// outputs the policy now keeps (nearly) whole
		if mem == nil {
			mem = evenSample(samples, oo.OutcomeSamples)
		} else {
			mem = append(evenSample(mem, oo.OutcomeSamples/2), evenSample(samples, oo.OutcomeSamples-oo.OutcomeSamples/2)...)
		}
		samples = mem
		fit := fitOutcome(samples, tn.out, 1e-3)
		tn.out = &fit
		// the mean policy on the training runs
		parallel(ws, len(traces), func(w *worker, i int) { means[i] = tn.run(w, traces[i], true) })
		var meff, mka float64
		for _, ro := range means {
			e.MeanReward += ro.reward
			meff += float64(ro.res.PromptTokens + ro.res.ReinvocationTok)
			mka += float64(ro.res.KeepAllTokens)
		}
		e.MeanReward /= float64(len(traces))
		e.MeanTokens = meff / max(mka, 1)
		e.PolicyUpdate = opt.t
		m.Training.Curves = append(m.Training.Curves, e)
		if progress != nil {
			progress(e)
		}
	}
	m.RetentionModel = tn.n.m
	m.Outcome = *tn.out
	for _, j := range drop { // never seen in training: the model ignores them
		for h := range m.Hidden {
			m.W1[h*simulate.FeatureDim+j] = 0
		}
		if len(m.Outcome.Risk) > j {
			m.Outcome.Risk[j] = 0
		}
		if len(m.Outcome.Cost) > j {
			m.Outcome.Cost[j] = 0
		}
	}
	m.RetentionModel.Features = slices.Clone(simulate.FeatureNames)
	m.RetentionModel.Trigger, m.RetentionModel.Keep, m.RetentionModel.Compressor = oo.Trigger, oo.Keep, oo.Compressor
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	u, err := TuneUniform(traces, &oo)
	if err != nil {
		return nil, err
	}
	m.Training.Uniform = &u
	return m, nil
}

// evenSample returns at most n of ss, evenly spaced (a new slice).
func evenSample(ss []sample, n int) []sample {
	if len(ss) <= n {
		return slices.Clone(ss)
	}
	out := make([]sample, n)
	step := float64(len(ss)) / float64(n)
	for k := range out {
		out[k] = ss[int(float64(k)*step)]
	}
	return out
}

// logLoss is the outcome model's mean log loss of needed (P̂(x, 0)) on ss.
func logLoss(o *Outcome, ss []sample) float64 {
	if len(ss) == 0 {
		return math.NaN()
	}
	var l float64
	for _, s := range ss {
		p := min(max(o.P(s.x, 0), 1e-9), 1-1e-9)
		if s.needed {
			l -= math.Log(p)
		} else {
			l -= math.Log1p(-p)
		}
	}
	return l / float64(len(ss))
}

// WriteModel writes m as indented JSON (byte-identical for the same model).
func WriteModel(path string, m *Model) error {
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return fmt.Errorf("write model: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write model: %w", err)
	}
	return nil
}

// ReadModel reads a model file WriteModel wrote.
func ReadModel(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read model: %w", err)
	}
	m := &Model{}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("read model %s: %w", path, err)
	}
	if err := m.upgrade(); err != nil {
		return nil, fmt.Errorf("read model %s: %w", path, err)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("read model %s: %w", path, err)
	}
	return m, nil
}

// upgrade maps an earlier format's model onto this build's features
// (simulate.RetentionModel.Upgrade), the outcome model's weights too: a
// feature the file lacks gets weight 0.
func (m *Model) upgrade() error {
	old := m.Features
	if err := m.RetentionModel.Upgrade(); err != nil {
		return err
	}
	for _, v := range []*[]float64{&m.Outcome.Risk, &m.Outcome.Cost} {
		if len(*v) == 0 {
			continue
		}
		if len(*v) != len(old) {
			return fmt.Errorf("outcome model has %d weights for %d features", len(*v), len(old))
		}
		w := make([]float64, simulate.FeatureDim)
		for k, f := range old {
			w[slices.Index(simulate.FeatureNames, f)] = (*v)[k] // Upgrade checked every name
		}
		*v = w
	}
	return nil
}
