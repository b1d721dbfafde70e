package counterfactual

import (
	"cmp"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/trajmine/trajmine/internal/holdout"
	"github.com/trajmine/trajmine/internal/stats"
	"github.com/trajmine/trajmine/schema"
)

// OutputReRead is one tool output's predicted and observed re-reads.
//
// Predicted is 1 when the attributor finds a content use of the output at a
// call after the first call that saw it (a use at call t > the output's
// turn: the output was needed again after it was first read), else 0. A
// policy that hid the output once it had been read would have made the
// agent fetch it again at the first such use, once: the fetched copy serves
// the later uses (the simulator, too, counts one re-invocation per hidden
// version of an output).
//
// Observed are the re-reads the log shows: later tool calls that repeat the
// call that produced the output (the same tool with the same arguments, a
// free-text "description" argument aside, so on the same target), each
// counted for the latest earlier output of that target (a target use), and
// DTOC enables of the output. Unchanged counts those of them whose result
// text equals the output's (an enable always does): the agent fetched what
// it already had, where the others may be refreshes after a change.
//
// Dropped is set when the log itself drops the output: a compaction event
// follows it. PredictedAfterDrop and ObservedAfterDrop are then Predicted
// and Observed counting only uses and re-reads after the first such
// compaction: there the agent, having lost the output, either fetched it
// again or did without, which is what a prediction claims.
type OutputReRead struct {
	Output             int    `json:"output"` // index in events of the tool_result
	Tool               string `json:"tool"`
	Predicted          int64  `json:"predicted"`
	Observed           int64  `json:"observed"`
	Unchanged          int64  `json:"unchanged"`
	Dropped            bool   `json:"dropped,omitempty"`
	PredictedAfterDrop int64  `json:"predicted_after_drop,omitempty"`
	ObservedAfterDrop  int64  `json:"observed_after_drop,omitempty"`
}

// OutputReReads returns one OutputReRead per tool_result of events (in
// event order) from the run's Uses. isRead, when not nil, keeps only the
// outputs whose producing call it calls a read (or search): re-reads of
// edits and commands are not re-reads. Its work is linear in the events
// and uses (the arguments of a call are decoded only for a target use).
func OutputReReads(events []schema.Event, uses []Use, isRead func(tool, args string) bool) []OutputReRead {
	prod := producers(events)
	row := make([]int32, len(events)) // event index → row + 1
	result := map[int32]int32{}       // tool_call index → its first tool_result
	drop := make([]int, len(events))  // index of the first compaction after each event, or len(events)
	next := len(events)
	for i := len(events) - 1; i >= 0; i-- {
		drop[i] = next
		if events[i].Kind == schema.KindCompaction {
			next = i
		}
	}
	var out []OutputReRead
	for i := range events {
		e := &events[i]
		if e.Kind != schema.KindToolResult {
			continue
		}
		p := prod[i]
		if p >= 0 {
			if _, ok := result[p]; !ok {
				result[p] = int32(i)
			}
		}
		if isRead != nil && (p < 0 || !isRead(events[p].ToolName, events[p].Args)) {
			continue
		}
		out = append(out, OutputReRead{Output: i, Tool: e.ToolName, Dropped: drop[i] < len(events)})
		row[i] = int32(len(out))
	}
	keys := map[int]string{} // call index → callKey of its args
	key := func(i int) string {
		k, ok := keys[i]
		if !ok {
			k = callKey(events[i].Args)
			keys[i] = k
		}
		return k
	}
	type oc struct {
		o    int
		call int64
	}
	seen := map[oc]bool{} // rule 1: (output, call) pairs counted
	for _, u := range uses {
		if u.Output < 0 || u.Output >= len(row) || row[u.Output] == 0 {
			continue
		}
		r := &out[row[u.Output]-1]
		switch u.Kind {
		case UseContent:
			if u.Call <= events[u.Output].Turn {
				continue
			}
			if u.Event > drop[u.Output] {
				r.PredictedAfterDrop = 1
			}
			if !predictRule1 {
				r.Predicted = 1
			} else if k := (oc{u.Output, u.Call}); !seen[k] {
				seen[k] = true
				r.Predicted++
			}
		case UseTarget:
			p, e := prod[u.Output], &events[u.Event]
			if observeRule1 {
				if e.ToolName == events[u.Output].ToolName {
					r.Observed++
				}
				continue
			}
			if p < 0 || e.ToolName != events[p].ToolName || key(u.Event) != key(int(p)) {
				continue
			}
			r.Observed++
			if res, ok := result[int32(u.Event)]; ok && events[res].Text == events[u.Output].Text {
				r.Unchanged++
			}
			if u.Event > drop[u.Output] {
				r.ObservedAfterDrop++
			}
		case UseEnable:
			r.Observed++
			r.Unchanged++
			if u.Event > drop[u.Output] {
				r.ObservedAfterDrop++
			}
		}
	}
	return out
}

// predictRule1 and observeRule1 turn the first rules of OutputReReads back
// on, for the tests that measure what the change did: Predicted counted
// every later call with a content use of the output (one per (output,
// call)), and Observed every later call of the same tool on the same
// target (edits through an editor tool and reads of other parts of a file
// among them).
var predictRule1, observeRule1 = false, false

// callKey is a tool call's arguments as compared by OutputReReads: the
// canonical JSON without a top-level "description" (Claude Code's Bash and
// Task take one, free text that says nothing about what is run); the
// arguments as given when they are not a JSON object.
func callKey(args string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &m) != nil {
		return args
	}
	if _, ok := m["description"]; !ok {
		return args
	}
	delete(m, "description")
	b, err := json.Marshal(m) // sorted keys
	if err != nil {
		return args
	}
	return string(b)
}

// ToolReReads is one tool's predicted and observed re-reads: the sums of
// OutputReRead over its outputs.
type ToolReReads struct {
	Tool      string `json:"tool"`
	Predicted int64  `json:"predicted"`
	Observed  int64  `json:"observed"`
}

// RunReReads returns one run's ToolReReads per tool name (sorted by tool),
// summing OutputReReads(events, uses, isRead).
func RunReReads(events []schema.Event, uses []Use, isRead func(tool, args string) bool) []ToolReReads {
	return byTool(OutputReReads(events, uses, isRead))
}

// byTool sums outs per tool, sorted by tool.
func byTool(outs []OutputReRead) []ToolReReads {
	by := map[string]*ToolReReads{}
	for _, o := range outs {
		r := by[o.Tool]
		if r == nil {
			r = &ToolReReads{Tool: o.Tool}
			by[o.Tool] = r
		}
		r.Predicted += o.Predicted
		r.Observed += o.Observed
	}
	out := make([]ToolReReads, 0, len(by))
	for _, r := range by {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b ToolReReads) int { return cmp.Compare(a.Tool, b.Tool) })
	return out
}

// ReReadValidation compares predicted with observed re-reads: per tool over
// the runs whose log shows at least one re-read (Runs, Tools, Spearman),
// and per run and per output (ReReadFit) over all runs with an output, the
// held-out half and the other half.
type ReReadValidation struct {
	Runs  int           `json:"runs"`  // runs with an observed re-read
	Tools []ToolReReads `json:"tools"` // summed over those runs, by tool; tools with neither left out
	// Spearman is the rank correlation (average ranks for ties) of Predicted
	// and Observed over Tools; nil with fewer than MinValidationTools tools or
	// when either side is constant.
	Spearman *float64 `json:"spearman"`
	// All is the per-run and per-output fit over every run with an output;
	// Train and Held over the runs of each half of the split Split names
	// (holdout.Held(run id, 2)).
	All   ReReadFit `json:"all"`
	Train ReReadFit `json:"train"`
	Held  ReReadFit `json:"held_out"`
	Split string    `json:"split"`
}

// ReReadFit is how predicted re-reads (OutputReRead.Predicted) match
// observed ones over a set of runs, per run and per output. Nil figures
// are undefined (too few points, or a constant side).
type ReReadFit struct {
	Runs         int   `json:"runs"`          // runs with at least one output
	RunsObserved int   `json:"runs_observed"` // of which with an observed re-read
	Outputs      int   `json:"outputs"`
	Predicted    int64 `json:"predicted"`
	Observed     int64 `json:"observed"`
	Unchanged    int64 `json:"observed_unchanged"`
	// Ratio is Predicted / Observed (over-prediction when above 1), with a
	// percentile bootstrap 95 % interval over runs (stats.SumRatio,
	// BootstrapB resamples, seed BootstrapSeed).
	Ratio   *float64  `json:"ratio"`
	RatioCI *Interval `json:"ratio_ci"`
	// RunSpearman is the Spearman ρ over runs of a run's predicted and
	// observed totals, with a Fisher-z 95 % interval (SpearmanCI);
	// SizeSpearman is the same ρ for the baseline that predicts a run's
	// outputs: what run length alone gives.
	RunSpearman   *float64  `json:"run_spearman"`
	RunSpearmanCI *Interval `json:"run_spearman_ci"`
	SizeSpearman  *float64  `json:"size_spearman"`
	// OutputSpearman is the Spearman ρ over outputs of (Predicted,
	// Observed). OutputAUC is the probability that an output with an
	// observed re-read has a higher Predicted than one without (ties count
	// one half; Mann–Whitney), with a percentile bootstrap 95 % interval
	// resampling runs (BootstrapB, seed BootstrapSeed).
	OutputSpearman *float64  `json:"output_spearman"`
	OutputAUC      *float64  `json:"output_auc"`
	OutputAUCCI    *Interval `json:"output_auc_ci"`
	// Calibration bins outputs by Predicted (OutputBins), RunCalibration
	// runs by their predicted total (RunBins).
	Calibration    []CalibrationBin `json:"calibration"`
	RunCalibration []CalibrationBin `json:"run_calibration"`
	// Dropped is the same comparison over the outputs a compaction of the
	// log dropped, after the drop (OutputReRead.Dropped).
	Dropped DropFit `json:"dropped"`
}

// DropFit compares, over the outputs the log's own compactions dropped,
// the predicted re-reads after the drop with the re-reads the log shows
// after it: Outputs of them, PredictedOutputs predicted (each at most
// once), ObservedOutputs read again (Observed times), Both both.
// Both / PredictedOutputs is the share of predictions the log bears out,
// Both / ObservedOutputs the share of re-reads predicted.
type DropFit struct {
	Outputs          int   `json:"outputs"`
	PredictedOutputs int   `json:"predicted_outputs"`
	ObservedOutputs  int   `json:"observed_outputs"`
	Both             int   `json:"both"`
	Observed         int64 `json:"observed"`
}

// Interval is a confidence interval.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// CalibrationBin is the outputs (or runs) whose predicted count lies in
// [Lo, Hi] (Hi −1: no upper bound): how many, their predicted and observed
// sums, and how many of them have an observed re-read. Observed / N is the
// bin's mean observed count, to set against its predicted counts.
type CalibrationBin struct {
	Lo           int64 `json:"lo"`
	Hi           int64 `json:"hi"`
	N            int   `json:"n"`
	Predicted    int64 `json:"predicted"`
	Observed     int64 `json:"observed"`
	WithObserved int   `json:"with_observed"`
}

// Calibration bins: the lower bounds of the output and run bins.
var (
	OutputBins = []int64{0, 1, 2, 3, 5}
	RunBins    = []int64{0, 1, 3, 6, 11}
)

// MinValidationTools is the fewest tools a Spearman ρ is computed over.
const MinValidationTools = 3

// Bootstrap parameters of ReReadFit's intervals.
const (
	BootstrapB    = 1000
	BootstrapSeed = 1
)

// ReReadSplit names the split of ReReadValidation's halves.
var ReReadSplit = holdout.Rule(2)

// ReReadValidator accumulates OutputReReads over runs. Its Result does not
// depend on the order the runs are added in.
type ReReadValidator struct {
	runs int
	by   map[string]*ToolReReads
	pts  []runCells
}

// cell is a (Predicted, Observed) value pair.
type cell struct{ p, o int64 }

// runCells is one run's outputs as counts of their (Predicted, Observed)
// pairs, sorted by cell.
type runCells struct {
	id        string
	held      bool
	cells     []cell
	n         []int
	unchanged int64 // Σ OutputReRead.Unchanged
	dropped   DropFit
}

// Add adds one run's outputs (OutputReReads). The per-tool figure leaves
// out a run with no observed re-read; the per-run and per-output figures
// leave out a run with no output.
func (v *ReReadValidator) Add(runID string, outs []OutputReRead) {
	if len(outs) == 0 {
		return
	}
	counts := map[cell]int{}
	var obs int64
	rc := runCells{id: runID, held: holdout.Held(runID, 2)}
	for _, o := range outs {
		counts[cell{o.Predicted, o.Observed}]++
		obs += o.Observed
		rc.unchanged += o.Unchanged
		if o.Dropped {
			d := &rc.dropped
			d.Outputs++
			d.Observed += o.ObservedAfterDrop
			p, ob := o.PredictedAfterDrop > 0, o.ObservedAfterDrop > 0
			if p {
				d.PredictedOutputs++
			}
			if ob {
				d.ObservedOutputs++
			}
			if p && ob {
				d.Both++
			}
		}
	}
	for c := range counts {
		rc.cells = append(rc.cells, c)
	}
	slices.SortFunc(rc.cells, func(a, b cell) int { return cmp.Or(cmp.Compare(a.p, b.p), cmp.Compare(a.o, b.o)) })
	for _, c := range rc.cells {
		rc.n = append(rc.n, counts[c])
	}
	v.pts = append(v.pts, rc)
	if obs == 0 {
		return
	}
	v.runs++
	if v.by == nil {
		v.by = map[string]*ToolReReads{}
	}
	for _, r := range byTool(outs) {
		if r.Predicted == 0 && r.Observed == 0 {
			continue
		}
		s := v.by[r.Tool]
		if s == nil {
			s = &ToolReReads{Tool: r.Tool}
			v.by[r.Tool] = s
		}
		s.Predicted += r.Predicted
		s.Observed += r.Observed
	}
}

// Result returns the validation over the runs added so far.
func (v *ReReadValidator) Result() ReReadValidation {
	res := ReReadValidation{Runs: v.runs, Tools: []ToolReReads{}, Split: ReReadSplit}
	for _, r := range v.by {
		res.Tools = append(res.Tools, *r)
	}
	slices.SortFunc(res.Tools, func(a, b ToolReReads) int { return cmp.Compare(a.Tool, b.Tool) })
	if len(res.Tools) >= MinValidationTools {
		x := make([]float64, len(res.Tools))
		y := make([]float64, len(res.Tools))
		for i, r := range res.Tools {
			x[i], y[i] = float64(r.Predicted), float64(r.Observed)
		}
		res.Spearman = finite(Spearman(x, y))
	}
	// by run id, so that the bootstrap draws do not depend on the order
	// the runs were added in
	slices.SortStableFunc(v.pts, func(a, b runCells) int { return cmp.Compare(a.id, b.id) })
	var train, held []runCells
	for _, r := range v.pts {
		if r.held {
			held = append(held, r)
		} else {
			train = append(train, r)
		}
	}
	res.All, res.Train, res.Held = fit(v.pts), fit(train), fit(held)
	return res
}

// fit computes a ReReadFit over runs.
func fit(runs []runCells) ReReadFit {
	f := ReReadFit{Runs: len(runs), Calibration: bins(OutputBins), RunCalibration: bins(RunBins)}
	rp := make([]float64, len(runs)) // per run: predicted, observed, outputs
	ro := make([]float64, len(runs))
	rn := make([]float64, len(runs))
	all := map[cell]int{}
	for i, r := range runs {
		for j, c := range r.cells {
			n := r.n[j]
			all[c] += n
			rp[i] += float64(c.p) * float64(n)
			ro[i] += float64(c.o) * float64(n)
			rn[i] += float64(n)
			b := &f.Calibration[binOf(OutputBins, c.p)]
			b.N += n
			b.Predicted += c.p * int64(n)
			b.Observed += c.o * int64(n)
			if c.o > 0 {
				b.WithObserved += n
			}
		}
		f.Outputs += int(rn[i])
		f.Predicted += int64(rp[i])
		f.Observed += int64(ro[i])
		f.Unchanged += r.unchanged
		f.Dropped.Outputs += r.dropped.Outputs
		f.Dropped.PredictedOutputs += r.dropped.PredictedOutputs
		f.Dropped.ObservedOutputs += r.dropped.ObservedOutputs
		f.Dropped.Both += r.dropped.Both
		f.Dropped.Observed += r.dropped.Observed
		if ro[i] > 0 {
			f.RunsObserved++
		}
		b := &f.RunCalibration[binOf(RunBins, int64(rp[i]))]
		b.N++
		b.Predicted += int64(rp[i])
		b.Observed += int64(ro[i])
		if ro[i] > 0 {
			b.WithObserved++
		}
	}
	if f.Observed > 0 {
		r, lo, hi := stats.SumRatio(rp, ro, BootstrapB, 0.95, BootstrapSeed)
		f.Ratio = finite(r)
		if !math.IsNaN(lo) && !math.IsNaN(hi) {
			f.RatioCI = &Interval{lo, hi}
		}
	}
	if rho := Spearman(rp, ro); !math.IsNaN(rho) {
		f.RunSpearman = &rho
		if lo, hi, ok := SpearmanCI(rho, len(runs), 0.95); ok {
			f.RunSpearmanCI = &Interval{lo, hi}
		}
	}
	f.SizeSpearman = finite(Spearman(rn, ro))
	cells := make([]cell, 0, len(all))
	for c := range all {
		cells = append(cells, c)
	}
	slices.SortFunc(cells, func(a, b cell) int { return cmp.Or(cmp.Compare(a.p, b.p), cmp.Compare(a.o, b.o)) })
	ns := make([]int, len(cells))
	for i, c := range cells {
		ns[i] = all[c]
	}
	f.OutputSpearman = finite(cellSpearman(cells, ns))
	f.OutputAUC = finite(cellAUC(cells, ns))
	if f.OutputAUC != nil {
		f.OutputAUCCI = aucCI(runs, BootstrapB, 0.95, BootstrapSeed)
	}
	return f
}

// bins returns empty calibration bins with the lower bounds lows.
func bins(lows []int64) []CalibrationBin {
	out := make([]CalibrationBin, len(lows))
	for i, lo := range lows {
		out[i] = CalibrationBin{Lo: lo, Hi: -1}
		if i+1 < len(lows) {
			out[i].Hi = lows[i+1] - 1
		}
	}
	return out
}

// binOf is the index of the bin of lows that holds v (v ≥ lows[0]).
func binOf(lows []int64, v int64) int {
	i := len(lows) - 1
	for i > 0 && v < lows[i] {
		i--
	}
	return i
}

// finite returns &v, or nil when v is NaN.
func finite(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

// Spearman is the Spearman rank correlation of x and y (stats.Spearman).
var Spearman = stats.Spearman

// SpearmanCI returns a confidence interval at level for a Spearman ρ over n
// pairs: tanh(atanh(ρ) ± z·σ) with σ² = (1 + ρ²/2) / (n − 3) (Bonett and
// Wright 2000, Fisher's z with their variance for Spearman's ρ) and z the
// standard normal (1+level)/2 quantile. ok is false when n < 4 or |ρ| = 1.
func SpearmanCI(rho float64, n int, level float64) (lo, hi float64, ok bool) {
	if n < 4 || math.IsNaN(rho) || math.Abs(rho) >= 1 || level <= 0 || level >= 1 {
		return 0, 0, false
	}
	z := math.Atanh(rho)
	s := math.Sqrt((1 + rho*rho/2) / float64(n-3))
	q := math.Sqrt2 * math.Erfinv(level)
	return math.Tanh(z - q*s), math.Tanh(z + q*s), true
}

// cellSpearman is Spearman's ρ over points given as distinct (p, o) cells
// with counts: the Pearson correlation of their average ranks, each cell
// weighted by its count. NaN when either side is constant.
func cellSpearman(cells []cell, ns []int) float64 {
	rp := midranks(cells, ns, func(c cell) int64 { return c.p })
	ro := midranks(cells, ns, func(c cell) int64 { return c.o })
	var n, mp, mo float64
	for i := range cells {
		w := float64(ns[i])
		n += w
		mp += w * rp[i]
		mo += w * ro[i]
	}
	if n < 2 {
		return math.NaN()
	}
	mp /= n
	mo /= n
	var sxy, sxx, syy float64
	for i := range cells {
		w := float64(ns[i])
		dx, dy := rp[i]-mp, ro[i]-mo
		sxy += w * dx * dy
		sxx += w * dx * dx
		syy += w * dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// midranks returns, per cell, the average 1-based rank of its value v(c)
// among all points (each cell counted ns[i] times).
func midranks(cells []cell, ns []int, v func(cell) int64) []float64 {
	tot := map[int64]int{}
	for i, c := range cells {
		tot[v(c)] += ns[i]
	}
	vals := make([]int64, 0, len(tot))
	for x := range tot {
		vals = append(vals, x)
	}
	slices.Sort(vals)
	rank := map[int64]float64{}
	below := 0
	for _, x := range vals {
		rank[x] = float64(below) + float64(tot[x]+1)/2
		below += tot[x]
	}
	out := make([]float64, len(cells))
	for i, c := range cells {
		out[i] = rank[v(c)]
	}
	return out
}

// cellAUC is the Mann–Whitney AUC of p for o > 0 over points given as cells
// with counts, the cells sorted by p: over every pair of a point with o > 0
// and one with o = 0, the share whose first has the higher p, ties counting
// one half. NaN without points of both kinds.
func cellAUC(cells []cell, ns []int) float64 {
	var np, nn, wins float64
	var negBelow float64 // negatives with a lower p than the current group
	for i := 0; i < len(cells); {
		j := i
		var pos, neg float64
		for ; j < len(cells) && cells[j].p == cells[i].p; j++ {
			if cells[j].o > 0 {
				pos += float64(ns[j])
			} else {
				neg += float64(ns[j])
			}
		}
		wins += pos*negBelow + pos*neg/2
		negBelow += neg
		np += pos
		nn += neg
		i = j
	}
	if np == 0 || nn == 0 {
		return math.NaN()
	}
	return wins / (np * nn)
}

// aucCI is a percentile bootstrap interval for cellAUC over runs: B
// resamples of the runs with replacement (math/rand/v2 PCG seeded with
// (seed, 0)), the AUC of the pooled cells of each, its (1−level)/2 and
// (1+level)/2 empirical quantiles; resamples without both kinds of output
// are skipped. Nil with fewer than 2 runs or no usable resample.
func aucCI(runs []runCells, B int, level float64, seed uint64) *Interval {
	if len(runs) < 2 {
		return nil
	}
	// the distinct cells, sorted, and each run's cells as indices into them
	idx := map[cell]int{}
	for _, r := range runs {
		for _, c := range r.cells {
			idx[c] = 0
		}
	}
	cells := make([]cell, 0, len(idx))
	for c := range idx {
		cells = append(cells, c)
	}
	slices.SortFunc(cells, func(a, b cell) int { return cmp.Or(cmp.Compare(a.p, b.p), cmp.Compare(a.o, b.o)) })
	for i, c := range cells {
		idx[c] = i
	}
	type ref struct{ i, n int }
	refs := make([][]ref, len(runs))
	for k, r := range runs {
		for j, c := range r.cells {
			refs[k] = append(refs[k], ref{idx[c], r.n[j]})
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	aucs := make([]float64, 0, B)
	ns := make([]int, len(cells))
	for range B {
		clear(ns)
		for range runs {
			for _, f := range refs[rng.IntN(len(runs))] {
				ns[f.i] += f.n
			}
		}
		if a := cellAUC(cells, ns); !math.IsNaN(a) {
			aucs = append(aucs, a)
		}
	}
	if len(aucs) == 0 {
		return nil
	}
	slices.Sort(aucs)
	alpha := (1 - level) / 2
	return &Interval{stat.Quantile(alpha, stat.Empirical, aucs, nil), stat.Quantile(1-alpha, stat.Empirical, aucs, nil)}
}
