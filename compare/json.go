package compare

import (
	"encoding/json"
	"math"
)

// JSON has no NaN or infinity: a figure that is not known (no pair with
// it, nothing solved) is written as null.

// jnum is f, or nil when it is not finite.
func jnum(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// MarshalJSON writes s with its unknown figures as null.
func (s Solve) MarshalJSON() ([]byte, error) {
	type plain Solve
	return json.Marshal(struct {
		plain
		RateGroup *float64 `json:"rate_group"`
		RateRef   *float64 `json:"rate_reference"`
		Diff      *float64 `json:"diff"`
		Lo        *float64 `json:"diff_lo"`
		Hi        *float64 `json:"diff_hi"`
		P         *float64 `json:"p"`
	}{plain(s), jnum(s.RateGroup), jnum(s.RateRef), jnum(s.Diff), jnum(s.Lo), jnum(s.Hi), jnum(s.P)})
}

// MarshalJSON writes m with its unknown figures as null.
func (m Metric) MarshalJSON() ([]byte, error) {
	type plain Metric
	return json.Marshal(struct {
		plain
		Group  *float64 `json:"group"`
		Ref    *float64 `json:"reference"`
		Change *float64 `json:"change"`
		Lo     *float64 `json:"change_lo"`
		Hi     *float64 `json:"change_hi"`
	}{plain(m), jnum(m.Group), jnum(m.Ref), jnum(m.Change), jnum(m.Lo), jnum(m.Hi)})
}

// MarshalJSON writes f with its unknown figures as null.
func (f Figure) MarshalJSON() ([]byte, error) {
	type plain Figure
	return json.Marshal(struct {
		plain
		Predicted *float64 `json:"predicted"`
		PLo       *float64 `json:"predicted_lo"`
		PHi       *float64 `json:"predicted_hi"`
		Observed  *float64 `json:"observed"`
		OLo       *float64 `json:"observed_lo"`
		OHi       *float64 `json:"observed_hi"`
	}{plain(f), jnum(f.Predicted), jnum(f.PLo), jnum(f.PHi), jnum(f.Observed), jnum(f.OLo), jnum(f.OHi)})
}
