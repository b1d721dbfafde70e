package cmd

import (
	"runtime/debug"
	"testing"
)

// TestReportMemoryLimit: the soft limit is 384 MiB plus 40 KiB a run, set
// for the report and restored after it; $GOMEMLIMIT, when set, is left to
// the runtime.
func TestReportMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		name string
		env  string
		runs int
		want int64 // -1: unchanged
	}{
		{"no runs", "", 0, 384 << 20},
		{"10,000 runs", "", 10000, 384<<20 + 10000*40<<10}, // 774.6 MiB
		{"GOMEMLIMIT set", "1GiB", 10000, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GOMEMLIMIT", c.env)
			before := debug.SetMemoryLimit(-1)
			restore := reportMemoryLimit(c.runs)
			got := debug.SetMemoryLimit(-1)
			restore()
			if after := debug.SetMemoryLimit(-1); after != before {
				t.Errorf("limit after the report %d, want %d restored", after, before)
			}
			if c.want < 0 {
				c.want = before
			}
			if got != c.want {
				t.Errorf("limit during the report %d, want %d", got, c.want)
			}
		})
	}
}
