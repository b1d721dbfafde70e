package mining

import "slices"

// HeuristicsOptions are the thresholds of the heuristics miner. A nil
// *HeuristicsOptions means DefaultHeuristics; otherwise every field is used
// as given.
type HeuristicsOptions struct {
	// DependencyThreshold: an arc a → b needs a ⇒ b at least this. Default 0.9.
	DependencyThreshold float64 `json:"dependency_threshold"`
	// PositiveObservations: an arc a → b needs |a > b| at least this (a
	// loop, its own count). Default 1.
	PositiveObservations int `json:"positive_observations"`
	// RelativeToBest: an arc a → b needs a ⇒ b within this of the best
	// dependency out of a or of the best into b. Default 0.05.
	RelativeToBest float64 `json:"relative_to_best"`
	// LengthOneLoopThreshold: a self-loop a → a needs a ⇒ a at least this.
	// Default 0.9.
	LengthOneLoopThreshold float64 `json:"length_one_loop_threshold"`
	// LengthTwoLoopThreshold: a loop a → b → a needs a ⇒₂ b at least this.
	// Default 0.9.
	LengthTwoLoopThreshold float64 `json:"length_two_loop_threshold"`
	// AllTasksConnected keeps, whatever the thresholds, every node's best
	// follower and best cause, so that every activity is on a path from ▶
	// to ■. Default true.
	AllTasksConnected bool `json:"all_tasks_connected"`
}

// DefaultHeuristics are the defaults of the Flexible Heuristics Miner
// (Weijters & Ribeiro 2011) as ProM ships them.
var DefaultHeuristics = HeuristicsOptions{
	DependencyThreshold:    0.9,
	PositiveObservations:   1,
	RelativeToBest:         0.05,
	LengthOneLoopThreshold: 0.9,
	LengthTwoLoopThreshold: 0.9,
	AllTasksConnected:      true,
}

// Arc reasons: why a heuristics-net arc was kept.
const (
	ReasonThreshold    = "threshold"     // passed all three thresholds
	ReasonBestFollower = "best-follower" // all tasks connected: best a ⇒ x of a
	ReasonBestCause    = "best-cause"    // all tasks connected: best x ⇒ b of b
	ReasonLoop1        = "loop1"         // length-one loop
	ReasonLoop2        = "loop2"         // length-two loop
)

// Dependency is the dependency measure of one ordered pair of nodes seen
// directly following each other (in either direction).
type Dependency struct {
	From  string  `json:"from"`
	To    string  `json:"to"`
	Count int     `json:"count"`       // |a > b|
	Back  int     `json:"back"`        // |b > a|
	Value float64 `json:"value"`       // a ⇒ b
	Loop2 int     `json:"loop2"`       // |a >> b|: times a b a occurs (a ≠ b)
	L2    float64 `json:"loop2_value"` // a ⇒₂ b
}

// HeuristicsArc is one arc of a heuristics net's dependency graph.
type HeuristicsArc struct {
	From       string   `json:"from"`
	To         string   `json:"to"`
	Count      int      `json:"count"`      // |a > b|
	Dependency float64  `json:"dependency"` // a ⇒ b (a ⇒ a for a loop)
	Reasons    []string `json:"reasons"`    // why it was kept, sorted
}

// HeuristicsNet is the dependency graph mined by the heuristics miner.
type HeuristicsNet struct {
	Options      HeuristicsOptions `json:"options"`
	Cases        int               `json:"cases"`
	Nodes        []Node            `json:"nodes"`        // activities, by name
	Arcs         []HeuristicsArc   `json:"arcs"`         // kept arcs, by From then To (▶ first, ■ last)
	Dependencies []Dependency      `json:"dependencies"` // every observed pair, by From then To
}

// NewHeuristics mines the dependency graph of l with the Flexible
// Heuristics Miner (Weijters & Ribeiro 2011; Weijters, van der Aalst & Alves
// de Medeiros 2006). With |a > b| the number of times b directly follows a
// (▶ > b: cases starting with b; a > ■: cases ending with a) and |a >> b|
// the number of times the pattern a b a occurs:
//
//	a ⇒ b  = (|a > b| − |b > a|) / (|a > b| + |b > a| + 1)    for a ≠ b, in (−1, 1)
//	a ⇒ a  = |a > a| / (|a > a| + 1)                          length-one loop
//	a ⇒₂ b = (|a >> b| + |b >> a|) / (|a >> b| + |b >> a| + 1) length-two loop
//
// The arcs kept, over the nodes ▶, the activities and ■:
//
//  1. length-one loops: a → a when a ⇒ a ≥ LengthOneLoopThreshold and
//     |a > a| ≥ PositiveObservations;
//  2. length-two loops: a → b and b → a when neither a nor b has a
//     length-one loop, a ⇒₂ b ≥ LengthTwoLoopThreshold and
//     |a >> b| + |b >> a| ≥ PositiveObservations;
//  3. thresholds: a → b (a ≠ b) when |a > b| ≥ PositiveObservations,
//     a ⇒ b ≥ DependencyThreshold, and a ⇒ b ≥ best_out(a) − RelativeToBest
//     or a ⇒ b ≥ best_in(b) − RelativeToBest, where best_out(a) is the
//     largest a ⇒ x and best_in(b) the largest x ⇒ b over observed pairs;
//  4. all tasks connected (when set): for every node but ■, its best
//     follower (the b ≠ a with |a > b| > 0 and the largest a ⇒ b; ties: the
//     larger |a > b|, then the smaller name), and for every node but ▶ its
//     best cause, likewise.
//
// Left out: long-distance dependencies, the split/join (AND/XOR) bindings
// of the causal net, and the refinement of step 4 for length-two loops.
func NewHeuristics(l *Log, o *HeuristicsOptions) *HeuristicsNet {
	if o == nil {
		o = &DefaultHeuristics
	}
	c := countLog(l, false)
	n := c.n
	start, end := int32(n), int32(n+1)
	h := &HeuristicsNet{Options: *o, Cases: len(l.Cases), Nodes: nodes(l)}

	// |a >> b|: a b a, a ≠ b
	loop2 := map[uint64]int{}
	for ci := range l.Cases {
		evs := l.Cases[ci].Events
		for i := 0; i+2 < len(evs); i++ {
			a, b := evs[i].Activity, evs[i+1].Activity
			if a != b && evs[i+2].Activity == a {
				loop2[pairKey(a, b)]++
			}
		}
	}
	count := func(a, b int32) int {
		if e := c.lookup(a, b); e != nil {
			return e.count
		}
		return 0
	}
	dep := func(a, b int32) float64 {
		if a == b {
			x := float64(count(a, a))
			return x / (x + 1)
		}
		ab, ba := float64(count(a, b)), float64(count(b, a))
		return (ab - ba) / (ab + ba + 1)
	}
	l2 := func(a, b int32) (int, float64) {
		x := loop2[pairKey(a, b)] + loop2[pairKey(b, a)]
		return x, float64(x) / float64(x+1)
	}

	bestOut := make([]float64, n+2)
	bestIn := make([]float64, n+2)
	bestOutArc := make([]int32, n+2)
	bestInArc := make([]int32, n+2)
	for i := range bestOut {
		bestOut[i], bestIn[i] = -2, -2
		bestOutArc[i], bestInArc[i] = -1, -1
	}
	better := func(v float64, cnt int, name string, bv float64, bc int, bname string) bool {
		if v != bv {
			return v > bv
		}
		if cnt != bc {
			return cnt > bc
		}
		return cmpNode(name, bname) < 0
	}
	for _, e := range c.edges {
		if e.from == e.to {
			continue
		}
		v := dep(e.from, e.to)
		if k := bestOutArc[e.from]; k < 0 || better(v, e.count, c.name(l, e.to), bestOut[e.from], count(e.from, k), c.name(l, k)) {
			bestOut[e.from], bestOutArc[e.from] = v, e.to
		}
		if k := bestInArc[e.to]; k < 0 || better(v, e.count, c.name(l, e.from), bestIn[e.to], count(k, e.to), c.name(l, k)) {
			bestIn[e.to], bestInArc[e.to] = v, e.from
		}
	}

	kept := map[uint64][]string{}
	keep := func(a, b int32, why string) {
		k := pairKey(a, b)
		if !slices.Contains(kept[k], why) {
			kept[k] = append(kept[k], why)
		}
	}
	loop1 := make([]bool, n+2)
	for _, e := range c.edges {
		if e.from == e.to && e.from < start {
			if dep(e.from, e.from) >= o.LengthOneLoopThreshold && e.count >= o.PositiveObservations {
				loop1[e.from] = true
				keep(e.from, e.from, ReasonLoop1)
			}
		}
	}
	for k := range loop2 {
		a, b := unpair(k)
		if loop1[a] || loop1[b] {
			continue
		}
		if x, v := l2(a, b); v >= o.LengthTwoLoopThreshold && x >= o.PositiveObservations {
			keep(a, b, ReasonLoop2)
			keep(b, a, ReasonLoop2)
		}
	}
	for _, e := range c.edges {
		if e.from == e.to {
			continue
		}
		v := dep(e.from, e.to)
		if e.count >= o.PositiveObservations && v >= o.DependencyThreshold &&
			(v >= bestOut[e.from]-o.RelativeToBest || v >= bestIn[e.to]-o.RelativeToBest) {
			keep(e.from, e.to, ReasonThreshold)
		}
	}
	if o.AllTasksConnected {
		for a := int32(0); a < int32(n+2); a++ {
			if a != end && bestOutArc[a] >= 0 {
				keep(a, bestOutArc[a], ReasonBestFollower)
			}
			if a != start && bestInArc[a] >= 0 {
				keep(bestInArc[a], a, ReasonBestCause)
			}
		}
	}
	for k, why := range kept {
		a, b := unpair(k)
		slices.Sort(why)
		h.Arcs = append(h.Arcs, HeuristicsArc{From: c.name(l, a), To: c.name(l, b), Count: count(a, b), Dependency: dep(a, b), Reasons: why})
	}
	slices.SortFunc(h.Arcs, func(x, y HeuristicsArc) int { return cmpEdge(x.From, x.To, y.From, y.To) })

	for _, e := range c.edges {
		d := Dependency{From: c.name(l, e.from), To: c.name(l, e.to), Count: e.count, Back: count(e.to, e.from), Value: dep(e.from, e.to)}
		if e.from == e.to {
			d.Back = 0
		} else if e.from < start && e.to < start {
			d.Loop2 = loop2[pairKey(e.from, e.to)]
			_, d.L2 = l2(e.from, e.to)
		}
		h.Dependencies = append(h.Dependencies, d)
	}
	// pairs seen only the other way round (b > a but never a > b) have
	// a ⇒ b = −|b > a| / (|b > a| + 1): listed under b → a only.
	slices.SortFunc(h.Dependencies, func(x, y Dependency) int { return cmpEdge(x.From, x.To, y.From, y.To) })
	return h
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

func unpair(k uint64) (int32, int32) { return int32(k >> 32), int32(uint32(k)) }

// Model returns the net's dependency graph as a model (its arcs).
func (h *HeuristicsNet) Model() *Model {
	m := &Model{}
	for _, a := range h.Arcs {
		m.Arcs = append(m.Arcs, Arc{From: a.From, To: a.To})
	}
	m.normalize()
	return m
}
