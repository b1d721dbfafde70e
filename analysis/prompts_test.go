package analysis

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPackPrompts: the bytes are hand-laid (zigzag varints: 5 → 10,
// −2 → 3, 100 → 200 = 0xc8 0x01) and decode back to the prompts.
func TestPackPrompts(t *testing.T) {
	for _, c := range []struct {
		name    string
		prompts []int64
		want    []byte
	}{
		{"none", nil, nil},
		{"rising", []int64{5, 10, 110}, []byte{10, 10, 0xc8, 0x01}},
		// 5, then four calls of 5 (a run of 4: 0 and 3), then 3
		{"flat", []int64{5, 5, 5, 5, 5, 3}, []byte{10, 0, 3, 3}},
		{"leading zeros", []int64{0, 0, 7}, []byte{0, 1, 14}},
		{"falls", []int64{100, 40}, []byte{0xc8, 0x01, 119}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := packPrompts(c.prompts)
			if !bytes.Equal(got, c.want) {
				t.Errorf("packPrompts = %v, want %v", got, c.want)
			}
			if diff := cmp.Diff(c.prompts, unpackPrompts(got)); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
	// truncated bytes decode what they hold, without a panic
	if got := unpackPrompts([]byte{10, 0}); !cmp.Equal(got, []int64{5}) {
		t.Errorf("truncated: %v", got)
	}
}
