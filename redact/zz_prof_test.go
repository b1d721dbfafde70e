package redact

import (
	"encoding/json"
	"os"
	"testing"
)

func loadZZ(tb testing.TB) []string {
	raw, err := os.ReadFile("/tmp/rt/texts.json")
	if err != nil {
		tb.Skip()
	}
	var rows []struct{ Text string }
	json.Unmarshal(raw, &rows)
	var out []string
	for _, r := range rows {
		out = append(out, r.Text)
	}
	return out
}

func TestZZDiff(t *testing.T) {
	d, _ := detector()
	n, diff := 0, 0
	for _, s := range loadZZ(t) {
		w, g := genericFindings(t, s, false), genericFindings(t, s, true)
		n += len(w)
		if len(w) != len(g) {
			diff++
		}
		_ = d
	}
	t.Logf("findings %d, texts differing %d", n, diff)
}

func BenchmarkZZSynth(b *testing.B) {
	texts := loadZZ(b)
	d, _ := detector()
	n := 0
	for _, s := range texts {
		n += len(s)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, s := range texts {
			redact(d, s)
		}
	}
}
