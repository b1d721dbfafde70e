package htmlreport

import (
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
