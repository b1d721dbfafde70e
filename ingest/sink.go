package ingest

import (
	"context"
	"time"

	"github.com/trajmine/trajmine/schema"
)

// Sink receives imported records. internal/store implements it on DuckDB;
// tests use MemSink.
type Sink interface {
	// Seen reports whether a file with this sha256 was already imported.
	Seen(ctx context.Context, sha256 string) (bool, error)
	// Begin starts one file's all-or-nothing import.
	Begin(ctx context.Context, src *schema.Source) (Tx, error)
}

// QuickSink is a Sink that can tell, without reading a file, that it was
// imported as it is now: the import recorded this path with this size, and
// the file has not been modified since (its modification time is more than
// QuickMargin before the import's time). Files uses it, unless
// Options.Rehash, to skip unchanged files without hashing them (as make and
// rsync's quick check do); any other file is hashed and skipped only if its
// sha256 was imported.
type QuickSink interface {
	Unchanged(ctx context.Context, path string, size int64, modified time.Time) (bool, error)
}

// FinishSink is a Sink with work to do once a Files call's imports are
// committed, over what every file stored: the DuckDB store marks the usage
// rows that one run's log copies from another's (a resumed session
// repeats the responses of the session it continues), which no single
// file can tell. Files calls Finish after its last commit, also when some
// files failed, but not when the sink failed or the context ended.
type FinishSink interface {
	Finish(ctx context.Context) error
}

// OutcomeSink is a Sink that applies the outcome rows it holds (the
// outcome files imported: schema.Outcome) to its runs, by a rule over
// everything stored, so that it does not matter whether a run or its
// outcome file was imported first. Files calls ApplyOutcomes after Finish
// (under the same conditions) and puts the result in its Summary.
type OutcomeSink interface {
	ApplyOutcomes(ctx context.Context) (OutcomeResult, error)
}

// OutcomeResult is what an ApplyOutcomes did.
type OutcomeResult struct {
	Changed   int64 // runs whose outcome (resolved, score or where it comes from) changed
	Unmatched int64 // outcome rows, of all stored, whose key matches no run
}

// PathSeenSink is a Sink that can tell whether a file was imported at a
// path with a sha256 (Seen asks of the sha256 anywhere). Files asks it of
// the files of path-keyed formats (PathKeyed), whose rows depend on where
// they are as well as on their bytes: two Harbor reward.json files holding
// the same {"reward": 1.0} are the outcomes of two trials.
type PathSeenSink interface {
	SeenAt(ctx context.Context, path, sha256 string) (bool, error)
}

// UnhashedSink is a Sink that can begin a large file's import before the
// file's sha256 is known (hashlazy.go: the file is hashed as the import
// reads it, in one read, instead of waiting for a pass of its own). Files
// does so only when no file the sink holds has the file's size (SizeSeen;
// the earlier files of the same Files call are committed by then): then no
// file with the same content can have been imported, so whether to import
// it and what it replaces are known without the hash.
type UnhashedSink interface {
	// SizeSeen reports whether a file of size bytes was imported (by any
	// version of its importer).
	SizeSeen(ctx context.Context, size int64) (bool, error)
	// BeginUnhashed is Begin for a src whose SHA256 is empty: the rows
	// that carry the sha256 get it at Commit (whose src has it), and sha,
	// which may wait for a hash of its own, gives it earlier where it is
	// needed (a run id another file holds is stored as id@<sha8>).
	BeginUnhashed(ctx context.Context, src *schema.Source, sha func() (string, error)) (Tx, error)
}

// QuickMargin is how long before its import a file's last modification must
// be for QuickSink to call it unchanged: a file written while it was being
// read is hashed again.
const QuickMargin = 2 * time.Second

// Tx is one file's import. Records are streamed in; nothing is visible to
// readers until Commit, and Rollback discards all of it.
type Tx interface {
	// ClaimRunID returns the id under which run id is stored: id itself, or
	// id@<sha8> when another file already holds a run with that id.
	ClaimRunID(id string) (string, error)
	Run(*schema.Run) error
	Event(*schema.Event) error
	Usage(*schema.Usage) error
	ToolOutput(*schema.ToolOutput) error
	ContextOp(*schema.ContextOp) error
	Reject(*schema.Reject) error
	// Outcome stores one row of an outcome file (schema.Outcome).
	Outcome(*schema.Outcome) error
	// Commit records src (with its final counts) and makes the file's rows visible.
	Commit(src *schema.Source) error
	Rollback() error
}
