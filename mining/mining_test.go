package mining_test

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/mining"
)

// render returns every text form of the analyses of l against the model m
// (the heuristics net's when m is nil), for goldens.
func render(t *testing.T, l *mining.Log, o *mining.HeuristicsOptions, m *mining.Model) string {
	t.Helper()
	var b bytes.Buffer
	d := mining.NewDFG(l)
	must(t, d.WriteText(&b))
	b.WriteString("\n")
	must(t, mining.WriteVariants(&b, mining.Variants(l), 0))
	b.WriteString("\n")
	h := mining.NewHeuristics(l, o)
	must(t, h.WriteText(&b))
	b.WriteString("\n")
	if m == nil {
		m = h.Model()
	}
	must(t, m.WriteText(&b))
	b.WriteString("\n")
	must(t, mining.Conform(l, m).WriteText(&b, 0))
	b.WriteString("\n")
	must(t, d.WriteDOT(&b))
	b.WriteString("\n")
	must(t, h.WriteDOT(&b))
	return b.String()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// simple is the log of the package examples:
//
//	c1: a b c    c2: a c b    c3: a b c    c4: a d
//
// Directly follows: ▶>a 4; a>b 2, a>c 1, a>d 1; b>c 2, c>b 1; b>■ 1, c>■ 2,
// d>■ 1. Variants: a b c ×2 (0.5, cumulative 0.5), then a c b and a d
// (0.25 each; a c b first: "c" < "d"; cumulative 0.75, 1).
//
// Dependencies: ▶⇒a = 4/5 = 0.8; a⇒b = 2/3; a⇒c = a⇒d = 1/2;
// b⇒c = (2−1)/(2+1+1) = 0.25, c⇒b = −0.25; c⇒■ = 2/3; b⇒■ = d⇒■ = 1/2.
// Nothing reaches 0.9, so the net is the all-tasks-connected arcs: best
// followers ▶→a, a→b, b→■ (0.5 > 0.25), c→■, d→■; best causes a→b, a→c,
// a→d, c→■ (2/3 > 1/2), ▶→a.
//
// Replay on that net: c1 = a b c: b→c is not an arc and c's only input a
// has no token: m = 1, the token in b remains: r = 1; p = c = 5 (▶ a b c ■ /
// a b c ■ final): fitness = 1 − ½·1/5 − ½·1/5 = 0.8; c3 likewise; c2 = a c b:
// c→b missing, 0.8; c4 = a d fits: 1. Log: p = c = 5+5+5+4 = 19,
// m = r = 3: 1 − ½·3/19 − ½·3/19 = 1 − 3/19 = 0.842…; mean (0.8·3 + 1)/4 = 0.85.
var simple = [][]string{{"a", "b", "c"}, {"a", "c", "b"}, {"a", "b", "c"}, {"a", "d"}}

// loops: c1 = a b b b e; c2 = a c d c d e.
//
// |b>b| = 2: b⇒b = 2/3. c d c and d c d occur once each: |c>>d| = |d>>c| = 1,
// c⇒₂d = 2/3. With loop thresholds 0.6 the net keeps b→b (loop1) and c→d,
// d→c (loop2); c⇒d = (2−1)/(2+1+1) = 0.25 (c>d twice, d>c once).
// Best follower of a: b and c tie at 1/2 with one observation each: b by
// name. Best cause of e: b and d tie at 1/2: b by name.
var loops = [][]string{{"a", "b", "b", "b", "e"}, {"a", "c", "d", "c", "d", "e"}}

func TestGolden(t *testing.T) {
	loopOpts := mining.DefaultHeuristics
	loopOpts.LengthOneLoopThreshold, loopOpts.LengthTwoLoopThreshold = 0.6, 0.6
	strict := mining.DefaultHeuristics
	strict.AllTasksConnected = false
	for _, tc := range []struct {
		name   string
		traces [][]string
		opts   *mining.HeuristicsOptions
		model  string
	}{
		{name: "simple", traces: simple},
		{name: "simple_model", traces: simple, model: "start a\na -> b -> c\nend c d\n"},
		{name: "loops", traces: loops, opts: &loopOpts},
		{name: "loops_strict", traces: loops, opts: &strict},
		{name: "empty_case", traces: [][]string{{}, {"x"}, {"x", "x"}}},
		{name: "quoted", traces: [][]string{{"read file", "Bash:test", `say "hi"`}, {"->", "start", "#"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := mining.NewLog(tc.traces...)
			var m *mining.Model
			if tc.model != "" {
				var err error
				if m, err = mining.ParseModel(tc.name+".model", strings.NewReader(tc.model)); err != nil {
					t.Fatal(err)
				}
			}
			testutil.Golden(t, render(t, l, tc.opts, m), "testdata/"+tc.name+".golden")
		})
	}
}

func TestDFGCounts(t *testing.T) {
	d := mining.NewDFG(mining.NewLog(simple...))
	want := map[string]int{
		"▶ a": 4, "a b": 2, "a c": 1, "a d": 1, "b c": 2, "c b": 1, "b ■": 1, "c ■": 2, "d ■": 1,
	}
	got := map[string]int{}
	for _, e := range d.Edges {
		got[e.From+" "+e.To] = e.Count
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("edge %s: count %d, want %d", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("edges %v, want %v", got, want)
	}
	if s := d.StartActivities(); len(s) != 1 || s[0].To != "a" || s[0].Count != 4 {
		t.Errorf("start activities %+v", s)
	}
	if e := d.EndActivities(); len(e) != 3 || e[0].From != "b" || e[1].From != "c" || e[1].Count != 2 {
		t.Errorf("end activities %+v", e)
	}
}

func TestVariants(t *testing.T) {
	vs := mining.Variants(mining.NewLog(simple...))
	want := []struct {
		acts       string
		count      int
		share, cum float64
	}{{"a b c", 2, 0.5, 0.5}, {"a c b", 1, 0.25, 0.75}, {"a d", 1, 0.25, 1}}
	if len(vs) != len(want) {
		t.Fatalf("%d variants, want %d", len(vs), len(want))
	}
	for i, w := range want {
		v := vs[i]
		if strings.Join(v.Activities, " ") != w.acts || v.Count != w.count || !near(v.Share, w.share) || !near(v.Cumulative, w.cum) {
			t.Errorf("variant %d = %+v, want %+v", i, v, w)
		}
	}
	// the example is the smallest case id, whatever the case order
	l := mining.NewLog(simple...)
	slices.Reverse(l.Cases)
	again := mining.Variants(l)
	if len(again) != len(vs) {
		t.Fatalf("%d variants after reversing the cases, want %d", len(again), len(vs))
	}
	for i := range vs {
		if again[i].Example != vs[i].Example || (i == 0 && vs[i].Example != "c1") {
			t.Errorf("variant %d: example %q, reversed %q (want the smallest id, c1 for the first)", i, vs[i].Example, again[i].Example)
		}
	}
}

func TestHeuristicsValues(t *testing.T) {
	loopOpts := mining.DefaultHeuristics
	loopOpts.LengthOneLoopThreshold, loopOpts.LengthTwoLoopThreshold = 0.6, 0.6
	for _, tc := range []struct {
		name   string
		traces [][]string
		opts   *mining.HeuristicsOptions
		deps   map[string]float64 // "a b" → a ⇒ b
		arcs   string             // kept arcs, "from>to" space-separated
	}{
		{
			name: "simple", traces: simple,
			deps: map[string]float64{"▶ a": 0.8, "a b": 2.0 / 3, "a c": 0.5, "a d": 0.5, "b c": 0.25, "c b": -0.25, "c ■": 2.0 / 3, "b ■": 0.5, "d ■": 0.5},
			arcs: "▶>a a>b a>c a>d b>■ c>■ d>■",
		},
		{
			name: "loops", traces: loops, opts: &loopOpts,
			deps: map[string]float64{"b b": 2.0 / 3, "c d": 0.25, "d c": -0.25, "▶ a": 2.0 / 3},
			arcs: "▶>a a>b a>c b>b b>e c>d d>c d>e e>■",
		},
		{
			// 9 × a b, 1 × a c: ▶⇒a = 10/11, a⇒b = b⇒■ = 9/10 = 0.9 pass
			// the threshold (each the best of its node); a⇒c = c⇒■ = 1/2
			// do not, but a→c is c's best cause and c→■ c's best follower.
			name:   "threshold",
			traces: append(repeat([]string{"a", "b"}, 9), []string{"a", "c"}),
			deps:   map[string]float64{"a b": 0.9, "a c": 0.5, "▶ a": 10.0 / 11, "b ■": 0.9, "c ■": 0.5},
			arcs:   "▶>a a>b a>c b>■ c>■",
		},
		{
			// the same without all tasks connected: c is left out
			name:   "threshold_strict",
			traces: append(repeat([]string{"a", "b"}, 9), []string{"a", "c"}),
			opts:   &mining.HeuristicsOptions{DependencyThreshold: 0.9, PositiveObservations: 1, RelativeToBest: 0.05, LengthOneLoopThreshold: 0.9, LengthTwoLoopThreshold: 0.9},
			arcs:   "▶>a a>b b>■",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := mining.NewHeuristics(mining.NewLog(tc.traces...), tc.opts)
			got := map[string]float64{}
			for _, d := range h.Dependencies {
				got[d.From+" "+d.To] = d.Value
			}
			for k, v := range tc.deps {
				if g, ok := got[k]; !ok || !near(g, v) {
					t.Errorf("dependency %s = %v, want %v", k, g, v)
				}
			}
			var arcs []string
			for _, a := range h.Arcs {
				arcs = append(arcs, a.From+">"+a.To)
			}
			if s := strings.Join(arcs, " "); s != tc.arcs {
				t.Errorf("arcs %s\nwant %s", s, tc.arcs)
			}
		})
	}
}

func repeat(tr []string, n int) [][]string {
	out := make([][]string, n)
	for i := range out {
		out[i] = tr
	}
	return out
}

func TestConformValues(t *testing.T) {
	l := mining.NewLog(simple...)
	c := mining.Conform(l, mining.NewHeuristics(l, nil).Model())
	want := []struct {
		fit         float64
		p, cn, m, r int
		devs        string
	}{
		{0.8, 5, 5, 1, 1, "3:b>c"},
		{0.8, 5, 5, 1, 1, "3:c>b"},
		{0.8, 5, 5, 1, 1, "3:b>c"},
		{1, 4, 4, 0, 0, ""},
	}
	for i, w := range want {
		cf := c.Cases[i]
		var devs []string
		for _, d := range cf.Deviations {
			devs = append(devs, strconv.Itoa(d.Pos)+":"+d.From+">"+d.To)
		}
		if !near(cf.Fitness, w.fit) || cf.Produced != w.p || cf.Consumed != w.cn || cf.Missing != w.m || cf.Remaining != w.r || strings.Join(devs, " ") != w.devs {
			t.Errorf("case %d = %+v, want %+v", i, cf, w)
		}
	}
	if !near(c.Fitness, 1-3.0/19) || !near(c.MeanFitness, 0.85) || c.Fitting != 1 {
		t.Errorf("log fitness %v mean %v fitting %d, want %v 0.85 1", c.Fitness, c.MeanFitness, c.Fitting, 1-3.0/19)
	}

	// the worked example of Conform's doc: model ▶ → a → b → ■, case a c b
	m, err := mining.ParseModel("doc", strings.NewReader("start a\na -> b\nend b\n"))
	must(t, err)
	cf := mining.Conform(mining.NewLog([]string{"a", "c", "b"}), m).Cases[0]
	if !near(cf.Fitness, 0.8) || cf.Produced != 5 || cf.Consumed != 5 || cf.Missing != 1 || cf.Remaining != 1 || len(cf.Deviations) != 2 {
		t.Errorf("doc example = %+v", cf)
	}
	// an empty log fits
	if c := mining.Conform(mining.NewLog(), m); c.Fitness != 1 || len(c.Cases) != 0 {
		t.Errorf("empty log = %+v", c)
	}
}

// TestJSON: every result marshals (no NaN or infinity), for a log with
// cases, an empty log and a log of empty cases.
func TestJSON(t *testing.T) {
	for _, l := range []*mining.Log{mining.NewLog(simple...), mining.NewLog(), mining.NewLog([]string{}, []string{})} {
		h := mining.NewHeuristics(l, nil)
		for _, v := range []any{mining.NewDFG(l), mining.Variants(l), h, mining.Conform(l, h.Model()), h.Model(),
			mining.Compare("a", l, "b", mining.NewLog())} {
			if _, err := json.Marshal(v); err != nil {
				t.Errorf("%d cases: marshal %T: %v", len(l.Cases), v, err)
			}
		}
	}
}

// TestDFGPerformance plants a log with known timestamps (seconds; c has
// none):
//
//	c1: a@0 a@2 b@5 b@6    c2: a@10 b@14 c a@30    c3: a@0 b@1
//
// By hand: a→a [2]; a→b [3 4 1]: median 3, mean 8/3; b→b [1]; b→c and
// c→a untimed (c has no timestamp). Node times are from each event to
// the next of its case: a: 2, 3 (c1), 4 (c2; c2's last a has no next),
// 1 (c3): median (2+3)/2 = 2.5, mean 2.5; b: 1 (c1; b→c untimed, the
// last b's have no next): 1; c: untimed.
func TestDFGPerformance(t *testing.T) {
	const s = int64(1e6)
	acts := []string{"a", "b", "c"}
	const base = 1_700_000_000 // seconds since the epoch at "0" (a TS of 0 means none)
	ev := func(a int32, sec int64) mining.Event { return mining.Event{Activity: a, TS: (base + sec) * s} }
	l := &mining.Log{Activities: acts, Cases: []mining.Case{
		{ID: "c1", Events: []mining.Event{ev(0, 0), ev(0, 2), ev(1, 5), ev(1, 6)}},
		{ID: "c2", Events: []mining.Event{ev(0, 10), ev(1, 14), {Activity: 2}, ev(0, 30)}},
		{ID: "c3", Events: []mining.Event{ev(0, 0), ev(1, 1)}},
	}}
	d := mining.NewDFG(l)
	type perf struct {
		timed        int
		mean, median float64
	}
	edges := map[string]perf{}
	for _, e := range d.Edges {
		edges[e.From+">"+e.To] = perf{e.Timed, e.MeanSeconds, e.MedianSeconds}
	}
	nodes := map[string]perf{}
	for _, n := range d.Nodes {
		nodes[n.Name] = perf{n.Timed, n.MeanSeconds, n.MedianSeconds}
	}
	for _, tc := range []struct {
		what string
		got  map[string]perf
		key  string
		want perf
	}{
		{"edge", edges, "a>a", perf{1, 2, 2}},
		{"edge", edges, "a>b", perf{3, 8.0 / 3, 3}},
		{"edge", edges, "b>b", perf{1, 1, 1}},
		{"edge", edges, "b>c", perf{}},
		{"edge", edges, "c>a", perf{}},
		{"edge", edges, "▶>a", perf{}},
		{"edge", edges, "b>■", perf{}},
		{"node", nodes, "a", perf{4, 2.5, 2.5}},
		{"node", nodes, "b", perf{1, 1, 1}},
		{"node", nodes, "c", perf{}},
	} {
		g, ok := tc.got[tc.key]
		if !ok {
			t.Errorf("%s %s missing", tc.what, tc.key)
			continue
		}
		if g.timed != tc.want.timed || !near(g.mean, tc.want.mean) || !near(g.median, tc.want.median) {
			t.Errorf("%s %s: timed %d mean %v median %v, want %+v", tc.what, tc.key, g.timed, g.mean, g.median, tc.want)
		}
	}
}
