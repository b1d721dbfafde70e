package cmd

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/schema"
)

// TestIngestBar: the bar moves by the bytes done, a skipped file's
// included (a re-import of files all unchanged stood at "ingest 1.5 MB
// 0%"), but a skipped file's bytes never count as read (a 1 GB skip once
// gave "795 GB/s"); the text counts the files done, skipped ones too, and
// their rate.
func TestIngestBar(t *testing.T) {
	tests := []struct {
		name         string
		files        int
		bytes        int64
		read         []int64 // bytes read, each file done after
		skip         []int64 // files skipped unchanged, done
		wantAt       int64
		wantMax      int64
		wantText     string // ingestText at 0 s
		wantTextLate string // and at 2 s
	}{
		{"reads only", 3, 1000, []int64{100, 300}, nil, 400, 1000, "2 of 3 files, 400 B read", "2 of 3 files, 400 B read (200 B/s), 1 files/s"},
		{"all skipped", 28, 28 << 20, nil, slices.Repeat([]int64{1 << 20}, 28), 28 << 20, 28 << 20,
			"28 of 28 files, 0 B read, 28 unchanged since imported", "28 of 28 files, 0 B read (0 B/s), 14 files/s, 28 unchanged since imported"},
		{"a skipped file", 2, 3072, []int64{2048}, []int64{1024}, 3072, 3072,
			"2 of 2 files, 2.0 kB read, 1 unchanged since imported", "2 of 2 files, 2.0 kB read (1.0 kB/s), 1 files/s, 1 unchanged since imported"},
		{"no file: total 1, not unknown", 0, 0, nil, nil, 0, 1, "0 of 0 files, 0 B read", "0 of 0 files, 0 B read (0 B/s), 0 files/s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newIngestBar(io.Discard, tc.files, tc.bytes)
			for _, n := range tc.read {
				b.read(n)
				b.fileDone()
			}
			for _, n := range tc.skip {
				b.skipped(n)
				b.fileDone()
			}
			s := b.bar.State()
			if s.Max != tc.wantMax || s.CurrentNum != tc.wantAt {
				t.Errorf("bar at %d of %d, want %d of %d", s.CurrentNum, s.Max, tc.wantAt, tc.wantMax)
			}
			if got := ingestText(b.done, b.files, b.same, b.nread, 0); got != tc.wantText {
				t.Errorf("at 0 s: %q, want %q", got, tc.wantText)
			}
			if got := ingestText(b.done, b.files, b.same, b.nread, 2*time.Second); got != tc.wantTextLate {
				t.Errorf("at 2 s: %q, want %q", got, tc.wantTextLate)
			}
		})
	}
}

// TestStageBars: a bar per stage, replaced when the stage changes, with the
// stage's total in runs; a spinner with no count for a stage that counts
// no runs (the finish's "0% (0/1, 0 runs/hr)" said nothing) and for the page.
func TestStageBars(t *testing.T) {
	var out strings.Builder
	b := &stageBars{w: &out}
	b.update(analysis.StagePass, 0, 12)
	b.update(analysis.StagePass, 5, 12)
	if s := b.bar.State(); b.stage != "diagnose, replay, mine" || s.Max != 12 || s.CurrentNum != 5 {
		t.Errorf("pass: %q at %d of %d", b.stage, s.CurrentNum, s.Max)
	}
	b.update(analysis.StageSample, 1, 0)
	if s := b.bar.State(); b.stage != "replay the sample" || s.Max != -1 {
		t.Errorf("sample: %q, max %d; want a spinner", b.stage, s.Max)
	}
	out.Reset()
	b.update(analysis.StageFinish, 0, 1)
	b.update(analysis.StageFinish, 1, 1)
	if s := b.bar.State(); b.stage != "tables, CIs, recommendations" || s.Max != -1 {
		t.Errorf("finish: %q, max %d; want a spinner", b.stage, s.Max)
	}
	if strings.Contains(out.String(), "runs/") || strings.Contains(out.String(), "/1") {
		t.Errorf("the finish stage prints a count or rate: %q", out.String())
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
  r01  codex-cli  -  1 call
  r02  codex-cli  -  2 calls
  r03  codex-cli  -  3 calls
  r04  codex-cli  -  4 calls
  r05  codex-cli  -  5 calls
  r06  codex-cli  -  6 calls
  r07  codex-cli  -  7 calls
  r08  codex-cli  -  8 calls
  r09  codex-cli  -  9 calls
  r10  codex-cli  -  10 calls
  and 2 more`
	if got := ambiguousRun("r", runs, nil).Error(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
