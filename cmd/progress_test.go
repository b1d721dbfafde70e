package cmd

import (
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/schema"
)

// TestIngestBar: a skipped file's bytes leave the total and never count
// as read, so the rate is over the bytes read (a 1 GB skip once gave
// "795 GB/s").
func TestIngestBar(t *testing.T) {
	tests := []struct {
		name            string
		total           int64
		read, skip      []int64
		wantMax, wantAt int64
	}{
		{"reads only", 1000, []int64{100, 300}, nil, 1000, 400},
		{"a skipped file", 1000, []int64{100}, []int64{600}, 400, 100},
		{"all skipped: total 1, not unknown", 1000, nil, []int64{400, 600}, 1, 0},
		{"skips after reads: never below what was read", 1000, []int64{500}, []int64{900}, 500, 500},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newIngestBar(io.Discard, tc.total)
			for _, n := range tc.read {
				b.read(n)
			}
			for _, n := range tc.skip {
				b.skipped(n)
			}
			s := b.bar.State()
			if s.Max != tc.wantMax || s.CurrentNum != tc.wantAt {
				t.Errorf("bar at %d of %d, want %d of %d", s.CurrentNum, s.Max, tc.wantAt, tc.wantMax)
			}
		})
	}
}

// TestIngestRate: bytes, and after the first second their rate.
func TestIngestRate(t *testing.T) {
	tests := []struct {
		n    int64
		d    time.Duration
		want string
	}{
		{4 << 20, time.Millisecond, "4.0 MB"}, // a burst: no rate
		{300 << 20, 2 * time.Second, "300.0 MB, 150.0 MB/s"},
		{0, 5 * time.Second, "0 B, 0 B/s"},
	}
	for _, tc := range tests {
		if got := ingestRate(tc.n, tc.d); got != tc.want {
			t.Errorf("ingestRate(%d, %v) = %q, want %q", tc.n, tc.d, got, tc.want)
		}
	}
}

// TestStageBars: a bar per stage, replaced when the stage changes, with the
// stage's total (a spinner when unknown).
func TestStageBars(t *testing.T) {
	b := &stageBars{w: io.Discard}
	b.update(analysis.StagePass, 0, 12)
	b.update(analysis.StagePass, 5, 12)
	if s := b.bar.State(); b.stage != "diagnose, replay, mine" || s.Max != 12 || s.CurrentNum != 5 {
		t.Errorf("pass: %q at %d of %d", b.stage, s.CurrentNum, s.Max)
	}
	b.update(analysis.StageSample, 1, 0)
	if s := b.bar.State(); b.stage != "replay the sample" || s.Max != -1 {
		t.Errorf("sample: %q, max %d; want a spinner", b.stage, s.Max)
	}
	b.page()
	if b.stage != "write the page" {
		t.Errorf("page: %q", b.stage)
	}
	b.finish()
	if b.bar != nil {
		t.Error("finish left a bar")
	}
}

// TestAmbiguousRun: at most 10 candidates, by id, then how many more.
func TestAmbiguousRun(t *testing.T) {
	var runs []schema.Run
	for i := 12; i > 0; i-- { // out of order: the list sorts them
		runs = append(runs, schema.Run{RunID: fmt.Sprintf("r%02d", i), SourceFormat: "codex-cli", NTurns: int64(i)})
	}
	want := `run prefix "r" is ambiguous: 12 runs start with it; the candidates are:
  r01  codex-cli  -  1 turn
  r02  codex-cli  -  2 turns
  r03  codex-cli  -  3 turns
  r04  codex-cli  -  4 turns
  r05  codex-cli  -  5 turns
  r06  codex-cli  -  6 turns
  r07  codex-cli  -  7 turns
  r08  codex-cli  -  8 turns
  r09  codex-cli  -  9 turns
  r10  codex-cli  -  10 turns
  and 2 more`
	if got := ambiguousRun("r", runs).Error(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
