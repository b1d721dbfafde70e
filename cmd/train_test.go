package cmd

import (
	"bytes"
	"context"
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
		Lambda: 0, Credit: 1, Trigger: 0.5, Keep: 1, Compressor: "summary", Holdout: 0.2}
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
	if _, stderr, code := run(t, d, "simulate", "--no-save", "--window", "3000", "--policy", "tracer(model="+model+")"); code != 0 {
		t.Errorf("simulate with the model: exit %d: %s", code, stderr)
	}
}
