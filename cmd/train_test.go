package cmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/tracer"
)

func TestTrainFlagParsing(t *testing.T) {
	var got *TrainOptions
	c := NewTrainCmd(testDeps(t, nil), func(o *TrainOptions) error { got = o; return nil })
	c.SetArgs([]string{"tracer", "--family", "claude", "--window", "64000", "--seed", "7", "-o", "m.json", "--compressor", "summary", "--lambda", "0", "--ablate", "target=,tool#3", "--holdout-every", "5", "--reward", "tokens", "--prices", "p.yaml"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	want := &TrainOptions{Family: "claude", Window: 64000, Seed: 7, Model: "m.json", Epochs: 30, Samples: 2, Hidden: 32, LR: 0.02,
		Lambda: 0, Credit: 10, Trigger: 0.5, Keep: 1, Compressor: "summary", Holdout: 5, Ablate: []string{"target=", "tool#3"}, Attribution: 200, Reward: "tokens", Prices: "p.yaml"}
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
		{[]string{"train", "tracer", "-o", "m.json", "--holdout-every", "1"}, "--holdout-every 1 would hold out every run"},
		{[]string{"train", "tracer", "-o", "m.json", "--holdout-every", "-1"}, "invalid argument"},
		{[]string{"train", "tracer", "-o", "m.json", "--samples", "1"}, "--samples must be ≥ 2"},
		{[]string{"train", "tracer", "-o", "m.json", "--attribution", "-1"}, "--attribution must be ≥ 0"},
		{[]string{"train", "tracer", "-o", "m.json", "--compressor", "zip"}, "--compressor must be"},
		{[]string{"train", "tracer", "-o", "m.json", "--trigger", "2"}, "--trigger must be in [0, 1]"},
		{[]string{"train", "tracer", "-o", "m.json", "--reward", "dollars"}, "--reward must be cost or tokens"},
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
	args := []string{"train", "tracer", "--window", "3000", "--epochs", "2", "--hidden", "4", "--holdout-every", "2", "--attribution", "3", "-o", model}
	stdout, stderr, code := run(t, d, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"EPOCH", "wrote " + model, "held-out runs:", "tracer(model)", "tracer-tooltype(trigger=0.5,keep=1)", "attributor check: 3 (run, output) pairs"} {
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

// TestTrainRecommendSplit checks that train tracer and recommend --model
// split alike: a model trained at recommend's --holdout-every never saw a
// run recommend holds out (the model file records the rule and its runs),
// and recommend refuses a model trained on every run, naming the runs it
// holds out. The held-out runs are computed here from the store's run ids
// with FNV-1a-32 written out.
func TestTrainRecommendSplit(t *testing.T) {
	d := simulateDB(t)
	dir := t.TempDir()
	st, err := store.Open(context.Background(), store.Config{Path: d.DB, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := st.DB().Query("SELECT run_id FROM runs ORDER BY run_id")
	if err != nil {
		t.Fatal(err)
	}
	var ids, held []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		h := uint32(2166136261)
		for i := 0; i < len(id); i++ {
			h = (h ^ uint32(id[i])) * 16777619
		}
		if h%4 == 0 {
			held = append(held, id)
		}
	}
	rows.Close()
	st.Close()
	if len(held) == 0 || len(held) == len(ids) {
		t.Fatalf("fixture: %d of %d runs held out at every 4; the test needs some of each", len(held), len(ids))
	}
	train := func(name string, every string) *tracer.Model {
		path := filepath.Join(dir, name)
		if _, stderr, code := run(t, d, "train", "tracer", "--window", "3000", "--epochs", "1", "--hidden", "2", "--no-save", "--holdout-every", every, "-o", path); code != 0 {
			t.Fatalf("train --holdout-every %s: exit %d: %s", every, code, stderr)
		}
		m, err := tracer.ReadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	t.Logf("%d runs, held out at every 4: %v", len(ids), held)
	split := train("split.json", "4")
	if got := split.Training.Split; got != "held out when FNV-1a-32(run id) mod 4 = 0" || split.Training.HoldoutEvery != 4 {
		t.Errorf("model records split %q every %d", got, split.Training.HoldoutEvery)
	}
	var wantTrain []string
	for _, id := range ids {
		if !slices.Contains(held, id) {
			wantTrain = append(wantTrain, id)
		}
	}
	if got := slices.Sorted(slices.Values(split.Training.RunIDs)); !slices.Equal(got, wantTrain) {
		t.Errorf("trained on %v, want the runs recommend does not hold out %v", got, wantTrain)
	}
	if _, stderr, code := run(t, d, "recommend", "--window", "3000", "--model", filepath.Join(dir, "split.json")); code != 0 {
		t.Errorf("recommend with a model trained on its split: exit %d: %s", code, stderr)
	}
	all := train("all.json", "0")
	if len(all.Training.RunIDs) != len(ids) {
		t.Errorf("--holdout-every 0 trained on %d runs, want all %d", len(all.Training.RunIDs), len(ids))
	}
	_, stderr, code := run(t, d, "recommend", "--window", "3000", "--model", filepath.Join(dir, "all.json"))
	if code == 0 || !strings.Contains(stderr, fmt.Sprintf("%d held-out run", len(held))) || !strings.Contains(stderr, held[0]) ||
		!strings.Contains(stderr, "--holdout-every 4") {
		t.Errorf("recommend with a model trained on its held-out runs %v: exit %d, stderr %q; want a refusal naming them", held, code, stderr)
	}
	// recommend at another split: every 2 holds out a superset of every 4's runs, so the every-4 model leaks there
	if _, stderr, code := run(t, d, "recommend", "--window", "3000", "--holdout-every", "2", "--model", filepath.Join(dir, "split.json")); code == 0 {
		// only if some run held out at 2 was trained on at 4
		var leak bool
		for _, id := range split.Training.RunIDs {
			h := uint32(2166136261)
			for i := 0; i < len(id); i++ {
				h = (h ^ uint32(id[i])) * 16777619
			}
			leak = leak || h%2 == 0
		}
		if leak {
			t.Errorf("recommend --holdout-every 2 with an every-4 model that trained on its held-out runs: exit 0 (%s)", stderr)
		}
	}
}

// TestTrainFamilyWarning: a model trained on one family records it (the
// --family filter and the training runs per family), and simulate and
// recommend warn on stderr for every other family they apply it to, never
// for its own.
func TestTrainFamilyWarning(t *testing.T) {
	d := simulateDB(t)
	model := filepath.Join(t.TempDir(), "sonnet.json")
	if _, stderr, code := run(t, d, "train", "tracer", "--family", "claude-sonnet-4", "--window", "3000", "--epochs", "1", "--hidden", "2", "--attribution", "0", "--no-save", "-o", model); code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	m, err := tracer.ReadModel(model)
	if err != nil {
		t.Fatal(err)
	}
	if m.Training.Family != "claude-sonnet-4" || len(m.Training.Families) != 1 || m.Training.Families["claude-sonnet-4"] != m.Training.Runs || m.Training.Runs == 0 {
		t.Fatalf("model records family %q, families %v, %d runs", m.Training.Family, m.Training.Families, m.Training.Runs)
	}
	for _, args := range [][]string{
		{"simulate", "--no-save", "--window", "3000", "--policy", "tracer(model=" + model + ")"},
		{"recommend", "--window", "3000", "--model", model},
	} {
		_, stderr, code := run(t, d, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", args[0], code, stderr)
		}
		for _, fam := range []string{"claude-haiku-4", "claude-opus-4", "gpt-5.4"} {
			if !strings.Contains(stderr, "warning: tracer(model="+model+") was trained on claude-sonnet-4") || !strings.Contains(stderr, "not on "+fam+":") {
				t.Errorf("%s: stderr lacks the warning for %s:\n%s", args[0], fam, stderr)
			}
		}
		if strings.Contains(stderr, "not on claude-sonnet-4") {
			t.Errorf("%s warns for the model's own family:\n%s", args[0], stderr)
		}
	}
}
