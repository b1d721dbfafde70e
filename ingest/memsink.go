package ingest

import (
	"context"
	"fmt"
	"sync"

	"github.com/trajmine/trajmine/schema"
)

// MemSink is an in-memory Sink for tests and tools that do not need a
// database. It validates every record with schema.Validate.
type MemSink struct {
	mu          sync.Mutex
	Sources     []schema.Source
	Runs        []schema.Run
	Events      []schema.Event
	Usage       []schema.Usage
	ToolOutputs []schema.ToolOutput
	ContextOps  []schema.ContextOp
	Rejects     []schema.Reject
	Outcomes    []schema.Outcome

	inflight map[string]bool // run ids claimed by transactions not yet finished
	stored   map[string]bool // run ids of Runs
}

var _ Sink = (*MemSink)(nil)

// Seen reports whether sha was committed.
func (m *MemSink) Seen(_ context.Context, sha string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.Sources {
		if s.SHA256 == sha {
			return true, nil
		}
	}
	return false, nil
}

var _ PathSeenSink = (*MemSink)(nil)

// SeenAt reports whether sha was committed at path.
func (m *MemSink) SeenAt(_ context.Context, path, sha string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.Sources {
		if s.SHA256 == sha && s.Path == path {
			return true, nil
		}
	}
	return false, nil
}

// Begin starts a buffered transaction.
func (m *MemSink) Begin(_ context.Context, src *schema.Source) (Tx, error) {
	return &memTx{m: m, sha: src.SHA256}, nil
}

type memTx struct {
	m     *MemSink
	sha   string
	buf   Buffered // the records until Commit
	ids   map[string]bool
	probe RunIDProbe
}

func (t *memTx) ClaimRunID(id string) (string, error) {
	t.m.mu.Lock()
	defer t.m.mu.Unlock()
	if t.ids == nil {
		t.ids = map[string]bool{}
	}
	taken := func(c string) bool {
		if t.ids[c] { // the importer already made a run with this id
			return true
		}
		if t.m.inflight[c] { // another file being imported claimed it
			return true
		}
		if len(t.m.stored) != len(t.m.Runs) { // Runs changed other than by Commit
			t.m.stored = make(map[string]bool, len(t.m.Runs))
			for _, r := range t.m.Runs {
				t.m.stored[r.RunID] = true
			}
		}
		return t.m.stored[c]
	}
	cand, _ := t.probe.Claim(id, t.sha, func(c string) (bool, error) { return taken(c), nil })
	t.ids[cand] = true
	if t.m.inflight == nil {
		t.m.inflight = map[string]bool{}
	}
	t.m.inflight[cand] = true
	return cand, nil
}

// release forgets the transaction's claims (the caller holds t.m.mu).
func (t *memTx) release() {
	for id := range t.ids {
		delete(t.m.inflight, id)
	}
}

func check(rec any) error {
	if err := schema.Validate(rec); err != nil {
		return fmt.Errorf("invalid record: %w", err)
	}
	return nil
}

func (t *memTx) Run(r *schema.Run) error               { t.buf.addRun(r); return check(r) }
func (t *memTx) Event(e *schema.Event) error           { t.buf.addEvent(e); return check(e) }
func (t *memTx) Usage(u *schema.Usage) error           { t.buf.addUsage(u); return check(u) }
func (t *memTx) ToolOutput(o *schema.ToolOutput) error { t.buf.addToolOutput(o); return check(o) }
func (t *memTx) ContextOp(c *schema.ContextOp) error   { t.buf.addContextOp(c); return check(c) }
func (t *memTx) Reject(r *schema.Reject) error         { t.buf.addReject(r); return check(r) }
func (t *memTx) Outcome(o *schema.Outcome) error       { t.buf.addOutcome(o); return check(o) }
func (t *memTx) Commit(src *schema.Source) error {
	t.m.mu.Lock()
	defer t.m.mu.Unlock()
	t.release()
	t.m.Sources = append(t.m.Sources, *src)
	t.m.Runs = append(t.m.Runs, t.buf.Runs...)
	if t.m.stored == nil {
		t.m.stored = map[string]bool{}
	}
	for _, r := range t.buf.Runs {
		t.m.stored[r.RunID] = true
	}
	t.m.Events = append(t.m.Events, t.buf.Events...)
	t.m.Usage = append(t.m.Usage, t.buf.Usage...)
	t.m.ToolOutputs = append(t.m.ToolOutputs, t.buf.ToolOutputs...)
	t.m.ContextOps = append(t.m.ContextOps, t.buf.ContextOps...)
	t.m.Rejects = append(t.m.Rejects, t.buf.Rejects...)
	t.m.Outcomes = append(t.m.Outcomes, t.buf.Outcomes...)
	return nil
}
func (t *memTx) Rollback() error {
	t.m.mu.Lock()
	t.release()
	t.m.mu.Unlock()
	t.buf = Buffered{}
	return nil
}

// Records returns pointers to every record held, in table order (runs,
// events, usage, tool outputs, context ops, rejects, outcomes), e.g. to
// check each with schema.Validate.
func (m *MemSink) Records() []any {
	recs := make([]any, 0, len(m.Runs)+len(m.Events)+len(m.Usage)+len(m.ToolOutputs)+len(m.ContextOps)+len(m.Rejects)+len(m.Outcomes))
	recs = appendAddrs(recs, m.Runs)
	recs = appendAddrs(recs, m.Events)
	recs = appendAddrs(recs, m.Usage)
	recs = appendAddrs(recs, m.ToolOutputs)
	recs = appendAddrs(recs, m.ContextOps)
	recs = appendAddrs(recs, m.Rejects)
	return appendAddrs(recs, m.Outcomes)
}

// appendAddrs appends to out a pointer to each element of s.
func appendAddrs[T any](out []any, s []T) []any {
	for i := range s {
		out = append(out, &s[i])
	}
	return out
}

// Check tests the rules trajmine check tests on a store (internal/store
// Check) that a sink can break: every event, usage, tool output and context
// op belongs to a run, run ids are unique, an event's (run, seq) is unique,
// and each source counts its runs and events. It returns the first broken.
func (m *MemSink) Check() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	runs := map[string]string{} // run id → source sha
	for _, r := range m.Runs {
		if _, dup := runs[r.RunID]; dup {
			return fmt.Errorf("check: run id %q stored twice", r.RunID)
		}
		runs[r.RunID] = r.SourceSHA256
	}
	nRuns, nEvents := map[string]int64{}, map[string]int64{}
	for _, r := range m.Runs {
		nRuns[r.SourceSHA256]++
	}
	seqs := map[string]map[int64]bool{}
	for _, e := range m.Events {
		sha, ok := runs[e.RunID]
		if !ok {
			return fmt.Errorf("check: event %s/%d belongs to no run", e.RunID, e.Seq)
		}
		nEvents[sha]++
		if seqs[e.RunID] == nil {
			seqs[e.RunID] = map[int64]bool{}
		}
		if seqs[e.RunID][e.Seq] {
			return fmt.Errorf("check: event %s/%d stored twice", e.RunID, e.Seq)
		}
		seqs[e.RunID][e.Seq] = true
	}
	for _, u := range m.Usage {
		if _, ok := runs[u.RunID]; !ok {
			return fmt.Errorf("check: usage %s/%d belongs to no run", u.RunID, u.Turn)
		}
	}
	for _, o := range m.ToolOutputs {
		if _, ok := runs[o.RunID]; !ok {
			return fmt.Errorf("check: tool output %s/%s belongs to no run", o.RunID, o.ToolKey)
		}
	}
	for _, c := range m.ContextOps {
		if _, ok := runs[c.RunID]; !ok {
			return fmt.Errorf("check: context op %s/%d belongs to no run", c.RunID, c.Seq)
		}
	}
	nOutcomes := map[[2]string]int64{}
	for _, o := range m.Outcomes {
		nOutcomes[[2]string{o.SourcePath, o.SourceSHA256}]++
	}
	for _, s := range m.Sources {
		if s.Runs != nRuns[s.SHA256] || s.Events != nEvents[s.SHA256] {
			return fmt.Errorf("check: source %s counts %d runs and %d events, holds %d and %d", s.Path, s.Runs, s.Events, nRuns[s.SHA256], nEvents[s.SHA256])
		}
		if n := nOutcomes[[2]string{s.Path, s.SHA256}]; s.Outcomes != n {
			return fmt.Errorf("check: source %s counts %d outcome rows, holds %d", s.Path, s.Outcomes, n)
		}
	}
	return nil
}
