package redact

import (
	"runtime"
	"sync"

	"github.com/trajmine/trajmine/schema"
)

// Records redacts, in place, the log text of a run's canonical records:
// the run's ids, source path, model, task id, end-reason detail and
// outcome source; each event's run id, role, tool name, call id, tool key,
// target, arguments and text; each usage row's run id, model, request id
// and copy_of_run_id; each context op's run id, tool key, trigger and
// detail. The fields trajmine sets from a closed set or computes
// (formats, families, kinds, reasons, hashes, action classes) are left as
// they are. The same text always becomes the same, so the ids that join
// the records still do.
//
// head > 0 redacts only the first head bytes of each event's text (Head:
// what a view that prints the head of each text needs; what it replaced
// there is counted); head ≤ 0 redacts all of it. The events are redacted on all cores. A nil r changes
// nothing.
func (r *Redactor) Records(run *schema.Run, events []schema.Event, usage []schema.Usage, ops []schema.ContextOp, head int) {
	if r == nil {
		return
	}
	s := r.String
	id := run.RunID
	rid := s(id)
	runID := func(v string) string {
		if v == id {
			return rid
		}
		return s(v)
	}
	run.RunID, run.ParentRunID, run.ContinuesRunID = rid, s(run.ParentRunID), s(run.ContinuesRunID)
	run.SourcePath, run.Model, run.TaskID = s(run.SourcePath), s(run.Model), s(run.TaskID)
	run.EndReasonDetail, run.OutcomeSource = s(run.EndReasonDetail), s(run.OutcomeSource)
	for i := range usage {
		u := &usage[i]
		u.RunID, u.Model, u.RequestID, u.CopyOf = runID(u.RunID), s(u.Model), s(u.RequestID), s(u.CopyOf)
	}
	for i := range ops {
		o := &ops[i]
		o.RunID, o.ToolKey, o.Trigger, o.Detail = runID(o.RunID), s(o.ToolKey), s(o.Trigger), s(o.Detail)
	}
	one := func(e *schema.Event) {
		e.RunID, e.Role, e.ToolName, e.CallID = runID(e.RunID), s(e.Role), s(e.ToolName), s(e.CallID)
		e.ToolKey, e.Target, e.Args = s(e.ToolKey), s(e.Target), s(e.Args)
		if head > 0 {
			var n int
			e.Text, n = r.Head(e.Text, head)
			r.Add(n)
		} else {
			e.Text = s(e.Text)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(events))
	if workers <= 1 {
		for i := range events {
			one(&events[i])
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				one(&events[i])
			}
		}()
	}
	for i := range events {
		next <- i
	}
	close(next)
	wg.Wait()
}
