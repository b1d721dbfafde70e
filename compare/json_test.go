package compare_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/compare"
)

// TestJSONUnknownIsNull: a figure that is not known is null in JSON (which
// has no NaN), a known one its value.
func TestJSONUnknownIsNull(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		v    any
		want []string
	}{
		{compare.Metric{Name: "cost", Change: nan, Lo: nan, Hi: nan, Group: 2, Ref: math.Inf(1)}, []string{`"change":null`, `"change_lo":null`, `"group":2`, `"reference":null`}},
		{compare.Solve{P: nan, Diff: 0.25, Lo: nan, Hi: nan}, []string{`"p":null`, `"diff":0.25`}},
		{compare.Figure{Predicted: -0.1, PLo: nan, PHi: nan, Observed: nan}, []string{`"predicted":-0.1`, `"predicted_lo":null`, `"observed":null`}},
	} {
		b, err := json.Marshal(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s lacks %s", b, w)
			}
		}
	}
}
