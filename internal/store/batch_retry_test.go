package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

// buffered is a parsed small file holding one run id with n events.
func buffered(path, runID string, n int, toolName string) *ingest.Buffered {
	sha := fmt.Sprintf("%064x", len(path)*7919+n)
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	b := &ingest.Buffered{
		Src:  &schema.Source{Path: path, SHA256: sha, Format: "openai-messages", IngestedAt: t0, Runs: 1, Events: int64(n)},
		Runs: []schema.Run{{RunID: runID, SourceFormat: "openai-messages", SourcePath: path, SourceSHA256: sha, EndReason: schema.EndUnknown, EndReasonSource: schema.SourceInferred}},
	}
	for i := range n {
		b.Events = append(b.Events, schema.Event{RunID: runID, Seq: int64(i), Kind: schema.KindToolCall, ToolName: toolName, CallID: fmt.Sprint(i)})
		b.Usage = append(b.Usage, schema.Usage{RunID: runID, Turn: int64(i)})
	}
	b.ToolOutputs = []schema.ToolOutput{{RunID: runID, ToolKey: "k"}}
	b.ContextOps = []schema.ContextOp{{RunID: runID, Op: schema.OpDisable, ToolKey: "k"}}
	return b
}

// TestCommitBatchRetryKeepsRowsTogether is issue 19's repro: a batch with a
// file that cannot be stored (here a tool name that is not valid UTF-8,
// which DuckDB refuses; the importer boundary repairs such bytes, but any
// file failing at commit does the same) and a good file sharing its run id.
// In the batch the good run was renamed S@sha8; on the retry alone it got S
// back while its events kept S@sha8 (the rename had been written into the
// buffer). The retry must store the good file whole under one id.
func TestCommitBatchRetryKeepsRowsTogether(t *testing.T) {
	st := newFileStore(t)
	ctx := context.Background()
	bad := buffered("bad.jsonl", "S", 2, "Re\x8dad")
	good := buffered("good.jsonl", "S", 3, "Read")
	if err := st.CommitBatch(ctx, []*ingest.Buffered{bad, good}); err == nil {
		t.Fatal("the batch with a bad file committed")
	}
	if err := st.CommitBatch(ctx, []*ingest.Buffered{bad}); err == nil {
		t.Fatal("the bad file committed alone")
	}
	if err := st.CommitBatch(ctx, []*ingest.Buffered{good}); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]int64{
		"SELECT count(*) FROM runs WHERE run_id = 'S'":         1,
		"SELECT count(*) FROM events WHERE run_id = 'S'":       3,
		"SELECT count(*) FROM usage WHERE run_id = 'S'":        3,
		"SELECT count(*) FROM tool_outputs WHERE run_id = 'S'": 1,
		"SELECT count(*) FROM context_ops WHERE run_id = 'S'":  1,
		"SELECT count(*) FROM events":                          3,
	} {
		if got := scalar[int64](t, st, q); got != want {
			t.Errorf("%s = %d, want %d", q, got, want)
		}
	}
	// the buffers are as the importer made them
	for _, b := range []*ingest.Buffered{bad, good} {
		for _, e := range b.Events {
			if e.RunID != "S" {
				t.Errorf("%s: buffered event's run id changed to %q", b.Src.Path, e.RunID)
			}
		}
	}
}
