package ingest

import (
	"io"
	"path/filepath"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
	"github.com/trajmine/trajmine/schema"
)

// formatSWEBenchResults is the SWE-bench run results importer.
const formatSWEBenchResults = "swebench-results"

// swebenchResults reads a SWE-bench evaluation's lists of instance ids, an
// outcome file (outcomes.go), in three shapes:
//
//  1. The harness's run report (<model>.<run_id>.json, also sb-cli's
//     reports): resolved_ids are resolved; unresolved_ids, empty_patch_ids
//     and error_ids are not (the harness counts them unresolved);
//     completed_ids, submitted_ids and incomplete_ids say nothing of the
//     outcome. One task_id row per id, the first list naming it wins.
//  2. A SWE-bench experiments submission's results/results.json
//     {"resolved": [...], "no_generation": [...], "no_logs": [...]} (older
//     ones also "generated", "applied", "install_fail" …): the ids in
//     resolved are resolved, those only in another list are not (the
//     first of swebenchNotResolved that names one is its detail). Only the
//     resolved ids are complete: the instances it does not list are not
//     resolved either, so it adds one scope row, not resolved, over the
//     folder of the submission (the folder above results/, else the
//     file's): every run under it that no row of its own gives an
//     outcome.
//  3. A results summary {"instances": [{"instance_id", "resolved"}, …]}
//     (mini-swe-agent submissions' results_summary.json): one task_id
//     row per instance with a resolved.
//
// An id that is not a string is rejected at its line.
type swebenchResults struct {
	formatInfo
	outcomeInfo
}

// swebenchRunReport are the run report's lists that state an outcome, in
// the order they are read.
var swebenchRunReport = []struct {
	list     string
	resolved bool
}{{"resolved_ids", true}, {"unresolved_ids", false}, {"empty_patch_ids", false}, {"error_ids", false}}

// swebenchNotResolved are the lists of a results.json besides resolved, in
// the order their ids are read (an id in several takes the first's name).
var swebenchNotResolved = []string{"no_generation", "no_logs", "install_fail", "reset_failed", "no_apply", "test_errored", "test_timeout", "applied", "with_logs", "generated"}

// Detect accepts a JSON object with a resolved_ids or unresolved_ids list
// (and no results list: terminal-bench's), with a resolved list among
// lists only, or with an instances list whose first element has an
// instance_id and a boolean resolved.
func (swebenchResults) Detect(name string, head []byte) bool {
	h := trimHead(head)
	if len(h) == 0 || h[0] != '{' {
		return false
	}
	keys := headKeys(h, 64)
	if _, ok := headKeyNamed(keys, "results"); ok {
		return false
	}
	for _, n := range []string{"resolved_ids", "unresolved_ids"} {
		if k, ok := headKeyNamed(keys, n); ok && k.kind == '[' {
			return true
		}
	}
	if k, ok := headKeyNamed(keys, "resolved"); ok && k.kind == '[' {
		for _, k := range keys {
			if k.kind != '[' {
				return false
			}
		}
		return true
	}
	if k, ok := headKeyNamed(keys, "instances"); ok {
		inner, ok := firstElemKeys(h, k)
		if !ok {
			return false
		}
		_, id := headKeyNamed(inner, "instance_id")
		res, ok := headKeyNamed(inner, "resolved")
		return id && ok && isBoolKind(res.kind)
	}
	return false
}

func (swebenchResults) Import(f *File, r io.Reader) error {
	d, err := readJSONDoc(f, r)
	if d == nil || err != nil {
		return err
	}
	fields, ok, err := d.object(f)
	if !ok {
		return err
	}
	done := map[string]bool{}
	emitList := func(list string, resolved bool) error {
		s, found := fields[list]
		if !found || len(s.raw) == 0 || s.raw[0] != '[' {
			return nil
		}
		elems, err := arrayElems(s)
		if err != nil {
			return d.syntax(f, err)
		}
		for _, el := range elems {
			id := ""
			if el.raw[0] == '"' {
				id = jsonString(el.raw)
			}
			if id == "" {
				if err := f.Reject(d.line(el.off), list+": an instance id was expected", el.raw); err != nil {
					return err
				}
				continue
			}
			if done[id] {
				continue
			}
			done[id] = true
			if err := (outcomeRow{line: d.line(el.off), kind: schema.KeyTaskID, key: id, resolved: boolPtr(resolved), detail: list}).emit(f); err != nil {
				return err
			}
		}
		return nil
	}
	switch {
	case fields["resolved_ids"].raw != nil || fields["unresolved_ids"].raw != nil:
		for _, l := range swebenchRunReport {
			if err := emitList(l.list, l.resolved); err != nil {
				return err
			}
		}
	case fields["resolved"].raw != nil:
		if err := emitList("resolved", true); err != nil {
			return err
		}
		for _, l := range swebenchNotResolved {
			if err := emitList(l, false); err != nil {
				return err
			}
		}
		scope := filepath.Dir(f.Path())
		if filepath.Base(scope) == "results" {
			scope = filepath.Dir(scope)
		}
		return outcomeRow{line: d.line(fields["resolved"].off), kind: schema.KeyScope, key: filepath.ToSlash(scope),
			resolved: boolPtr(false), detail: "not in resolved"}.emit(f)
	default:
		elems, ok, err := d.array(f, fields, "instances")
		if !ok {
			return err
		}
		return decodeElems(f, d, elems, "instances[%d]", func(_ int, line int64, el jsonSpan, v *map[string]json.RawMessage) error {
			id := scalarString((*v)["instance_id"])
			res, ok := parseResolvedJSON((*v)["resolved"])
			if !ok {
				return f.Reject(line, "instance "+id+": resolved is not a boolean", el.raw)
			}
			return outcomeRow{line: line, kind: schema.KeyTaskID, key: id, resolved: res, detail: "resolved"}.emit(f)
		})
	}
	return nil
}
