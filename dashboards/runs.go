package dashboards

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// RunPoints is the most calls of a run the page's compact record keeps:
// longer runs are downsampled (see downsample) so that the page's size
// grows with the number of runs, not with their length.
const RunPoints = 160

// downsample keeps at most n of calls: the first and the last, and in each
// of n-2 equal slices of the rest the call with the largest prompt (so the
// peak, and every compaction's drop, stays visible as closely as n allows).
// Compaction calls are reported separately by the caller and not lost.
func downsample(calls []Call, n int) []Call {
	if len(calls) <= n || n < 3 {
		return calls
	}
	out := []Call{calls[0]}
	mid := calls[1 : len(calls)-1]
	b := n - 2
	for i := range b {
		lo, hi := i*len(mid)/b, (i+1)*len(mid)/b
		if lo >= hi {
			continue
		}
		best := lo
		for k := lo + 1; k < hi; k++ {
			if mid[k].Prompt > mid[best].Prompt {
				best = k
			}
		}
		out = append(out, mid[best])
	}
	return append(out, calls[len(calls)-1])
}

// allRunsJSON is every run's compact record, columnar: strings that repeat
// (models, families, formats, end reasons) are indices into Dict; per run,
// Points is the downsampled calls as delta-coded (call, prompt) pairs
// (the first pair absolute), Comp the compaction calls and Est the
// number of estimated prompts.
type allRunsJSON struct {
	Dict   []string  `json:"dict"`
	ID     []string  `json:"id"`
	Model  []int     `json:"model"`
	Family []int     `json:"family"`
	Format []int     `json:"format"`
	End    []int     `json:"end"`
	EndSrc []int     `json:"end_src"`
	Window []int64   `json:"window"`
	Peak   []int64   `json:"peak"`
	Share  []int     `json:"share"` // peak share in basis points (1/100 of a %)
	Calls  []int     `json:"calls"` // calls before downsampling
	Est    []int     `json:"est"`
	Sample []int     `json:"sample"` // index in the sample, -1 none
	Points [][]int64 `json:"points"`
	Comp   [][]int64 `json:"comp"`
	Cost   []int64   `json:"cost"` // USD in 1/10,000; -1 unknown
	// Pol is per run, per Data.Policies entry, (status as a Dict index,
	// overflow call or -1, token ratio in 1/1,000), flat; empty when the
	// run was not simulated.
	Pol     [][]int64 `json:"pol"`
	Sampled int       `json:"points_max"`
	// TL names Data.TimelinePolicies; Rep is per run, per TL entry, the
	// run's prompt tokens per logged call (RunRecord.Replays; -1 where the
	// policy's replay did not send it: a dropped manage_context-only call), every call
	// (not downsampled), delta-coded: the first entry's change from the call
	// before, each other entry's difference from the first at the same call
	// (0 past the first's end) as its change from the call before, so
	// that calls where a policy and as-logged agree are zeros, which gzip
	// all but removes (repDelta). Empty for a run not simulated.
	TL   []string    `json:"tl"`
	Rep  [][][]int64 `json:"rep"`
	Best string      `json:"best"` // Data.BestPolicy
}

// repDelta is xs delta-coded against ref (see allRunsJSON.Rep): entry j is
// (xs[j] − ref[j]) − (xs[j−1] − ref[j−1]), ref taken as 0 past its end.
func repDelta(xs, ref []int64) []int64 {
	out := make([]int64, len(xs))
	var prev int64
	for j, x := range xs {
		if j < len(ref) {
			x -= ref[j]
		}
		out[j], prev = x-prev, x
	}
	return out
}

// encodeRuns is d.Runs as gzip-compressed, base64-encoded JSON
// (allRunsJSON), which the page's script decodes with DecompressionStream.
// The bytes are deterministic: gzip without name or time, the default level.
func encodeRuns(d *Data) (string, int, error) {
	if len(d.Runs) == 0 {
		return "", 0, nil
	}
	sample := map[string]int{}
	for i, r := range d.Sample {
		sample[r.RunID] = i
	}
	a := allRunsJSON{Sampled: RunPoints, TL: d.TimelinePolicies, Best: d.BestPolicy}
	if a.TL == nil {
		a.TL = []string{}
	}
	dict := map[string]int{}
	code := func(s string) int {
		if i, ok := dict[s]; ok {
			return i
		}
		dict[s] = len(a.Dict)
		a.Dict = append(a.Dict, s)
		return dict[s]
	}
	for i := range d.Runs {
		r := &d.Runs[i]
		a.ID = append(a.ID, r.RunID)
		a.Model = append(a.Model, code(r.Model))
		a.Family = append(a.Family, code(r.Family))
		a.Format = append(a.Format, code(r.Format))
		a.End = append(a.End, code(r.EndReason))
		a.EndSrc = append(a.EndSrc, code(r.EndSource))
		a.Window = append(a.Window, r.Window)
		a.Peak = append(a.Peak, r.PeakTokens)
		share := 0
		if r.Window > 0 && !math.IsNaN(r.PeakShare) && !math.IsInf(r.PeakShare, 0) {
			share = int(math.Round(r.PeakShare * 10000))
		}
		a.Share = append(a.Share, share)
		a.Calls = append(a.Calls, len(r.Calls))
		s, ok := sample[r.RunID]
		if !ok {
			s = -1
		}
		a.Sample = append(a.Sample, s)
		est := 0
		comp := []int64{}
		for _, c := range r.Calls {
			if c.Estimated {
				est++
			}
			if c.Compaction {
				comp = append(comp, c.Index)
			}
		}
		a.Est = append(a.Est, est)
		a.Comp = append(a.Comp, comp)
		pts := downsample(r.Calls, RunPoints)
		flat := make([]int64, 0, 2*len(pts))
		var pt, pp int64
		for _, c := range pts {
			flat = append(flat, c.Index-pt, c.Prompt-pp)
			pt, pp = c.Index, c.Prompt
		}
		a.Points = append(a.Points, flat)
		cost := int64(-1)
		if r.CostKnown {
			cost = int64(math.Round(r.CostUSD * 10000))
		}
		a.Cost = append(a.Cost, cost)
		pol := make([]int64, 0, 4*len(r.Policies))
		for _, p := range r.Policies {
			ratio := p.TokenRatio
			if math.IsNaN(ratio) || math.IsInf(ratio, 0) {
				ratio = 0
			}
			flags := int64(0) // 1: saved (lost under what ran, the policy gets through), 2: lost (the reverse)
			if p.Saved {
				flags |= 1
			}
			if p.Lost {
				flags |= 2
			}
			pol = append(pol, int64(code(p.Status)), int64(p.OverflowCall), int64(math.Round(ratio*1000)), flags)
		}
		a.Pol = append(a.Pol, pol)
		rep := make([][]int64, len(r.Replays))
		for k, xs := range r.Replays {
			if k == 0 {
				rep[k] = repDelta(xs, nil)
			} else {
				rep[k] = repDelta(xs, r.Replays[0])
			}
		}
		a.Rep = append(a.Rep, rep)
	}
	raw, err := json.Marshal(a)
	if err != nil {
		return "", 0, fmt.Errorf("encode runs: %w", err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(raw); err != nil {
		return "", 0, fmt.Errorf("compress runs: %w", err)
	}
	if err := zw.Close(); err != nil {
		return "", 0, fmt.Errorf("compress runs: %w", err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes()), len(raw), nil
}

// endColour is the colour of an end reason in the run charts.
func endColour(reason string, i int) string {
	switch reason {
	case "context_overflow":
		return "#e15759"
	case "finished":
		return "#59a14f"
	}
	return palette[(i+5)%len(palette)]
}

// runsScatter is every run as a point: its model calls against its peak
// prompt, coloured by end reason; a click opens the run in the drill-down
// (the third value of a point is its index in Data.Runs).
func runsScatter(d *Data) Chart {
	if len(d.Runs) == 0 {
		return emptyChart("runs-scatter", SecOccupancy, "Every run: no run records.")
	}
	o := baseOption()
	o.Title = title("Every run: length against peak prompt", fmt.Sprintf("%s runs (diag_runs, diag_calls) by end reason; click a point to open the run", thousands(int64(len(d.Runs)))))
	o.Grid = grid("3%", "4%", "90", "40")
	o.Tooltip = richTooltip("item")
	var reasons []string
	for _, r := range d.Runs {
		if !slices.Contains(reasons, orDash(r.EndReason)) {
			reasons = append(reasons, orDash(r.EndReason))
		}
	}
	slices.Sort(reasons)
	for i, reason := range reasons {
		var pts [][]int64
		for k, r := range d.Runs {
			if orDash(r.EndReason) == reason {
				pts = append(pts, []int64{int64(len(r.Calls)), r.PeakTokens, int64(k)})
			}
		}
		s := Series{SingleSeries: charts.SingleSeries{Name: reason, Type: types.ChartScatter, Data: pts, SymbolSize: 6, ItemStyle: &opts.ItemStyle{Color: endColour(reason, i)}}}
		if len(d.Runs) > 2000 {
			s.Large = opts.Bool(true)
		}
		o.Series = append(o.Series, s)
	}
	withLegend(&o, 56, fullWidth, 10, nil)
	o.XAxis = zeroAxis("model calls")
	o.YAxis = &YAxis{YAxis: opts.YAxis{Type: "value", Name: "peak prompt tokens", Min: 0}}
	return Chart{ID: "runs-scatter", Section: SecOccupancy, Height: 420, Option: o}
}

// timelineChart is the frame of the drill-down's per-run timeline: the
// script fills its series for the chosen run and policy (the prompt per
// call as logged and under the policy, the tool outputs' tokens on a
// second axis, compactions and the overflow as marks on the same calls).
func timelineChart(d *Data) Chart {
	if len(d.Runs) == 0 {
		return emptyChart("run-timeline", SecDrilldown, "No run to show.")
	}
	o := baseOption()
	o.Title = title("Run timeline", "prompt tokens per model call, as logged and under the chosen policy")
	o.Grid = grid("3%", "4%", "100", "60")
	o.XAxis = zeroAxis("model call")
	o.YAxis = &YAxis{YAxis: opts.YAxis{Type: "value", Name: "prompt tokens", Min: 0}}
	o.Series = []Series{}
	return Chart{ID: "run-timeline", Section: SecDrilldown, Height: 480, Option: o,
		Caption: "logged (wide): the run's prompt per call as logged; the chosen policy's replay (dashed) is drawn over it, so both show where they agree; tool outputs' tokens on the right axis; compactions and overflows as marks on their calls."}
}
