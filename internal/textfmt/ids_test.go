package textfmt

import "testing"

func TestCutMiddle(t *testing.T) {
	tests := []struct {
		s    string
		w    int
		want string
	}{
		{"abcdefghij", 10, "abcdefghij"}, // fits
		{"abcdefghij", 5, "ab…ij"},       // 4 columns: 2 head, 2 tail
		{"abcdefghij", 6, "abc…ij"},      // 5 columns: the head takes the odd one
		{"abcdefghij", 1, "a…"},          // at least 2
		{"日本語のラン", 7, "日…ン"},             // wide runes: 3 columns each side hold one of 2 columns
	}
	for _, tc := range tests {
		if got := CutMiddle(tc.s, tc.w); got != tc.want {
			t.Errorf("CutMiddle(%q, %d) = %q, want %q", tc.s, tc.w, got, tc.want)
		}
	}
}

// TestUniqueWidth: the fewest columns at which the cut ids stay
// distinct, a session and its sub-agents (sharing a 36-character prefix)
// among them.
func TestUniqueWidth(t *testing.T) {
	const session = "0199c53d-2825-7a41-9f3e-5b1c2d3e4f50"
	tests := []struct {
		name string
		ids  []string
		lo   int
		want int
	}{
		// at 12: "0199c5…4f50", "0199c5…nt-a1", "0199c5…nt-b2"
		{"session and sub-agents", []string{session, session + "/agent-a1", session + "/agent-b2"}, 12, 12},
		// at 4 the cuts "01…1" of both sub-agents are alike; at 5 "01…50", "01…a1", "01…b1"
		{"from 2", []string{session, session + "/agent-a1", session + "/agent-b1"}, 2, 5},
		// only the middle differs: nothing short of the whole id tells them apart
		{"middle", []string{"abcdef-1-ghijkl", "abcdef-2-ghijkl"}, 6, 15},
		// the second characters differ, the tails alike: "a…1" at 3 columns, "ab…1" and "ac…1" at 4
		{"heads", []string{"abzzzz-1", "aczzzz-1"}, 2, 4},
		{"duplicates count once", []string{"aaaa", "aaaa"}, 2, 2},
		{"all fit", []string{"r1", "r2"}, 6, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := UniqueWidth(tc.ids, tc.lo)
			if got != tc.want {
				t.Errorf("UniqueWidth = %d, want %d", got, tc.want)
			}
			seen := map[string]string{}
			for _, id := range tc.ids {
				c := CutMiddle(id, got)
				if o, ok := seen[c]; ok && o != id {
					t.Errorf("%q and %q both print %q", o, id, c)
				}
				seen[c] = id
			}
		})
	}
}
