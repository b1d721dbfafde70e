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

// TestOpenBatch: files added to an open batch are stored by its commit
// only (nothing is visible before, a rollback stores nothing), in the
// order added, a run id taken by an earlier file renamed id@sha8; Add
// copies the rows (the buffer changed after Add does not change what is
// stored); after the commit the store knows the sources (Seen).
func TestOpenBatch(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		commit bool
		events int64 // events stored
		runs   string
	}{
		{"committed", true, 5, "S S@"},
		{"rolled back", false, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newFileStore(t)
			one := buffered("one.jsonl", "S", 2, "Read")
			two := buffered("two.jsonl", "S", 3, "Grep")
			b, err := st.OpenBatch(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []*ingest.Buffered{one, two} {
				if err := b.Add(f); err != nil {
					t.Fatal(err)
				}
			}
			for i := range one.Events { // not kept: changed after Add, stored as added
				one.Events[i].ToolName, one.Events[i].RunID = "Changed", "Z"
			}
			if n := scalar[int64](t, st, "SELECT count(*) FROM events"); n != 0 {
				t.Errorf("%d events visible before the commit", n)
			}
			if tc.commit {
				err = b.Commit()
			} else {
				err = b.Rollback()
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := scalar[int64](t, st, "SELECT count(*) FROM events"); n != tc.events {
				t.Errorf("%d events, want %d", n, tc.events)
			}
			if got := scalar[string](t, st, "SELECT coalesce(string_agg(left(run_id, 2), ' ' ORDER BY source_path), '') FROM runs"); got != tc.runs {
				t.Errorf("runs %q, want %q", got, tc.runs)
			}
			if !tc.commit {
				return
			}
			if got := scalar[string](t, st, "SELECT string_agg(DISTINCT tool_name, ' ' ORDER BY tool_name) FROM events WHERE run_id = 'S'"); got != "Read" {
				t.Errorf("tools of run S %q, want Read (as added)", got)
			}
			if got := scalar[int64](t, st, "SELECT count(*) FROM events WHERE run_id LIKE 'S@%' AND tool_name = 'Grep'"); got != 3 {
				t.Errorf("%d events of two.jsonl under its renamed run, want 3", got)
			}
			for _, f := range []*ingest.Buffered{one, two} {
				if seen, err := st.Seen(ctx, f.Src.SHA256); err != nil || !seen {
					t.Errorf("Seen(%s) = %v, %v after the commit", f.Src.Path, seen, err)
				}
			}
		})
	}
}
