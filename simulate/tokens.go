package simulate

import (
	"math"
)

// Token-model sources.
const (
	TokensFit         = "fit"         // per-run least squares over the run's logged calls
	TokensCalibration = "calibration" // the stored format × model factor, prefix anchored at the first logged call
	TokensAnchor      = "anchor"      // factor 1, prefix anchored at the first logged call
	TokensEstimate    = "estimate"    // no logged input: estimated tokens as they are, no prefix
)

// TokenModel says how a trace's item tokens were tied to its logged input.
type TokenModel struct {
	Source string  `json:"source"`
	Factor float64 `json:"factor"` // item tokens = round(est_tokens × Factor)
	Prefix int64   `json:"prefix"` // hidden prefix tokens
	Calls  int     `json:"calls"`  // logged calls the model was fitted on
}

// Fit bounds: a per-run factor outside them means the estimate and the log
// disagree about what the prompt holds; the fallback is used instead.
const (
	minFactor = 0.25
	maxFactor = 4
)

// fitTokens ties the estimated item tokens to the logged input and scales
// the items. Over the run's logged calls before its first logged compaction,
// with y(t) the logged input and x(t) the estimated tokens of the items
// visible to call t, it tries two accounts of what a prompt carries:
//
//	A: the recorded items only
//	B: A plus, for every earlier call, the output tokens the log bills beyond
//	   its recorded output items (hidden reasoning a harness sends back,
//	   e.g. Codex's encrypted reasoning items)
//
// and, for each, fits y = prefix + factor × x:
//
//   - 3 or more calls with varying x: ordinary least squares (TokensFit),
//     kept when factor is within [0.25, 4] (the prefix clamped at ≥ 0);
//   - otherwise the stored calibration factor (TokensCalibration) or 1
//     (TokensAnchor), the prefix anchored at the first logged call:
//     prefix = max(y − factor × x, 0);
//   - no logged call: items as estimated, no prefix (TokensEstimate).
//
// The account with the smaller mean |relative residual| wins (A on ties);
// under B the carried tokens become reasoning items of their calls. Holdout
// errors measure the whole procedure out of sample: run on the first half of
// the logged calls (rounded up), it predicts the second half; each error is
// (predicted − logged) / logged. A run with 2–3 logged calls is anchored on
// its first and checked on the rest.
func (tr *Trace) fitTokens(fallback float64, carry []int64) {
	if fallback <= 0 {
		fallback = 1
	}
	var xa, xb, ys []float64
	var sum, carried int64
	j := 0
	for t := 0; t < tr.NCalls && t < tr.FirstCompaction; t++ {
		for j < len(tr.Admit) && int(tr.Items[tr.Admit[j]].Since) <= t {
			sum += int64(tr.Items[tr.Admit[j]].Tokens)
			j++
		}
		if t > 0 {
			carried += carry[t-1]
		}
		if tr.Logged[t] > 0 {
			xa = append(xa, float64(sum))
			xb = append(xb, float64(sum+carried))
			ys = append(ys, float64(tr.Logged[t]))
		}
	}
	src := TokensAnchor
	if fallback != 1 {
		src = TokensCalibration
	}
	// fit returns the model for (x, y) and its mean |relative residual|
	fit := func(x, y []float64) (h, f float64, fitted bool, resid float64) {
		h, f, fitted = olsFit(x, y)
		if !fitted {
			f, h = fallback, max(y[0]-fallback*x[0], 0)
		}
		for i := range x {
			resid += math.Abs(h+f*x[i]-y[i]) / y[i]
		}
		return h, f, fitted, resid / float64(len(x))
	}
	// choose fits both accounts on the first n points and returns the better
	choose := func(n int) (h, f float64, fitted, b bool) {
		ha, fa, oka, ra := fit(xa[:n], ys[:n])
		hb, fb, okb, rb := fit(xb[:n], ys[:n])
		if rb < ra && xb[n-1] != xa[n-1] {
			return hb, fb, okb, true
		}
		return ha, fa, oka, false
	}
	n := len(ys)
	m := TokenModel{Source: TokensEstimate, Factor: 1}
	useB := false
	if n > 0 {
		h, f, fitted, b := choose(n)
		m = TokenModel{Source: TokensFit, Factor: f, Prefix: int64(math.Round(h)), Calls: n}
		if !fitted {
			m.Source = src
		}
		useB = b
		if b {
			m.Source += "+carried-output"
		}
	}
	// out of sample
	switch {
	case n >= 4:
		k := (n + 1) / 2
		h, f, _, b := choose(k)
		x := xa
		if b {
			x = xb
		}
		for i := k; i < n; i++ {
			tr.Holdout = append(tr.Holdout, (h+f*x[i]-ys[i])/ys[i])
		}
	case n >= 2:
		h := max(ys[0]-fallback*xa[0], 0)
		for i := 1; i < n; i++ {
			tr.Holdout = append(tr.Holdout, (h+fallback*xa[i]-ys[i])/ys[i])
		}
	}
	tr.Tokens, tr.Prefix = m, m.Prefix
	if m.Factor != 1 {
		for i := range tr.Items {
			it := &tr.Items[i]
			it.Tokens = int32(min(math.Round(float64(it.Tokens)*m.Factor), math.MaxInt32))
		}
	}
	if useB {
		tr.addCarried(carry, m.Factor)
	}
}

// addCarried inserts, after each call's last output item, a reasoning item
// holding the call's carried output tokens (× factor), visible from the next
// call on.
func (tr *Trace) addCarried(carry []int64, factor float64) {
	last := make([]int, tr.NCalls) // index in Items after which call t's carried item goes
	for t := range last {
		last[t] = -1
	}
	for i, it := range tr.Items {
		if (it.Kind == ItemAssistant || it.Kind == ItemReasoning || it.Kind == ItemToolCall) && it.Since >= 1 && int(it.Since) <= tr.NCalls {
			last[it.Since-1] = i
		}
	}
	items := make([]Item, 0, len(tr.Items)+tr.NCalls)
	remap := make([]int32, len(tr.Items))
	next := 0
	for t := 0; t < tr.NCalls; t++ {
		if carry[t] <= 0 || last[t] < 0 {
			continue
		}
		for ; next <= last[t]; next++ {
			remap[next] = int32(len(items))
			items = append(items, tr.Items[next])
		}
		it := tr.Items[last[t]]
		items = append(items, Item{Seq: it.Seq, Since: int32(t + 1), Kind: ItemReasoning, Call: -1, Carried: true,
			Tokens: int32(min(math.Round(float64(carry[t])*factor), math.MaxInt32))})
	}
	for ; next < len(tr.Items); next++ {
		remap[next] = int32(len(items))
		items = append(items, tr.Items[next])
	}
	for i := range items {
		if items[i].Call >= 0 {
			items[i].Call = remap[items[i].Call]
		}
	}
	tr.Items = items
	tr.Admit = admissionOrder(tr.Items)
	tr.remap = remap
}

// olsFit fits y = h + f·x by least squares; ok when there are ≥ 3 points,
// x varies and f is within [minFactor, maxFactor]. h is clamped at ≥ 0
// (f refitted through the origin then).
func olsFit(xs, ys []float64) (h, f float64, ok bool) {
	n := float64(len(xs))
	if len(xs) < 3 {
		return 0, 0, false
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= n
	my /= n
	var sxx, sxy float64
	for i := range xs {
		sxx += (xs[i] - mx) * (xs[i] - mx)
		sxy += (xs[i] - mx) * (ys[i] - my)
	}
	if sxx <= 0 {
		return 0, 0, false
	}
	f = sxy / sxx
	h = my - f*mx
	if h < 0 {
		var sxy0, sxx0 float64
		for i := range xs {
			sxx0 += xs[i] * xs[i]
			sxy0 += xs[i] * ys[i]
		}
		h, f = 0, sxy0/sxx0
	}
	if f < minFactor || f > maxFactor || math.IsNaN(f) {
		return 0, 0, false
	}
	return h, f, true
}
