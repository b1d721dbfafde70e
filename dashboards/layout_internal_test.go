package dashboards

import (
	"slices"
	"testing"
)

func TestDownsample(t *testing.T) {
	var calls []Call
	for i := range 1000 {
		calls = append(calls, Call{Index: int64(i), Prompt: int64((i * 37) % 1001)})
	}
	calls[500].Prompt = 5000 // the peak
	got := downsample(calls, 50)
	if len(got) > 50 || got[0].Index != 0 || got[len(got)-1].Index != 999 {
		t.Fatalf("%d calls, first %d, last %d", len(got), got[0].Index, got[len(got)-1].Index)
	}
	if !slices.ContainsFunc(got, func(c Call) bool { return c.Prompt == 5000 }) {
		t.Error("the peak call was dropped")
	}
	if !slices.IsSortedFunc(got, func(a, b Call) int { return int(a.Index - b.Index) }) {
		t.Error("calls out of order")
	}
	if short := downsample(calls[:10], 50); len(short) != 10 {
		t.Errorf("a short run was downsampled to %d", len(short))
	}
}
