package ingest

import (
	"io"

	"github.com/trajmine/trajmine/schema"
)

// formatSWEBenchReport is the SWE-bench per-instance report importer.
const formatSWEBenchReport = "swebench-report"

// swebenchReport reads the SWE-bench evaluation harness's per-instance
// report.json (logs/run_evaluation/<run>/<model>/<instance>/report.json)
// and the reports keyed the same way, an outcome file (outcomes.go):
//
//   - keyed by instance id, as the official harness writes it:
//     {"<instance_id>": {"patch_is_None", "patch_exists",
//     "patch_successfully_applied", "resolved", "tests_status"}}, and any
//     object of instances each with a boolean resolved (the
//     per_instance_details.json of SWE-bench experiments' bash-only
//     submissions: {"<id>": {"cost", "api_calls", "resolved"}}): one
//     task_id row per instance;
//   - flat, as mini-swe-agent's submissions keep it beside their
//     trajectories (logs/<instance_id>/report.json: {"patch_is_None", …,
//     "resolved", "tests_status"}): one path row keyed by the folder's name
//     (placeID), which matches the runs under trajs/<instance_id>/ and
//     those whose task id it is.
//
// An instance whose resolved is null or missing has no outcome and makes
// no row; one whose resolved is not a boolean is rejected at its line.
// The flat report's id is its place, so two flat reports with the same
// bytes are two imports (PathKeyed).
type swebenchReport struct {
	formatInfo
	outcomeInfo
	placeKeyed
}

// swebenchReportKeys are the keys of the harness's report besides resolved.
var swebenchReportKeys = []string{"patch_is_None", "patch_exists", "patch_successfully_applied", "tests_status"}

// Detect accepts a JSON object that is a flat report (a boolean resolved
// beside one of the harness's patch_* or tests_status keys) or whose first
// value is an object with a boolean resolved.
func (swebenchReport) Detect(name string, head []byte) bool {
	h := trimHead(head)
	if len(h) == 0 || h[0] != '{' {
		return false
	}
	keys := headKeys(h, 32)
	if len(keys) == 0 {
		return false
	}
	if k, ok := headKeyNamed(keys, "resolved"); ok {
		if !isBoolKind(k.kind) {
			return false
		}
		for _, n := range swebenchReportKeys {
			if _, ok := headKeyNamed(keys, n); ok {
				return true
			}
		}
		return false
	}
	if keys[0].kind != '{' {
		return false
	}
	k, ok := headKeyNamed(headKeys(h[keys[0].off:], 32), "resolved")
	return ok && isBoolKind(k.kind)
}

func (swebenchReport) Import(f *File, r io.Reader) error {
	d, err := readJSONDoc(f, r)
	if d == nil || err != nil {
		return err
	}
	fields, ok, err := d.object(f)
	if !ok {
		return err
	}
	if v, flat := fields["resolved"]; flat && len(v.raw) > 0 && v.raw[0] != '{' {
		res, ok := parseResolvedJSON(v.raw)
		line := d.line(v.off)
		if !ok {
			return f.Reject(line, "resolved is not a boolean", v.raw)
		}
		return outcomeRow{line: line, kind: schema.KeyPath, key: placeID(f.Path()), resolved: res, detail: "resolved"}.emit(f)
	}
	for _, inst := range sortedFields(fields) {
		line := d.line(inst.off)
		if len(inst.raw) == 0 || inst.raw[0] != '{' {
			if err := f.Reject(line, inst.name+": not an object", inst.raw); err != nil {
				return err
			}
			continue
		}
		rep, err := objectFields(inst.jsonSpan)
		if err != nil {
			if err := f.Reject(line, inst.name+": "+clipErr(err), inst.raw); err != nil {
				return err
			}
			continue
		}
		v, found := rep["resolved"]
		if !found {
			continue
		}
		res, ok := parseResolvedJSON(v.raw)
		if !ok {
			if err := f.Reject(d.line(v.off), inst.name+": resolved is not a boolean", v.raw); err != nil {
				return err
			}
			continue
		}
		if err := (outcomeRow{line: d.line(v.off), kind: schema.KeyTaskID, key: inst.name, resolved: res, detail: "resolved"}).emit(f); err != nil {
			return err
		}
	}
	return nil
}
