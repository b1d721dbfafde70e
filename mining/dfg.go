package mining

import (
	"cmp"
	"slices"
)

// Node is one activity of a graph.
//
// Performance figures: an event's time is the time from it to the next
// event of its case (ts(next) − ts(event): what the step took until the
// agent did the next thing), over the Timed events where both have a
// timestamp (a case's last event has none); MeanSeconds and
// MedianSeconds are 0 when Timed is 0. They are the pooled times of the
// node's edges to other activities (itself included).
type Node struct {
	Name          string  `json:"name"`
	Count         int     `json:"count"`  // events of this activity
	Cases         int     `json:"cases"`  // cases with at least one
	Tokens        int64   `json:"tokens"` // sum of the events' Tokens
	Timed         int     `json:"timed"`
	MeanSeconds   float64 `json:"mean_seconds"`
	MedianSeconds float64 `json:"median_seconds"`
}

// Edge is one directly-follows relation a → b: b is the next event after a
// in some case (▶ → b: b starts a case; a → ■: a ends it).
//
// Performance figures, over the Count occurrences:
//
//   - MeanSeconds, MedianSeconds: mean and median of ts(b) − ts(a) over the
//     Timed occurrences where both events have a timestamp (0 when Timed is
//     0; never for ▶ and ■);
//   - Tokens: sum of the Tokens of the b events (what the step to b added to,
//     or for a context op freed from, the context); MeanTokens = Tokens / Count.
type Edge struct {
	From          string  `json:"from"`
	To            string  `json:"to"`
	Count         int     `json:"count"` // |a > b|: times b directly follows a
	Cases         int     `json:"cases"` // cases where it happens at least once
	Timed         int     `json:"timed"`
	MeanSeconds   float64 `json:"mean_seconds"`
	MedianSeconds float64 `json:"median_seconds"`
	Tokens        int64   `json:"tokens"`
	MeanTokens    float64 `json:"mean_tokens"`
}

// DFG is a directly-follows graph with frequencies and performance.
type DFG struct {
	Cases  int    `json:"cases"`
	Events int    `json:"events"`
	Nodes  []Node `json:"nodes"` // activities with at least one event, by name
	// Edges, sorted by From then To (▶ first, ■ last, else by name),
	// include the artificial ▶ → start activity and end activity → ■
	// edges: their counts are the start and end activities' counts.
	Edges []Edge `json:"edges"`
}

// counts holds the directly-follows counts of a log over node indices:
// activities 0..n-1, ▶ = n, ■ = n+1.
type counts struct {
	n     int
	index map[uint64]int32
	dense []int32 // (n+2)² edge indices + 1 when small, else nil
	edges []edgeAcc
}

type edgeAcc struct {
	from, to int32
	count    int
	cases    int
	last     int // last case counted in cases, plus one
	tokens   int64
	dts      []int64
}

const maxDense = 1 << 20

func newCounts(n int) *counts {
	c := &counts{n: n}
	if w := n + 2; w*w <= maxDense {
		c.dense = make([]int32, w*w)
	} else {
		c.index = map[uint64]int32{}
	}
	return c
}

func (c *counts) edge(from, to int32) *edgeAcc {
	w := int32(c.n + 2)
	if c.dense != nil {
		k := from*w + to
		if i := c.dense[k]; i > 0 {
			return &c.edges[i-1]
		}
		c.edges = append(c.edges, edgeAcc{from: from, to: to})
		c.dense[k] = int32(len(c.edges))
		return &c.edges[len(c.edges)-1]
	}
	k := uint64(from)<<32 | uint64(uint32(to))
	if i, ok := c.index[k]; ok {
		return &c.edges[i]
	}
	c.edges = append(c.edges, edgeAcc{from: from, to: to})
	c.index[k] = int32(len(c.edges) - 1)
	return &c.edges[len(c.edges)-1]
}

// lookup returns the edge from → to, or nil.
func (c *counts) lookup(from, to int32) *edgeAcc {
	if c.dense != nil {
		if i := c.dense[from*int32(c.n+2)+to]; i > 0 {
			return &c.edges[i-1]
		}
		return nil
	}
	if i, ok := c.index[uint64(from)<<32|uint64(uint32(to))]; ok {
		return &c.edges[i]
	}
	return nil
}

// countLog counts every directly-follows pair of l (with ▶ and ■), with
// time differences when perf is set.
func countLog(l *Log, perf bool) *counts {
	n := len(l.Activities)
	c := newCounts(n)
	start, end := int32(n), int32(n+1)
	for ci := range l.Cases {
		evs := l.Cases[ci].Events
		prev, prevTS := start, int64(0)
		for _, e := range evs {
			a := c.edge(prev, e.Activity)
			a.count++
			if a.last != ci+1 {
				a.last = ci + 1
				a.cases++
			}
			a.tokens += e.Tokens
			if perf && prevTS != 0 && e.TS != 0 {
				a.dts = append(a.dts, e.TS-prevTS)
			}
			prev, prevTS = e.Activity, e.TS
		}
		a := c.edge(prev, end)
		a.count++
		if a.last != ci+1 {
			a.last = ci + 1
			a.cases++
		}
	}
	return c
}

// name returns the name of node i.
func (c *counts) name(l *Log, i int32) string {
	switch int(i) {
	case c.n:
		return Start
	case c.n + 1:
		return End
	}
	return l.Activities[i]
}

// NewDFG computes the directly-follows graph of l.
func NewDFG(l *Log) *DFG {
	c := countLog(l, true)
	d := &DFG{Cases: len(l.Cases)}
	d.Nodes = nodes(l)
	for _, nd := range d.Nodes {
		d.Events += nd.Count
	}
	d.Edges = make([]Edge, 0, len(c.edges))
	out := map[string][]int64{} // every timed step from each activity
	for i := range c.edges {
		a := &c.edges[i]
		e := Edge{From: c.name(l, a.from), To: c.name(l, a.to), Count: a.count, Cases: a.cases, Timed: len(a.dts), Tokens: a.tokens}
		if e.Count > 0 {
			e.MeanTokens = float64(a.tokens) / float64(a.count)
		}
		if len(a.dts) > 0 {
			out[e.From] = append(out[e.From], a.dts...)
			e.MeanSeconds, e.MedianSeconds = meanMedian(a.dts)
		}
		d.Edges = append(d.Edges, e)
	}
	for i := range d.Nodes {
		if dts := out[d.Nodes[i].Name]; len(dts) > 0 {
			d.Nodes[i].Timed = len(dts)
			d.Nodes[i].MeanSeconds, d.Nodes[i].MedianSeconds = meanMedian(dts)
		}
	}
	slices.SortFunc(d.Edges, func(x, y Edge) int { return cmpEdge(x.From, x.To, y.From, y.To) })
	return d
}

// nodes returns the activities of l with events, by name.
func nodes(l *Log) []Node {
	ns := make([]Node, len(l.Activities))
	last := make([]int, len(l.Activities))
	for ci := range l.Cases {
		for _, e := range l.Cases[ci].Events {
			nd := &ns[e.Activity]
			nd.Count++
			nd.Tokens += e.Tokens
			if last[e.Activity] != ci+1 {
				last[e.Activity] = ci + 1
				nd.Cases++
			}
		}
	}
	out := ns[:0]
	for i, nd := range ns {
		if nd.Count > 0 {
			nd.Name = l.Activities[i]
			out = append(out, nd)
		}
	}
	slices.SortFunc(out, func(a, b Node) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// meanMedian returns the mean and median of dts (microseconds) in seconds;
// dts is sorted in place. The median of an even count is the mean of the
// two middle values.
func meanMedian(dts []int64) (mean, median float64) {
	slices.Sort(dts)
	var sum float64
	for _, d := range dts {
		sum += float64(d)
	}
	n := len(dts)
	mean = sum / float64(n) / 1e6
	if n%2 == 1 {
		median = float64(dts[n/2]) / 1e6
	} else {
		median = (float64(dts[n/2-1]) + float64(dts[n/2])) / 2 / 1e6
	}
	return mean, median
}

// nodeRank orders ▶ first and ■ last.
func nodeRank(s string) int {
	switch s {
	case Start:
		return 0
	case End:
		return 2
	}
	return 1
}

func cmpNode(a, b string) int {
	if c := cmp.Compare(nodeRank(a), nodeRank(b)); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

func cmpEdge(af, at, bf, bt string) int {
	if c := cmpNode(af, bf); c != 0 {
		return c
	}
	return cmpNode(at, bt)
}

// StartActivities returns the ▶ → a edges: the activities cases start with.
func (d *DFG) StartActivities() []Edge {
	return d.edgesWhere(func(e Edge) bool { return e.From == Start })
}

// EndActivities returns the a → ■ edges: the activities cases end with.
func (d *DFG) EndActivities() []Edge {
	return d.edgesWhere(func(e Edge) bool { return e.To == End })
}

// edgesWhere returns the edges that keep says to, in order.
func (d *DFG) edgesWhere(keep func(Edge) bool) []Edge {
	var out []Edge
	for _, e := range d.Edges {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// Model returns the model whose arcs are the DFG's edges seen at least
// minCount times (▶ and ■ edges included).
func (d *DFG) Model(minCount int) *Model {
	m := &Model{}
	for _, e := range d.Edges {
		if e.Count >= minCount {
			m.Arcs = append(m.Arcs, Arc{From: e.From, To: e.To})
		}
	}
	return m
}
