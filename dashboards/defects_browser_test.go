package dashboards_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/dashboards"
	"github.com/trajmine/trajmine/dashboards/browsertest"
)

// TestBrowserDefects loads, for each defect of issue 32.5, a page whose
// data calls it out, and checks in headless Chromium that the charts it
// concerns show no problem (browsertest's chart checks) and, where the
// defect is a choice, that the page chose right:
//
//   - behaviour: real logs' families use no manage_context, so every share
//     is 0 (the chart drew no bar for any family);
//   - recommendations: no family has a held-out saving (the chart was
//     empty);
//   - variants: the top variant has no events (an empty first row);
//   - default run: the first sampled run is a one-call compaction
//     side-call (it was the run shown first); the longest main-agent run
//     of the sample is shown instead;
//   - timeline: the default policy is as-logged, whose replay is the
//     logged line (two legend names for one thing, one line under the
//     other);
//   - titles: the policy charts' titles at half width (clipped);
//   - and a page of no runs, where every chart is a sentence.
func TestBrowserDefects(t *testing.T) {
	browsertest.Chromium(t)
	cases := []struct {
		name   string
		data   func() *dashboards.Data
		charts []string // charts that must show no problem
		step   string   // a browser step and its expected result
		want   string
	}{
		{name: "behaviour", charts: []string{"behaviour"}, data: func() *dashboards.Data {
			d := fixture(true)
			d.Behaviour = nil
			for i, fam := range []string{"claude-sonnet-4", "gpt-4o", "gpt-5"} {
				d.Behaviour = append(d.Behaviour, dashboards.BehaviourProfile{Family: fam, Label: "no-tool", Runs: 3 + i, Metrics: []dashboards.Metric{
					{Name: "manage_context ops per 100 calls", Value: 0}, {Name: "tokens freed per op (median)", Value: 0},
					{Name: "shallow ops", Value: 0, Unit: "%"}, {Name: "re-enable rate", Value: 0, Unit: "%"}, {Name: "thrash share", Value: 0, Unit: "%"},
					{Name: "compactions per 100 calls", Value: float64(i) * 1.5}}})
			}
			return d
		}},
		{name: "recommendations", charts: []string{"recommend-saving"}, data: func() *dashboards.Data {
			d := fixture(true)
			for i := range d.Recommendations {
				d.Recommendations[i].Saving, d.Recommendations[i].SavingLo, d.Recommendations[i].SavingHi = nil, nil, nil
			}
			return d
		}},
		{name: "variants", charts: []string{"process-variants"}, data: func() *dashboards.Data {
			d := fixture(true)
			d.Variants = append([]dashboards.Variant{{Runs: 3, Share: 0.5}}, d.Variants...)
			return d
		}},
		{name: "default-run", data: func() *dashboards.Data {
			d := fixture(true)
			side := d.Sample[0]
			side.RunID, side.Parent, side.Calls = "session-1/agent-acompact", "session-1", side.Calls[:1]
			for j := range side.Policies {
				side.Policies[j].Prompts = side.Policies[j].Prompts[:1]
			}
			d.Sample = append([]dashboards.RunDetail{side}, d.Sample...)
			rec := d.Runs[0]
			rec.RunID, rec.Calls = side.RunID, side.Calls
			d.Runs = append(d.Runs, rec)
			return d
		},
			// the longest main-agent run of the sample: run-3, 16 calls
			step: `echarts.getInstanceByDom(document.getElementById('chart-run-timeline')).getOption().title[0].text + ' | ' + echarts.getInstanceByDom(document.getElementById('chart-occupancy-run')).getOption().title[0].text`,
			want: "run-3 | run-3"},
		{name: "timeline", charts: []string{"run-timeline", "occupancy-run"}, data: func() *dashboards.Data {
			d := fixture(true)
			d.Recommendations = []dashboards.Recommendation{}
			d.Policies = []dashboards.Policy{{Spec: "keep-all", Short: "keep-all"}, {Spec: "as-logged", Short: "as-logged"}}
			for i := range d.Sample {
				r := &d.Sample[i]
				r.Policies = r.Policies[:2]
				r.Policies[1].Policy = "as-logged"
				r.Policies[1].Prompts = nil
				for _, c := range r.Calls {
					r.Policies[1].Prompts = append(r.Policies[1].Prompts, c.Prompt)
				}
			}
			return d
		}},
		{name: "titles", charts: []string{"policy-ratio", "policy-outcomes", "policy-reinv", "policy-cost"}, data: func() *dashboards.Data { return fixture(true) }},
		// no runs at all: every chart is a sentence, and the page still
		// loads without an error (its script has no chart to draw)
		{name: "no-runs", data: func() *dashboards.Data {
			return &dashboards.Data{Title: "empty", Recommendations: []dashboards.Recommendation{}}
		},
			step: `String(document.querySelectorAll('[data-chart]').length) + ' charts, ' + document.querySelectorAll('p.nochart').length + ' sentences'`,
			// ends, peaks, the four policy charts, every run, the sampled
			// run, the timeline, rent, survival (no family: the
			// recommendations section says it has none, without a chart)
			want: "0 charts, 11 sentences"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := dashboards.Write(&b, tc.data(), nil); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "report.html")
			if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			var steps []string
			if tc.step != "" {
				steps = []string{tc.step}
			}
			r := browsertest.Load(t, file, &browsertest.Options{ShotDir: browsertest.ShotDir(t, "defect-"+tc.name), Steps: steps})
			for _, e := range r.Errors {
				t.Errorf("browser error: %s", e)
			}
			for _, id := range tc.charts {
				for _, c := range r.Charts {
					if c.ID == id && len(c.Problems) > 0 {
						t.Errorf("chart %s: %s", id, strings.Join(c.Problems, "; "))
					}
				}
			}
			if tc.step != "" && (len(r.Steps) != 1 || r.Steps[0] != tc.want) {
				t.Errorf("step = %q, want %q", r.Steps, tc.want)
			}
		})
	}
}
