package simulate

import (
	"math"
	"slices"

	"github.com/trajmine/trajmine/internal/stats"
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
//	B: A plus, for every earlier call since the latest user message, the
//	   output tokens the log bills beyond its recorded output items (hidden
//	   reasoning a harness sends back within a turn, e.g. Codex's encrypted
//	   reasoning items, which the API drops once a new user message comes)
//
// (B per turn when the logged input falls after a new user message, else
// kept), and, for each, fits y = prefix + factor × x:
//
//   - 3 or more calls with varying x: a robust line fit (Theil–Sen, see lineFit; TokensFit),
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
	// accounts: 0 = items only, 1 = carried output kept, 2 = carried output
	// dropped at each new user message
	var xs [3][]float64
	var ys []float64
	var newTurn []bool // a user message arrived since the previous logged call
	var sum, kept, turn int64
	j := 0
	sawUser := false
	for t := 0; t < tr.NCalls && t < tr.FirstCompaction; t++ {
		user := false
		for j < len(tr.Admit) && int(tr.Items[tr.Admit[j]].Since) <= t {
			it := &tr.Items[tr.Admit[j]]
			sum += int64(it.Tokens)
			user = user || (it.Kind == ItemUser && !it.Head)
			j++
		}
		if t > 0 {
			kept += carry[t-1]
			turn += carry[t-1]
		}
		if user {
			turn = 0 // a new user message: the turn's carried reasoning goes
			sawUser = true
		}
		if tr.Logged[t] > 0 {
			newTurn = append(newTurn, sawUser)
			sawUser = false
			xs[0] = append(xs[0], float64(sum))
			xs[1] = append(xs[1], float64(sum+kept))
			xs[2] = append(xs[2], float64(sum+turn))
			ys = append(ys, float64(tr.Logged[t]))
		}
	}
	src := TokensAnchor
	if fallback != 1 {
		src = TokensCalibration
	}
	// fit returns the model for (x, y) and its mean |relative residual|
	fit := func(x, y []float64) (h, f float64, fitted bool, resid float64) {
		h, f, fitted = lineFit(x, y)
		if !fitted {
			f, h = fallback, max(y[0]-fallback*x[0], 0)
		}
		for i := range x {
			resid += math.Abs(h+f*x[i]-y[i]) / y[i]
		}
		return h, f, fitted, resid / float64(len(x))
	}
	// choose fits items-only and one carried account on the first n points
	// and returns the better (items-only on ties). The carried account is
	// per-turn when the log shows its signature, the logged input falling
	// after a new user message, else kept.
	choose := func(n int) (h, f float64, fitted bool, acct int) {
		h, f, fitted, best := fit(xs[0][:n], ys[:n])
		a := 1
		for i := 1; i < n; i++ {
			if newTurn[i] && ys[i] < ys[i-1] {
				a = 2
				break
			}
		}
		if slices.Equal(xs[a][:n], xs[0][:n]) {
			return h, f, fitted, 0
		}
		if ha, fa, oka, r := fit(xs[a][:n], ys[:n]); r < best {
			return ha, fa, oka, a
		}
		return h, f, fitted, 0
	}
	n := len(ys)
	m := TokenModel{Source: TokensEstimate, Factor: 1}
	acct := 0
	if n > 0 {
		var h, f float64
		var fitted bool
		h, f, fitted, acct = choose(n)
		m = TokenModel{Source: TokensFit, Factor: f, Prefix: int64(math.Round(h)), Calls: n}
		if !fitted {
			m.Source = src
		}
		switch acct {
		case 1:
			m.Source += "+carried-output"
		case 2:
			m.Source += "+carried-output-per-turn"
		}
	}
	// out of sample
	switch {
	case n >= 4:
		k := (n + 1) / 2
		h, f, fitted, a := choose(k)
		tr.HoldoutFitted = fitted
		x := xs[a]
		for i := k; i < n; i++ {
			tr.Holdout = append(tr.Holdout, (h+f*x[i]-ys[i])/ys[i])
		}
	case n >= 2:
		h := max(ys[0]-fallback*xs[0][0], 0)
		for i := 1; i < n; i++ {
			tr.Holdout = append(tr.Holdout, (h+fallback*xs[0][i]-ys[i])/ys[i])
		}
	}
	tr.Tokens, tr.Prefix = m, m.Prefix
	if m.Factor != 1 {
		for i := range tr.Items {
			it := &tr.Items[i]
			it.Tokens = int32(min(math.Round(float64(it.Tokens)*m.Factor), math.MaxInt32))
		}
	}
	if acct > 0 {
		tr.addCarried(carry, m.Factor, acct == 2)
	}
}

// addCarried inserts, after each call's last output item, a reasoning item
// holding the call's carried output tokens (× factor), visible from the next
// call on.
func (tr *Trace) addCarried(carry []int64, factor float64, perTurn bool) {
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
	// per turn: a carried item lasts until the call before the next user message
	nextUser := int32(tr.NCalls + 1)
	for i := len(items) - 1; i >= 0 && perTurn; i-- {
		it := &items[i]
		if it.Kind == ItemUser && !it.Head {
			nextUser = it.Since
		}
		if it.Carried {
			it.Until = nextUser - 1
		}
	}
	tr.Items = items
	tr.Admit = admissionOrder(tr.Items)
	tr.Expire = expiryOrder(tr.Items)
	tr.remap = remap
}

// lineFit fits y = h + f·x robustly (Theil–Sen): f is the median of the
// slopes between pairs of points with different x, h the median of y − f·x
// (clamped at ≥ 0, f refitted as the median of y/x then). A single jump the
// events do not explain (an attachment the log omits) moves few pairs, so it
// does not tilt the line as least squares would. ok when there are ≥ 3
// points, x varies and f is within [minFactor, maxFactor]. Over 64 points
// an evenly spaced subsample of 64 is used (cost bounded by 2,016 pairs).
func lineFit(xs, ys []float64) (h, f float64, ok bool) {
	if len(xs) < 3 {
		return 0, 0, false
	}
	const most = 64
	if n := len(xs); n > most {
		sx, sy := make([]float64, most), make([]float64, most)
		for i := range sx {
			k := i * (n - 1) / (most - 1)
			sx[i], sy[i] = xs[k], ys[k]
		}
		xs, ys = sx, sy
	}
	slopes := make([]float64, 0, len(xs)*(len(xs)-1)/2)
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			if dx := xs[j] - xs[i]; dx != 0 {
				slopes = append(slopes, (ys[j]-ys[i])/dx)
			}
		}
	}
	if len(slopes) == 0 {
		return 0, 0, false
	}
	f = stats.Median(slopes)
	res := make([]float64, len(xs))
	for i := range xs {
		res[i] = ys[i] - f*xs[i]
	}
	h = stats.Median(res)
	if h < 0 {
		ratios := res[:0]
		for i := range xs {
			if xs[i] > 0 {
				ratios = append(ratios, ys[i]/xs[i])
			}
		}
		h, f = 0, stats.Median(ratios)
	}
	if f < minFactor || f > maxFactor || math.IsNaN(f) {
		return 0, 0, false
	}
	return h, f, true
}
