package simulate

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/trajmine/trajmine/internal/testutil"
)

// quarterModel is a one-unit model whose every ratio is 0.25: α = softplus(−30) + 1 ≈ 1,
// β = softplus(log(e²−1)) + 1 = 3, mean 1/4 (testdata/tracer-quarter.json).
func quarterModel() *RetentionModel {
	return &RetentionModel{Format: RetentionFormat, Features: FeatureNames, Hidden: 1,
		W1: make([]float64, FeatureDim), B1: []float64{0}, W2: []float64{0, 0}, B2: []float64{-30, math.Log(math.E*math.E - 1)},
		Trigger: 0.5, Keep: 1, Compressor: CompressTruncate}
}

func TestLearnedModelFile(t *testing.T) {
	b, err := json.MarshalIndent(quarterModel(), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, string(b)+"\n", "testdata/tracer-quarter.json")
	m, err := LoadRetentionModel("testdata/tracer-quarter.json")
	if err != nil {
		t.Fatal(err)
	}
	h, o := make([]float64, 1), make([]float64, 2)
	a, bb := m.Beta(make([]float64, FeatureDim), h, o)
	if got := a / (a + bb); math.Abs(got-0.25) > 1e-12 {
		t.Errorf("mean = %v, want 0.25", got)
	}
}

func TestLearnedPolicy(t *testing.T) {
	// ladder at window 1600 (keep-all 150, 260, 470, 780, 1190, 1700): call 4
	// (1190 ≥ 800) is the first event; R0–R2 (100, 200, 300 tokens, 400–1200
	// chars) keep a quarter: ceil(T/4) + the 5-token marker, so 1190 − 70 − 145 − 220;
	// call 5 compresses R3 (400 → 105) too. tracer-uniform(r=0.25) gives the
	// same tokens (head only), and so must the summary compressor.
	want := []int64{150, 260, 470, 780, 1190 - 70 - 145 - 220, 1190 - 70 - 145 - 220 + 510 - 295}
	for _, tc := range []struct {
		name, spec string
		want       []int64
	}{
		{"untrained", "tracer", []int64{150, 260, 470, 780, 1190 - 45 - 95 - 145, 1190 - 45 - 95 - 145 + 510 - 195}},
		{"quarter", "tracer(model=testdata/tracer-quarter.json)", want},
		{"uniform", "tracer-uniform(r=0.25)", want},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls []CallResult
			var rp Replayer
			rp.Replay(ladder(100, 200, 300, 400, 500, 600), mustParse(t, tc.spec), Options{Window: 1600, Calls: &calls})
			var got []int64
			for _, c := range calls {
				got = append(got, c.PromptTokens)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("prompts %v, want %v", got, tc.want)
			}
		})
	}
}

// recorder records the events a learned policy sees.
type recorder struct {
	r   float64
	evs []Event
}

func (r *recorder) Retain(_ *Trace, ev *Event) {
	for k := range ev.Cands {
		ev.Cands[k].Ratio = r.r
	}
}

func (r *recorder) Applied(_ *Trace, ev *Event) {
	e := *ev
	e.Cands = slices.Clone(ev.Cands)
	for k := range e.Cands {
		e.Cands[k].X = slices.Clone(e.Cands[k].X)
	}
	r.evs = append(r.evs, e)
}

func TestLearnedFeatures(t *testing.T) {
	tr := ladder(100, 200, 300, 400, 500, 600)
	// R0 used (content) at calls 2 and 4, R1 as a target at call 3: at call 4's
	// event R0 has one content use so far (call 4's is not known yet)
	tr.Uses = []Use{{Item: result(0), Call: 2, Content: true, Offsets: []int32{10}},
		{Item: result(1), Call: 3}, {Item: result(0), Call: 4, Content: true, Offsets: []int32{10}}}
	tr.Query = "Fix the flaky test"
	tr.Finalize()
	rec := &recorder{r: 0.5}
	p, err := NewLearned(rec, &LearnedOptions{Keep: 1, Compressor: CompressHead})
	if err != nil {
		t.Fatal(err)
	}
	var rp Replayer
	rp.Replay(tr, p, Options{Window: 1600})
	if len(rec.evs) != 2 || rec.evs[0].Call != 4 || len(rec.evs[0].Cands) != 3 {
		t.Fatalf("events %+v", rec.evs)
	}
	c := rec.evs[0].Cands
	q := QueryFeatures(tr.Query)
	for _, tc := range []struct {
		name string
		got  float64
		want float64
	}{
		{"R0 class=read", c[0].X[fClass+int(ClassRead)], 1},
		{"R0 log_tokens", c[0].X[fTokens], math.Log1p(100) / 10},
		{"R0 log_age", c[0].X[fAge], math.Log1p(3) / 5}, // seen from call 1, event at 4
		{"R0 content uses", c[0].X[fContent], math.Log1p(1)},
		{"R1 target uses", c[1].X[fTarget], math.Log1p(1)},
		{"R2 content uses", c[2].X[fContent], 0},
		{"window share", c[0].X[fWindow], 1190.0 / 1600},
		{"R0 rank (oldest)", c[0].X[fRank], 1},
		{"R2 rank (newest)", c[2].X[fRank], 0},
		{"R1 token share", c[1].X[fTokenShare], 200.0 / 600},
		{"query", c[0].X[fQuery+bucket("flaky", queryBuckets)], q[bucket("flaky", queryBuckets)]},
		{"R0 head kept (head compressor)", float64(c[0].Head), 200},
		{"R0 tail", float64(c[0].Tail), 0},
	} {
		if math.Abs(tc.got-tc.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if c[0].Lost(tr, &tr.Uses[2]) || !c[0].Lost(tr, &Use{Item: result(0), Content: true, Offsets: []int32{250}}) {
		t.Errorf("Lost: a 200-character head keeps offset 10 and cuts offset 250")
	}
}

func TestDefaultSpecsSkipExplicit(t *testing.T) {
	if slices.Contains(DefaultSpecs(), "tracer") {
		t.Error("DefaultSpecs lists tracer, which needs a model file")
	}
}

func TestLearnedSummaryCompressor(t *testing.T) {
	// the summary backend's stand-in is ceil(r × T) + 5 tokens, the same
	// sizes as truncation at r = 0.25 (TestLearnedPolicy), plus one
	// summarizer call per output: R0–R2 at call 4, R3 at call 5
	p, err := NewLearned(constRetainer(0.25), &LearnedOptions{Keep: 1, Compressor: CompressSummary})
	if err != nil {
		t.Fatal(err)
	}
	var calls []CallResult
	var rp Replayer
	tr := ladder(100, 200, 300, 400, 500, 600)
	tr.Uses = []Use{{Item: result(0), Call: 5, Content: true, Offsets: []int32{0}}}
	tr.Finalize()
	res := rp.Replay(tr, p, Options{Window: 1600, Calls: &calls})
	var got []int64
	for _, c := range calls {
		got = append(got, c.PromptTokens)
	}
	want := []int64{150, 260, 470, 780, 1190 - 70 - 145 - 220, 1190 - 70 - 145 - 220 + 510 - 295}
	if !slices.Equal(got, want) {
		t.Errorf("prompts %v, want %v", got, want)
	}
	if res.SummarizerCalls != 4 || res.SummarizerIn != 1000 || res.SummarizerOut != 30+55+80+105 {
		t.Errorf("summarizer %d calls, %d in, %d out; want 4, 1000, 270", res.SummarizerCalls, res.SummarizerIn, res.SummarizerOut)
	}
	// a summary keeps no offsets: the use at call 5 of R0 (offset 0, which a head cut would keep) is a re-invocation
	if res.Reinvocations != 1 {
		t.Errorf("%d re-invocations, want 1", res.Reinvocations)
	}
	if _, err := NewLearned(constRetainer(0.5), &LearnedOptions{Compressor: "zip"}); err == nil {
		t.Error("compressor zip accepted")
	}
}
