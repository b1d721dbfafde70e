package dashboards

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRepDelta: hand-computed codes. Against no reference, each call's
// change; against one, the change of the difference: zero while the two
// agree, and the value itself (as a change) past the reference's end.
func TestRepDelta(t *testing.T) {
	for _, c := range []struct {
		name    string
		xs, ref []int64
		want    []int64
	}{
		{"plain", []int64{100, 150, 120}, nil, []int64{100, 50, -30}},
		// differences 0, 0, −40, −40, then 70 past ref's end: 0, 0, −40, 0, 110
		{"against", []int64{100, 150, 160, 240, 70}, []int64{100, 150, 200, 280}, []int64{0, 0, -40, 0, 110}},
		{"empty", nil, []int64{1}, []int64{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, repDelta(c.xs, c.ref)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// BenchmarkEncodeRuns encodes 10,000 run records of 150 calls each, with
// and without their three replays (as-logged, keep-all and a policy that
// trims from call 60 on), and reports the page bytes per run: what the
// per-run timeline adds to the page.
func BenchmarkEncodeRuns(b *testing.B) {
	for _, replays := range []bool{false, true} {
		d := &Data{TimelinePolicies: []string{"as-logged", "keep-all", "mask"}}
		for i := range 10000 {
			r := RunRecord{RunID: fmt.Sprintf("run-%05d", i), Model: "m", Family: "f", Format: "x", Window: 200000}
			var al, ka, pol []int64
			for t := range 150 {
				p := int64(2000 + 1100*t + (i*7+t*13)%400)
				r.Calls = append(r.Calls, Call{Index: int64(t), Prompt: p})
				al, ka = append(al, p), append(ka, p)
				if t >= 60 {
					p -= int64(300 * (t - 59))
				}
				pol = append(pol, p)
			}
			if replays {
				r.Replays = [][]int64{al, ka, pol}
			}
			d.Runs = append(d.Runs, r)
		}
		b.Run(fmt.Sprintf("replays=%v", replays), func(b *testing.B) {
			n := 0
			for b.Loop() {
				s, _, err := encodeRuns(d)
				if err != nil {
					b.Fatal(err)
				}
				n = len(s)
			}
			b.ReportMetric(float64(n)/10000, "B/run")
		})
	}
}
