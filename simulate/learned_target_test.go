package simulate

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/schema"
)

func TestTargetCode(t *testing.T) {
	for _, tc := range []struct {
		target string
		want   uint8
	}{
		{"", TargetNone},
		{"  ", TargetNone},
		{"src/main.go", TargetFile},
		{"/usr/bin/env", TargetFile}, // a path without an extension
		{"docs/", TargetDir},
		{"..", TargetDir},
		{"src/**/*.go", TargetGlob},
		{"https://example.org/a.html", TargetURL},
		{"grep -rn foo .", TargetCommand},
		{"pytest", TargetCommand}, // a bare word: a command or a query
		{"flaky test", TargetCommand},
	} {
		if got := TargetCode(tc.target); got != tc.want {
			t.Errorf("TargetCode(%q) = %s, want %s", tc.target, TargetNames[got], TargetNames[tc.want])
		}
	}
}

// TestNewTraceTarget checks that a tool result takes its call's target
// kind, and its own when no call produced it.
func TestNewTraceTarget(t *testing.T) {
	ev := func(seq, turn int64, k schema.EventKind, id, target string) schema.Event {
		return schema.Event{RunID: "r", Seq: seq, Turn: turn, Kind: k, CallID: id, ToolName: "fetch", Target: target, Chars: 40, EstTokens: 10}
	}
	events := []schema.Event{
		ev(0, 0, schema.KindUser, "", ""),
		ev(1, 0, schema.KindToolCall, "c1", "https://example.org/"),
		ev(2, 1, schema.KindToolResult, "c1", ""),
		ev(3, 1, schema.KindToolCall, "c2", "src/a.go"),
		ev(4, 2, schema.KindToolResult, "c2", "ignored: the call's counts"),
		ev(5, 2, schema.KindAssistant, "", ""),
	}
	run := schema.Run{RunID: "r", NTurns: 3}
	tr := NewTrace(run, events, nil, nil, diagnose.Run(run, events, nil, nil, 0).End, nil)
	var got []string
	for _, it := range tr.Items {
		if it.Kind == ItemToolCall || it.Kind == ItemToolResult {
			got = append(got, it.Kind.String()+":"+TargetNames[it.Target])
		}
	}
	want := []string{"tool_call:url", "tool_result:url", "tool_call:file", "tool_result:file"}
	if !slices.Equal(got, want) {
		t.Errorf("target kinds %v, want %v", got, want)
	}
}

// TestLearnedTargetFeature checks the target=… one-hot: the same output
// with another target kind differs in exactly those two features.
func TestLearnedTargetFeature(t *testing.T) {
	xs := map[uint8][]float64{}
	for _, k := range []uint8{TargetNone, TargetFile, TargetURL, TargetCommand} {
		tr := ladder(100, 200, 300, 400, 500, 600)
		tr.Items[result(0)].Target = k
		rec := &recorder{r: 1}
		p, err := NewLearned(rec, &LearnedOptions{Keep: 1})
		if err != nil {
			t.Fatal(err)
		}
		var rp Replayer
		rp.Replay(tr, p, Options{Window: 1600})
		x := rec.evs[0].Cands[0].X
		xs[k] = x
		for j, name := range TargetNames {
			want := 0.0
			if uint8(j) == k {
				want = 1
			}
			if got := x[slices.Index(FeatureNames, "target="+name)]; got != want {
				t.Errorf("target %s: feature target=%s = %v, want %v", TargetNames[k], name, got, want)
			}
		}
	}
	for _, k := range []uint8{TargetFile, TargetURL, TargetCommand} {
		var diff []string
		for j := range xs[k] {
			if xs[k][j] != xs[TargetNone][j] {
				diff = append(diff, FeatureNames[j])
			}
		}
		if want := []string{"target=none", "target=" + TargetNames[k]}; !slices.Equal(diff, want) {
			t.Errorf("target %s against none: features %v differ, want %v", TargetNames[k], diff, want)
		}
	}
}

// TestRetentionModelUpgrade checks that a format-1 file (no target=…
// features) loads with zero weights on them, giving the ratio its own
// weights give (computed here by hand), and that unknown formats and
// features are clear errors.
func TestRetentionModelUpgrade(t *testing.T) {
	var v1 []string
	for _, f := range FeatureNames {
		if !strings.HasPrefix(f, "target=") {
			v1 = append(v1, f)
		}
	}
	if len(v1) != FeatureDim-len(TargetNames) {
		t.Fatalf("fixture: %d format-1 features", len(v1))
	}
	// one hidden unit: w1 on bias 0.3, on log_tokens −0.8; B1 0.1; W2 (1.5, −0.7); B2 (0.2, 0.4)
	w1 := make([]float64, len(v1))
	w1[slices.Index(v1, "bias")], w1[slices.Index(v1, "log_tokens")] = 0.3, -0.8
	old := RetentionModel{Format: "trajmine-tracer/1", Features: v1, Hidden: 1, W1: w1, B1: []float64{0.1},
		W2: []float64{1.5, -0.7}, B2: []float64{0.2, 0.4}, Trigger: 0.5, Keep: 1, Compressor: CompressTruncate}
	dir := t.TempDir()
	write := func(name string, m RetentionModel) string {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	m, err := LoadRetentionModel(write("v1.json", old))
	if err != nil {
		t.Fatalf("format 1: %v", err)
	}
	if m.Format != RetentionFormat || !slices.Equal(m.Features, FeatureNames) {
		t.Errorf("upgraded to %s with %d features, want %s, %d", m.Format, len(m.Features), RetentionFormat, FeatureDim)
	}
	x := make([]float64, FeatureDim)
	x[slices.Index(FeatureNames, "bias")] = 1
	x[slices.Index(FeatureNames, "log_tokens")] = 0.5
	x[slices.Index(FeatureNames, "target=url")] = 1 // no weight in a format-1 model
	h := math.Tanh(0.1 + 0.3 - 0.8*0.5)             // = tanh(0)
	sp := func(v float64) float64 { return math.Log1p(math.Exp(v)) }
	wantA, wantB := sp(0.2+1.5*h)+1, sp(0.4-0.7*h)+1
	a, b := m.Beta(x, make([]float64, 1), make([]float64, 2))
	if math.Abs(a-wantA) > 1e-12 || math.Abs(b-wantB) > 1e-12 {
		t.Errorf("Beta = (%v, %v), want (%v, %v)", a, b, wantA, wantB)
	}
	bad := old
	bad.Features = slices.Clone(v1)
	bad.Features[1] = "shiny_new"
	unknown := old
	unknown.Format = "trajmine-tracer/9"
	for _, tc := range []struct {
		name string
		m    RetentionModel
		want string
	}{
		{"unknown feature", bad, `feature "shiny_new" is not in this build`},
		{"unknown format", unknown, `format "trajmine-tracer/9", want "trajmine-tracer/2"`},
	} {
		if _, err := LoadRetentionModel(write(tc.name+".json", tc.m)); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "retrain") {
			t.Errorf("%s: error %v, want one with %q and retrain", tc.name, err, tc.want)
		}
	}
}
