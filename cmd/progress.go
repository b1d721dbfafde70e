package cmd

import (
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/trajmine/trajmine/analysis"
)

// The progress bars trajmine ingest and report draw on stderr when it is a
// terminal (Deps.ErrIsTTY): ingest's in bytes read, then report's one per
// analysis stage (analysis.ReportOptions.Progress) and the page's write.

// ingestBar is ingest's bar: bytes read of the inputs' total, with the
// rate of the bytes read (ingestRate). A file the quick check skips
// (ingest.Options.Skipped) leaves the total instead of counting as read:
// counting skipped files' bytes as read in an instant gave rates like
// "795 GB/s". The library's own rate is off: it is over its last few
// renders, and one small file counted whole at once in the first
// milliseconds also read as tens of GB/s.
type ingestBar struct {
	bar   *progressbar.ProgressBar
	start time.Time
	mu    sync.Mutex // the total's read-modify-write, the description
	nread int64
}

func newIngestBar(w io.Writer, total int64) *ingestBar {
	return &ingestBar{start: time.Now(), bar: progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("ingest"),
		progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())}
}

// read counts n bytes read.
func (b *ingestBar) read(n int64) {
	b.mu.Lock()
	b.nread += n
	b.bar.Describe("ingest " + ingestRate(b.nread, time.Since(b.start)))
	b.mu.Unlock()
	_ = b.bar.Add64(n)
}

// skipped takes a skipped file's n bytes off the total (never below what
// was read, nor below 1: a bar of 0 is "unknown length").
func (b *ingestBar) skipped(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.bar.ChangeMax64(max(b.bar.GetMax64()-n, b.bar.State().CurrentNum, 1))
}

// ingestRate is what the ingest bar says of n bytes read in d: the bytes,
// and their rate once a second has passed (before that a rate is one
// file's burst, not the ingest's).
func ingestRate(n int64, d time.Duration) string {
	if d < time.Second {
		return humanBytes(n)
	}
	return humanBytes(n) + ", " + humanBytes(int64(float64(n)/d.Seconds())) + "/s"
}

// stageBars draws one bar per stage of trajmine report after ingest: the
// shared pass (runs), the sample's replays (runs), the tables and
// aggregates, the page. A stage with no known total is a spinner.
type stageBars struct {
	w     io.Writer
	stage string
	bar   *progressbar.ProgressBar
}

// stageLabels are the bars' descriptions.
var stageLabels = map[analysis.Stage]string{
	analysis.StagePass:   "diagnose, replay, mine",
	analysis.StageSample: "replay the sample",
	analysis.StageFinish: "tables, CIs, recommendations",
}

// update shows stage s at done of total (total ≤ 0: unknown).
func (b *stageBars) update(s analysis.Stage, done, total int) {
	label := stageLabels[s]
	if label == "" {
		label = string(s)
	}
	b.set(label, done, total)
}

func (b *stageBars) set(label string, done, total int) {
	if b.bar == nil || label != b.stage {
		b.finish()
		if total <= 0 {
			total = -1
		}
		b.stage = label
		b.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(b.w), progressbar.OptionSetDescription(label),
			progressbar.OptionShowCount(), progressbar.OptionSetItsString("runs"), progressbar.OptionShowIts(),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	_ = b.bar.Set(done)
}

// page shows the page's write (no count: a spinner until finish).
func (b *stageBars) page() {
	b.finish()
	b.stage = "write the page"
	b.bar = progressbar.NewOptions(-1, progressbar.OptionSetWriter(b.w), progressbar.OptionSetDescription(b.stage),
		progressbar.OptionSpinnerType(14), progressbar.OptionClearOnFinish())
	_ = b.bar.Add(1)
}

// finish clears the current bar.
func (b *stageBars) finish() {
	if b.bar != nil {
		_ = b.bar.Finish()
		b.bar = nil
	}
}

// finishIfAny is finish on a bar set that may be nil.
func (b *stageBars) finishIfAny() {
	if b != nil {
		b.finish()
	}
}
