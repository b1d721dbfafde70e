package ingest

import (
	"strings"
	"testing"
)

// TestJoinedEqual checks joinedEqual against strings.Join.
func TestJoinedEqual(t *testing.T) {
	for _, tc := range []struct {
		name string
		x, y []string
	}{
		{"both empty", nil, nil},
		{"none and one empty part", nil, []string{""}},
		{"same parts", []string{"a", "bc"}, []string{"a", "bc"}},
		{"split at the separator", []string{"a\nb"}, []string{"a", "b"}},
		{"split elsewhere", []string{"ab"}, []string{"a", "b"}},
		{"trailing empty part", []string{"a", ""}, []string{"a"}},
		{"leading empty part", []string{"", "a"}, []string{"\na"}},
		{"prefix", []string{"abc"}, []string{"ab"}},
		{"differ in the last byte", []string{"x", "abc"}, []string{"x", "abd"}},
		{"empty parts in the middle", []string{"a", "", "b"}, []string{"a\n", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := strings.Join(tc.x, "\n") == strings.Join(tc.y, "\n")
			if got := joinedEqual(tc.x, tc.y, "\n"); got != want {
				t.Errorf("joinedEqual(%q, %q) = %v, want %v", tc.x, tc.y, got, want)
			}
			if got := joinedEqual(tc.y, tc.x, "\n"); got != want {
				t.Errorf("joinedEqual(%q, %q) = %v, want %v", tc.y, tc.x, got, want)
			}
		})
	}
}
