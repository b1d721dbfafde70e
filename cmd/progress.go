package cmd

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/internal/textfmt"
)

// The progress bars trajmine ingest and report draw on stderr when it is a
// terminal (Deps.ErrIsTTY): ingest's in bytes read, then report's one per
// analysis stage (analysis.ReportOptions.Progress) and the page's write.

// ingestBar is ingest's bar: the inputs' bytes done, read or skipped,
// described by the files done of all (imported, skipped or failed:
// ingest.Options.Done), the bytes read, their rate and the files' rate
// (ingestText). The bytes of a file the quick check skips
// (ingest.Options.Skipped: imported before, unchanged) move the bar but
// never count as read: counting them read gave rates like "795 GB/s", and
// taking them off the total left a re-import of files all skipped at
// "ingest 1.5 MB 0%". The library's own rate is off: it is over its last
// few renders.
type ingestBar struct {
	bar   *progressbar.ProgressBar
	start time.Time
	mu    sync.Mutex // the counts, the description
	files int        // the inputs' files
	nread int64
	done  int // files done with
	same  int // of them skipped unchanged
}

func newIngestBar(w io.Writer, files int, bytes int64) *ingestBar {
	b := &ingestBar{start: time.Now(), files: files, bar: progressbar.NewOptions64(max(bytes, 1),
		progressbar.OptionSetWriter(w), progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())}
	b.describe()
	return b
}

// read counts n bytes read.
func (b *ingestBar) read(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nread += n
	b.describe()
	_ = b.bar.Add64(n)
}

// skipped counts a file the quick check skipped, its n bytes unread.
func (b *ingestBar) skipped(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.same++
	_ = b.bar.Add64(n)
}

// fileDone counts a file done with.
func (b *ingestBar) fileDone() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done++
	b.describe()
}

func (b *ingestBar) describe() {
	b.bar.Describe("ingest " + ingestText(b.done, b.files, b.same, b.nread, time.Since(b.start)))
}

// ingestText is what the ingest bar says after d: the files done of all,
// the bytes read and, once a second has passed (before that a rate is one
// file's burst, not the ingest's), their rate and the files' (skipped
// files counted), and how many files were skipped unchanged.
func ingestText(done, files, same int, n int64, d time.Duration) string {
	s := fmt.Sprintf("%s of %s, %s read", textfmt.Thousands(int64(done)), countOf(files, "file"), humanBytes(n))
	if d >= time.Second {
		s += fmt.Sprintf(" (%s/s), %s files/s", humanBytes(int64(float64(n)/d.Seconds())), textfmt.Thousands(int64(float64(done)/d.Seconds())))
	}
	if same > 0 {
		s += fmt.Sprintf(", %s unchanged since imported", textfmt.Thousands(int64(same)))
	}
	return s
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

// stageCounts are the stages whose progress counts runs; any other
// (StageFinish: its 0 and 1 of 1 say only started and done) is a spinner
// with no count or rate.
var stageCounts = map[analysis.Stage]bool{analysis.StagePass: true, analysis.StageSample: true}

// update shows stage s at done of total (total ≤ 0: unknown).
func (b *stageBars) update(s analysis.Stage, done, total int) {
	label := stageLabels[s]
	if label == "" {
		label = string(s)
	}
	if !stageCounts[s] {
		b.spin(label)
		return
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

// spin shows a stage with no count: a spinner until the next stage.
func (b *stageBars) spin(label string) {
	if b.bar != nil && label == b.stage {
		return
	}
	b.finish()
	b.stage = label
	b.bar = progressbar.NewOptions(-1, progressbar.OptionSetWriter(b.w), progressbar.OptionSetDescription(label),
		progressbar.OptionSpinnerType(14), progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	_ = b.bar.Add(1)
}

// page shows the page's write (no count: a spinner until finish).
func (b *stageBars) page() { b.spin("write the page") }

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
