// Package stale plants doc comments that name identifiers, some of which
// do not exist. It builds a Page with NewPage; the page used to be built
// by reportData, which is gone.
package stale

import (
	"fmt"

	"example.com/planted/other"
)

// Page is the page (see RunWork.Trace, not runWork.replayTrace).
type Page struct {
	Title string
	// Size is other.Thing.Size, or other.NewThing's; not other.Missing.
	Size int
}

// RunWork is one run's work.
type RunWork struct{ page Page }

// Trace returns the trace; it replaced RunWork.Replay and [Gone].
func (w *RunWork) Trace() string { return w.page.Title }

// CacheCheck is one check; NewPage returns CacheChecks in `Gone2`.
type CacheCheck struct{}

// Wrapped has other.Thing's fields: Wrapped.Size, not Wrapped.Nope. Its
// worker is in worker.go.
type Wrapped struct {
	other.Thing
	w worker
}

type worker struct{}

// NewPage returns a Page titled title, formatted with fmt.Sprintf (as
// with ScanState). It reads the sessionId and "toolCallId" keys, writes
// README.md, o.Export and runs.run_id as DuckDB does; maxBlock bounds
// it. TestNewPage checks it; reportSample did once.
//
//	p := notDeclared(pageData) // a code block is not checked
func NewPage(title string, maxBlock int) Page {
	_ = []string{"duckdb", "sessionId"}
	return Page{Title: fmt.Sprintf("%s %d", title, maxBlock), Size: other.NewThing().Size}
}
