package store

import "testing"

func TestSpillCap(t *testing.T) {
	const gib = 1 << 30
	tests := []struct {
		name  string
		free  uint64
		known bool
		want  uint64
	}{
		{"plenty of disk: the 4 GiB cap", 100 * gib, true, 4 * gib},
		{"10 GiB free: a tenth", 10 * gib, true, gib},
		{"exactly 40 GiB: both rules agree", 40 * gib, true, 4 * gib},
		{"free space unknown: the cap", 0, false, 4 * gib},
		{"a full disk: 1 MiB, not 0 (none)", 0, true, 1 << 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := spillCap(tc.free, tc.known); got != tc.want {
				t.Errorf("spillCap(%d, %v) = %d, want %d", tc.free, tc.known, got, tc.want)
			}
		})
	}
}
