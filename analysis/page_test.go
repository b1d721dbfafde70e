package analysis

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/dashboards"
	"github.com/trajmine/trajmine/simulate"
)

// pageRuns is the part of the page's run records (dashboards's
// allRunsJSON, in the page's trajmine-runs block) this test reads.
type pageRuns struct {
	ID     []string    `json:"id"`
	Sample []int       `json:"sample"`
	TL     []string    `json:"tl"`
	Rep    [][][]int64 `json:"rep"`
	Best   string      `json:"best"`
}

// readPageRuns pulls the run records out of a rendered page: the
// trajmine-runs block's base64 gzip JSON, as the page's script reads it.
func readPageRuns(t *testing.T, page []byte) pageRuns {
	t.Helper()
	m := regexp.MustCompile(`<script type="application/json" id="trajmine-runs">(.*?)</script>`).FindSubmatch(page)
	if m == nil {
		t.Fatal("no trajmine-runs block in the page")
	}
	var block struct {
		All string `json:"all"`
	}
	if err := json.Unmarshal(m[1], &block); err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(block.All)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	js, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var out pageRuns
	if err := json.Unmarshal(js, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// undelta decodes one run's Rep as the page's script does, written here
// from the format's description: the first array is each call's change
// from the call before; every other array is its difference from the
// first at the same call (0 past the first's end), delta-coded likewise.
func undelta(rep [][]int64) [][]int64 {
	var out [][]int64
	for k, d := range rep {
		var xs []int64
		v := int64(0)
		for j, x := range d {
			v += x
			p := v
			if k > 0 && j < len(out[0]) {
				p += out[0][j]
			}
			xs = append(xs, p)
		}
		out = append(out, xs)
	}
	return out
}

// TestPageTimelineMatchesSimCalls: the page carries, for every run, its
// prompt per call under as-logged, keep-all and the best-policy card's
// policy; for three runs (one outside the sample at least) they are the
// sim_calls rows trajmine simulate writes, read back by SQL.
func TestPageTimelineMatchesSimCalls(t *testing.T) {
	ctx := context.Background()
	st := synthStore(t, 16, 9)
	pols, err := reportPolicies(&ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	simCalls := func(runID, policy string) []int64 {
		rows, err := st.DB().QueryContext(ctx, `SELECT call, prompt_tokens FROM sim_calls WHERE run_id = ? AND policy = ? ORDER BY call`, runID, policy)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []int64
		for rows.Next() {
			var call, p int64
			if err := rows.Scan(&call, &p); err != nil {
				t.Fatal(err)
			}
			if call < int64(len(out)) {
				t.Fatalf("%s %s: sim_calls call %d at row %d", runID, policy, call, len(out))
			}
			for int64(len(out)) < call { // a logged call the replay did not send
				out = append(out, -1)
			}
			out = append(out, p)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	var runIDs []string
	rows, err := st.DB().QueryContext(ctx, `SELECT run_id FROM runs ORDER BY run_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		runIDs = append(runIDs, id)
	}
	rows.Close()
	if len(runIDs) != 16 {
		t.Fatalf("%d runs, want 16", len(runIDs))
	}

	// the report and its page
	rep, err := AnalyseReport(ctx, st, &ReportOptions{SampleTop: 1, SampleN: 1})
	if err != nil {
		t.Fatal(err)
	}
	// the page's timeline carries the decision's policy when the report
	// replayed it; 16 runs give no family the evidence for one, so the
	// test puts the catalog's mask in its place as the decision would
	best := BestPolicy(rep)
	if best != "" {
		t.Fatalf("a policy (%s) decided on 16 runs of several families", best)
	}
	best = "mask(n=10,style=swe-agent,unit=observations)"
	short := map[string]string{}
	for _, p := range rep.Simulation.Policies {
		short[p.Short] = p.Spec
	}
	d := Page(rep, nil, "test", "x.duckdb")
	if len(d.TimelinePolicies) != 2 || d.BestPolicy != "" {
		t.Fatalf("timeline policies %v (best %q) with no decision, want as-logged and keep-all", d.TimelinePolicies, d.BestPolicy)
	}
	d.TimelinePolicies, d.BestPolicy = timelineReplays(d.Runs, rep.Simulation, best), "mask"
	var page bytes.Buffer
	if err := dashboards.Write(&page, d, nil); err != nil {
		t.Fatal(err)
	}
	got := readPageRuns(t, page.Bytes())
	if len(got.ID) != len(runIDs) || len(got.Rep) != len(got.ID) {
		t.Fatalf("page: %d ids, %d replays, want %d", len(got.ID), len(got.Rep), len(runIDs))
	}
	var specs []string
	for _, n := range got.TL {
		specs = append(specs, short[n])
	}
	if !cmp.Equal(specs, []string{"as-logged", "keep-all", best}) || got.Best != got.TL[2] {
		t.Fatalf("timeline policies %v (specs %v, best %q), want as-logged, keep-all, %s", got.TL, specs, got.Best, best)
	}
	// three runs: the first, middle and last by id; at least one outside
	// the sample, and at least one where the best policy differs from
	// as-logged (else the comparison could not tell them apart)
	picked := []string{runIDs[0], runIDs[len(runIDs)/2], runIDs[len(runIDs)-1]}
	// then trajmine simulate's replays at each run's own window, every
	// run's sim_calls written (the report writes the sample's only)
	if _, err := SimulateStore(ctx, st, &SimulateOptions{Windows: []simulate.Window{simulate.OwnWindow}, Shards: 1, Calls: true}, pols); err != nil {
		t.Fatal(err)
	}
	outside, differs := 0, 0
	for _, id := range picked {
		i := slices.Index(got.ID, id)
		if i < 0 {
			t.Fatalf("run %s not on the page", id)
		}
		if got.Sample[i] < 0 {
			outside++
		}
		page := undelta(got.Rep[i])
		for k, spec := range specs {
			sql := simCalls(id, spec)
			if len(sql) == 0 {
				t.Fatalf("%s %s: no sim_calls rows", id, spec)
			}
			if diff := cmp.Diff(sql, page[k]); diff != "" {
				t.Errorf("run %s under %s: page prompts differ from sim_calls (-sql +page):\n%s", id, spec, diff)
			}
		}
		if !cmp.Equal(page[0], page[2]) {
			differs++
		}
	}
	if outside == 0 || differs == 0 {
		t.Errorf("of the three runs %d are outside the sample and %d differ under %s from as-logged: the test needs one of each", outside, differs, best)
	}
}
