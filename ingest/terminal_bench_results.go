package ingest

import (
	"io"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
	"github.com/trajmine/trajmine/schema"
)

// formatTerminalBenchResults is the terminal-bench results importer.
const formatTerminalBenchResults = "terminal-bench-results"

// terminalBenchResults reads terminal-bench's (tb run) results.json, an
// outcome file (outcomes.go): a run's runs/<run_id>/results.json {"id",
// "results": [trial results …], "resolved_ids", "unresolved_ids",
// "accuracy", …} and a trial's <task_id>/<trial_name>/results.json
// {"trial_name", "task_id", "instruction", "is_resolved", "failure_mode",
// …}. Each trial result is a path row keyed by its trial_name (the folder
// that holds the trial's logs), is_resolved its outcome (null: none),
// pass_rate its score where the results have one, and a failure_mode
// other than unset its detail. A run's results without a results list
// give task_id rows from resolved_ids and unresolved_ids.
type terminalBenchResults struct {
	formatInfo
	outcomeInfo
}

// tbTrial is one trial's results.
type tbTrial struct {
	TrialName   string          `json:"trial_name"`
	TaskID      json.RawMessage `json:"task_id"`
	IsResolved  json.RawMessage `json:"is_resolved"`
	FailureMode json.RawMessage `json:"failure_mode"`
	PassRate    json.RawMessage `json:"pass_rate"`
}

// Detect accepts a trial's results (trial_name, a string task_id and
// is_resolved) and a run's (a results list whose first element has a
// trial_name and a task_id).
func (terminalBenchResults) Detect(name string, head []byte) bool {
	h := trimHead(head)
	if len(h) == 0 || h[0] != '{' {
		return false
	}
	keys := headKeys(h, 32)
	if isTBTrial(keys) {
		return true
	}
	k, ok := headKeyNamed(keys, "results")
	if !ok {
		return false
	}
	inner, ok := firstElemKeys(h, k)
	if !ok {
		return false
	}
	_, trial := headKeyNamed(inner, "trial_name")
	task, ok := headKeyNamed(inner, "task_id")
	return trial && ok && task.kind == '"'
}

// isTBTrial reports whether an object's keys are a trial result's.
func isTBTrial(keys []headKey) bool {
	_, trial := headKeyNamed(keys, "trial_name")
	task, ok := headKeyNamed(keys, "task_id")
	_, res := headKeyNamed(keys, "is_resolved")
	return trial && ok && task.kind == '"' && res
}

func (terminalBenchResults) Import(f *File, r io.Reader) error {
	d, err := readJSONDoc(f, r)
	if d == nil || err != nil {
		return err
	}
	fields, ok, err := d.object(f)
	if !ok {
		return err
	}
	if _, trial := fields["trial_name"]; trial {
		var t tbTrial
		if err := json.Unmarshal(d.root.raw, &t); err != nil {
			return f.Reject(1, "trial results: "+clipErr(err), d.root.raw)
		}
		return emitTBTrial(f, d.line(fields["trial_name"].off), &t)
	}
	if res, ok := fields["results"]; ok && !isJSONNull(res.raw) {
		elems, ok, err := d.array(f, fields, "results")
		if !ok {
			return err
		}
		return decodeElems(f, d, elems, "results[%d]", func(_ int, line int64, _ jsonSpan, t *tbTrial) error {
			return emitTBTrial(f, line, t)
		})
	}
	for _, l := range []struct {
		list     string
		resolved bool
	}{{"resolved_ids", true}, {"unresolved_ids", false}} {
		s, found := fields[l.list]
		if !found || isJSONNull(s.raw) {
			continue
		}
		var ids []string
		if err := json.Unmarshal(s.raw, &ids); err != nil {
			if err := f.Reject(d.line(s.off), l.list+": a list of task ids was expected", s.raw); err != nil {
				return err
			}
			continue
		}
		for _, id := range ids {
			if err := (outcomeRow{line: d.line(s.off), kind: schema.KeyTaskID, key: id, resolved: boolPtr(l.resolved), detail: l.list}).emit(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// emitTBTrial makes a trial's row: by its trial name, else its task id.
func emitTBTrial(f *File, line int64, t *tbTrial) error {
	res, ok := parseResolvedJSON(t.IsResolved)
	if !ok {
		return f.Reject(line, "is_resolved is not a boolean", t.IsResolved)
	}
	score, _ := parseScoreJSON(t.PassRate)
	detail := "is_resolved"
	if fm := jsonString(t.FailureMode); fm != "" && fm != "unset" && fm != "none" {
		detail += ", failure_mode " + fm
	}
	row := outcomeRow{line: line, kind: schema.KeyPath, key: t.TrialName, resolved: res, score: score, detail: detail}
	if row.key == "" {
		row.kind, row.key = schema.KeyTaskID, scalarString(t.TaskID)
	}
	return row.emit(f)
}
