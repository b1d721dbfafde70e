package cmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/internal/store"
)

func TestTrainFlagParsing(t *testing.T) {
	var got *TrainOptions
	c := NewTrainCmd(testDeps(t, nil), func(o *TrainOptions) error { got = o; return nil })
	c.SetArgs([]string{"tracer", "--family", "claude", "--window", "64000", "--seed", "7", "-o", "m.json", "--compressor", "summary", "--lambda", "0"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	want := &TrainOptions{Family: "claude", Window: 64000, Seed: 7, Model: "m.json", Epochs: 30, Samples: 2, Hidden: 32, LR: 0.02,
		Lambda: 0, Credit: 10, Trigger: 0.5, Keep: 1, Compressor: "summary", Holdout: 0.2}
	if diff := cmp.Diff(want, got, cmpIgnoreWriters); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
}

func TestTrainUsageErrors(t *testing.T) {
	d := testDeps(t, nil)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "tracer"}, "-o MODEL is required"},
		{[]string{"train", "tracer", "-o", "a,b.json"}, "cannot hold ','"},
		{[]string{"train", "tracer", "-o", "m.json", "--holdout", "1"}, "--holdout must be in [0, 1)"},
		{[]string{"train", "tracer", "-o", "m.json", "--samples", "1"}, "--samples must be ≥ 2"},
		{[]string{"train", "tracer", "-o", "m.json", "--compressor", "zip"}, "--compressor must be"},
		{[]string{"train", "tracer", "-o", "m.json", "--trigger", "2"}, "--trigger must be in [0, 1]"},
	} {
		_, stderr, code := run(t, d, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestTrainRun trains on the simulate fixtures at a small window: the model
// file is byte-identical for the same seed, its curves land in
// train_curves, and simulate replays it as tracer(model=FILE).
func TestTrainRun(t *testing.T) {
	d := simulateDB(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "m.json")
	args := []string{"train", "tracer", "--window", "3000", "--epochs", "2", "--hidden", "4", "--holdout", "0.5", "-o", model}
	stdout, stderr, code := run(t, d, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"EPOCH", "wrote " + model, "held-out runs:", "tracer(model)", "tracer-tooltype(trigger=0.5,keep=1)", "attributor check:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	first, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, d, args...); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	again, _ := os.ReadFile(model)
	if !bytes.Equal(first, again) {
		t.Error("the model file differs between two runs with the same seed")
	}
	st, err := store.Open(context.Background(), store.Config{Path: d.DB, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := st.DB().QueryRow("SELECT count(*) FROM train_curves WHERE model = ?", model).Scan(&n); err != nil || n != 2 {
		t.Errorf("train_curves: %d rows (err %v), want 2 (one per epoch, replaced on retraining)", n, err)
	}
	st.Close()
	spec := "tracer(model=" + model + ")"
	for _, args := range [][]string{
		{"simulate", "--no-save", "--window", "3000", "--policy", spec},
		{"recommend", "--window", "3000", "--model", model, "--json"},
		{"report", "--all", "--policy", spec, "-o", filepath.Join(dir, "report.html")},
	} {
		stdout, stderr, code := run(t, d, args...)
		if code != 0 {
			t.Errorf("%s with the model: exit %d: %s", args[0], code, stderr)
			continue
		}
		if args[0] == "recommend" && !strings.Contains(stdout, spec) {
			t.Errorf("recommend --model: %s is not among the candidates:\n%s", spec, stdout)
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil || !bytes.Contains(page, []byte(spec)) {
		t.Errorf("report --policy: the page does not name %s (err %v)", spec, err)
	}
}

// TestTrainPlantedSynth is the planted truth end to end: trajmine synth
// --plant-reuse writes runs whose schema_lookup outputs later calls
// mention and whose log_dump outputs nothing mentions; trained on them,
// the policy must keep the first more than the second on held-out runs
// (by 0.5 in mean ratio) and spend fewer tokens than tool-type-conditional.
func TestTrainPlantedSynth(t *testing.T) {
	d := testDeps(t, nil)
	dir := t.TempDir()
	d.DB = filepath.Join(dir, "planted.duckdb")
	corpus := filepath.Join(dir, "corpus")
	if _, stderr, code := run(t, d, "synth", "-n", "120", "--formats", "openai-messages", "--plant-reuse", corpus); code != 0 {
		t.Fatalf("synth: %s", stderr)
	}
	if _, stderr, code := run(t, d, "ingest", "--workers", "1", corpus); code != 0 {
		t.Fatalf("ingest: %s", stderr)
	}
	stdout, stderr, code := run(t, d, "train", "tracer", "--window", "32000", "--epochs", "20", "--no-save", "-o", filepath.Join(dir, "m.json"))
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	ratio := map[string]float64{}
	tokens := map[string]float64{}
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		var v float64
		switch {
		case len(f) == 3 && (f[0] == "schema_lookup" || f[0] == "log_dump"):
			if _, err := fmt.Sscan(f[2], &v); err == nil {
				ratio[f[0]] = v
			}
		case len(f) > 2 && (f[0] == "tracer(model)" || strings.HasPrefix(f[0], "tracer-tooltype")):
			if _, err := fmt.Sscan(f[1], &v); err == nil {
				tokens[strings.SplitN(f[0], "(", 2)[0]] = v
			}
		}
	}
	t.Logf("held-out retention %v, tokens/keep-all %v", ratio, tokens)
	if len(ratio) != 2 || ratio["schema_lookup"] < ratio["log_dump"]+0.5 {
		t.Errorf("held-out retention %v: want schema_lookup ≥ log_dump + 0.5\n%s", ratio, stdout)
	}
	if len(tokens) != 2 || tokens["tracer"] >= tokens["tracer-tooltype"] {
		t.Errorf("held-out tokens/keep-all %v: want the learned policy below tracer-tooltype\n%s", tokens, stdout)
	}
}
