package mining

import (
	"cmp"
	"slices"
)

// Deviation is one step of a case that the model does not allow.
type Deviation struct {
	// Pos is the 1-based position of To in the case; len+1 for the end ■.
	Pos  int    `json:"pos"`
	From string `json:"from"` // the previous activity, ▶ at the start
	To   string `json:"to"`   // the activity, ■ at the end
}

// CaseFitness is the replay of one case.
type CaseFitness struct {
	Case       string      `json:"case"`
	Fitness    float64     `json:"fitness"`
	Produced   int         `json:"produced"`
	Consumed   int         `json:"consumed"`
	Missing    int         `json:"missing"`
	Remaining  int         `json:"remaining"`
	Deviations []Deviation `json:"deviations"` // in case order
}

// DeviationCount is how often one disallowed step occurs over the log.
type DeviationCount struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Count int    `json:"count"` // occurrences
	Cases int    `json:"cases"` // cases with at least one
}

// Conformance is the replay of a log on a model.
type Conformance struct {
	Cases []CaseFitness `json:"cases"` // in log order
	// Fitness is the log's token-replay fitness: the formula over the
	// counts summed over all cases.
	Fitness float64 `json:"fitness"`
	// MeanFitness is the mean of the cases' fitness.
	MeanFitness float64 `json:"mean_fitness"`
	// Fitting is the number of cases with fitness 1 (no deviation).
	Fitting int `json:"fitting"`
	// Deviations counts every disallowed step, by count (descending), then
	// From, then To.
	Deviations []DeviationCount `json:"deviations"`
}

// Conform replays every case of l on m by token replay and lists each
// case's deviations.
//
// The model is read as a Petri net: one place per node (▶, each activity,
// ■) and, per arc x → b, one transition labelled b that moves a token from
// place x to place b. A case a1 … ak is replayed from one token in ▶
// (produced p = 1), firing for each event ai a transition labelled ai, then
// one labelled ■, then consuming the token in ■ (c + 1):
//
//  1. firing consumes one token from its input place (c + 1) and produces
//     one in place ai (p + 1);
//  2. among the arcs x → ai whose place x holds a token, it uses the
//     previous event's place when allowed, else the place marked most
//     recently;
//  3. when no such place holds a token (ai does not follow anything marked,
//     or ai is not in the model), the token is missing (m + 1) and created
//     to be consumed; the tokens left elsewhere stay;
//  4. tokens still in places at the end, other than the one consumed from
//     ■, are remaining (r).
//
// fitness = 1 − ½ · m / c − ½ · r / p (van der Aalst's token-replay
// fitness). A case that follows the model's arcs has m = r = 0 and fitness
// 1; each step out of the model costs one missing token and usually leaves
// one remaining. Example: model ▶ → a → b → ■ and case a c b: c is not in
// the model, so its token is missing (m = 1) and the token in a stays; b
// then takes that token (a → b); the token produced in c is never used
// (r = 1); p = 5 (▶, a, c, b, ■), c = 5 (a, c, b, ■ and the final one), so
// fitness = 1 − ½ · 1/5 − ½ · 1/5 = 0.8.
//
// Deviations are the steps (previous activity, activity), with ▶ before the
// first and ■ after the last, that are not arcs of the model. Cases with
// the same activity sequence (a variant) are replayed once.
func Conform(l *Log, m *Model) *Conformance {
	n := len(l.Activities)
	start, end := int32(n), int32(n+1)
	// model arcs over the log's node indices; model activities not in the
	// log get indices after ■
	ids := map[string]int32{Start: start, End: end}
	for i, a := range l.Activities {
		ids[a] = int32(i)
	}
	extra := int32(n + 2)
	id := func(s string) int32 {
		if v, ok := ids[s]; ok {
			return v
		}
		ids[s] = extra
		extra++
		return extra - 1
	}
	in := map[int32][]int32{} // b → the x with x → b
	allowed := map[uint64]bool{}
	for _, a := range m.Arcs {
		x, b := id(a.From), id(a.To)
		allowed[pairKey(x, b)] = true
		in[b] = append(in[b], x)
	}
	for _, xs := range in {
		slices.Sort(xs)
	}
	name := func(i int32) string {
		switch i {
		case start:
			return Start
		case end:
			return End
		}
		return l.Activities[i]
	}

	res := &Conformance{Cases: make([]CaseFitness, len(l.Cases))}
	type replay struct {
		p, c, mi, r int
		devs        []Deviation
	}
	done := map[string]*replay{}
	var key []byte
	var sp, sc, sm, sr int
	devCount := map[uint64]*DeviationCount{}
	devLast := map[uint64]int{}
	mark := newMarking()
	for ci := range l.Cases {
		evs := l.Cases[ci].Events
		key = variantKey(key[:0], evs)
		rp, ok := done[string(key)]
		if !ok {
			rp = &replay{p: 1}
			mark.reset(start)
			prev := start
			step := func(pos int, b int32) {
				rp.c++
				rp.p++
				if !allowed[pairKey(prev, b)] {
					rp.devs = append(rp.devs, Deviation{Pos: pos, From: name(prev), To: name(b)})
				}
				if !mark.take(prev, b, in[b], allowed) {
					rp.mi++
				}
				mark.put(b)
				prev = b
			}
			for i, e := range evs {
				step(i+1, e.Activity)
			}
			step(len(evs)+1, end)
			// consume the final token from ■
			rp.c++
			mark.remove(end)
			rp.r = mark.total()
			done[string(key)] = rp
		}
		cf := CaseFitness{Case: l.Cases[ci].ID, Produced: rp.p, Consumed: rp.c, Missing: rp.mi, Remaining: rp.r, Deviations: rp.devs}
		cf.Fitness = fitness(rp.p, rp.c, rp.mi, rp.r)
		res.Cases[ci] = cf
		sp, sc, sm, sr = sp+rp.p, sc+rp.c, sm+rp.mi, sr+rp.r
		res.MeanFitness += cf.Fitness
		if len(rp.devs) == 0 && rp.mi == 0 && rp.r == 0 {
			res.Fitting++
		}
		for _, d := range rp.devs {
			k := pairKey(id(d.From), id(d.To))
			dc := devCount[k]
			if dc == nil {
				dc = &DeviationCount{From: d.From, To: d.To}
				devCount[k] = dc
			}
			dc.Count++
			if devLast[k] != ci+1 {
				devLast[k] = ci + 1
				dc.Cases++
			}
		}
	}
	if len(l.Cases) > 0 {
		res.MeanFitness /= float64(len(l.Cases))
		res.Fitness = fitness(sp, sc, sm, sr)
	} else {
		res.Fitness, res.MeanFitness = 1, 1
	}
	for _, dc := range devCount {
		res.Deviations = append(res.Deviations, *dc)
	}
	slices.SortFunc(res.Deviations, func(a, b DeviationCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmpEdge(a.From, a.To, b.From, b.To)
	})
	return res
}

// fitness = 1 − ½ m/c − ½ r/p.
func fitness(p, c, m, r int) float64 {
	f := 1.0
	if c > 0 {
		f -= 0.5 * float64(m) / float64(c)
	}
	if p > 0 {
		f -= 0.5 * float64(r) / float64(p)
	}
	return f
}

// marking is a multiset of places with the step each was last marked at.
type marking struct {
	places []int32
	tokens []int
	when   []int
	clock  int
}

func newMarking() *marking { return &marking{} }

func (m *marking) reset(start int32) {
	m.places, m.tokens, m.when = m.places[:0], m.tokens[:0], m.when[:0]
	m.clock = 0
	m.put(start)
}

func (m *marking) find(p int32) int {
	for i, q := range m.places {
		if q == p {
			return i
		}
	}
	return -1
}

func (m *marking) put(p int32) {
	m.clock++
	if i := m.find(p); i >= 0 {
		m.tokens[i]++
		m.when[i] = m.clock
		return
	}
	m.places = append(m.places, p)
	m.tokens = append(m.tokens, 1)
	m.when = append(m.when, m.clock)
}

func (m *marking) remove(p int32) bool {
	i := m.find(p)
	if i < 0 {
		return false
	}
	m.tokens[i]--
	if m.tokens[i] == 0 {
		last := len(m.places) - 1
		m.places[i], m.tokens[i], m.when[i] = m.places[last], m.tokens[last], m.when[last]
		m.places, m.tokens, m.when = m.places[:last], m.tokens[:last], m.when[:last]
	}
	return true
}

// take consumes the token for a transition labelled b: from prev when prev
// → b is allowed and prev is marked, else from the most recently marked
// place x with x → b. It reports false when no such place is marked.
func (m *marking) take(prev, b int32, inputs []int32, allowed map[uint64]bool) bool {
	if allowed[pairKey(prev, b)] && m.remove(prev) {
		return true
	}
	best, bestWhen := -1, -1
	for i, p := range m.places {
		if m.when[i] > bestWhen {
			if _, ok := slices.BinarySearch(inputs, p); ok {
				best, bestWhen = i, m.when[i]
			}
		}
	}
	if best < 0 {
		return false
	}
	m.remove(m.places[best])
	return true
}

func (m *marking) total() int {
	t := 0
	for _, k := range m.tokens {
		t += k
	}
	return t
}
