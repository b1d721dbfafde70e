package ingest

import (
	"io"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
	"github.com/trajmine/trajmine/schema"
)

// formatSWEBenchPreds is the SWE-bench predictions importer.
const formatSWEBenchPreds = "swebench-preds"

// swebenchPreds reads SWE-bench predictions, an outcome file
// (outcomes.go): SWE-agent's and mini-swe-agent's preds.json
// {"<instance_id>": {"model_name_or_path", "instance_id", "model_patch"}},
// a JSON list of such records, and JSONL of them (SWE-agent's
// all_preds.jsonl). A prediction is no evaluation: one with an empty (or
// null) model_patch is not resolved, since the harness does not run it and
// counts it unresolved (empty_patch_ids), and makes a task_id row; the
// others state no outcome and make none. The file is recognised, so it is
// never an unknown format beside the logs it predicts for.
type swebenchPreds struct {
	formatInfo
	outcomeInfo
}

// predRecord is one prediction.
type predRecord struct {
	InstanceID json.RawMessage `json:"instance_id"`
	ModelPatch json.RawMessage `json:"model_patch"`
}

// Detect accepts a prediction record (an object with instance_id and
// model_patch: a JSONL line, or the first element of a list) or an object
// whose first value is one (with model_patch).
func (swebenchPreds) Detect(name string, head []byte) bool {
	h := trimHead(head)
	if len(h) == 0 {
		return false
	}
	if h[0] == '[' {
		first := -1
		jsonEachElem(h, 0, func(val int) bool { first = val; return false })
		return first >= 0 && first < len(h) && h[first] == '{' && isPredRecord(headKeys(h[first:], 16))
	}
	if h[0] != '{' {
		return false
	}
	keys := headKeys(h, 16)
	if isPredRecord(keys) {
		return true
	}
	if len(keys) == 0 || keys[0].kind != '{' {
		return false
	}
	_, ok := headKeyNamed(headKeys(h[keys[0].off:], 16), "model_patch")
	return ok
}

// isPredRecord reports whether an object's keys are a prediction's.
func isPredRecord(keys []headKey) bool {
	_, id := headKeyNamed(keys, "instance_id")
	_, patch := headKeyNamed(keys, "model_patch")
	return id && patch
}

func (swebenchPreds) Import(f *File, r io.Reader) error {
	lower := strings.ToLower(f.Path())
	if strings.HasSuffix(lower, ".jsonl") || strings.HasSuffix(lower, ".ndjson") {
		return lineReader[predRecord]{}.read(f, r, func(line int64, _ []byte, p *predRecord) error {
			return emitPred(f, line, "", p)
		})
	}
	d, err := readJSONDoc(f, r)
	if d == nil || err != nil {
		return err
	}
	if d.root.raw[0] == '[' {
		elems, err := arrayElems(d.root)
		if err != nil {
			return d.syntax(f, err)
		}
		return decodeElems(f, d, elems, "predictions[%d]", func(_ int, line int64, _ jsonSpan, p *predRecord) error {
			return emitPred(f, line, "", p)
		})
	}
	fields, ok, err := d.object(f)
	if !ok {
		return err
	}
	if _, one := fields["model_patch"]; one {
		var p predRecord
		if err := json.Unmarshal(d.root.raw, &p); err != nil {
			return f.Reject(1, "prediction: "+clipErr(err), d.root.raw)
		}
		return emitPred(f, 1, "", &p)
	}
	for _, inst := range sortedFields(fields) {
		line := d.line(inst.off)
		var p predRecord
		if why := decodeRecord(inst.raw, &p); why != "" {
			if err := f.Reject(line, inst.name+": "+why, inst.raw); err != nil {
				return err
			}
			continue
		}
		if err := emitPred(f, line, inst.name, &p); err != nil {
			return err
		}
	}
	return nil
}

// emitPred makes the row of a prediction with an empty patch, keyed by its
// instance_id (else key, the id it is filed under).
func emitPred(f *File, line int64, key string, p *predRecord) error {
	if p.ModelPatch == nil {
		return nil // no model_patch: not a prediction
	}
	if patch := jsonString(p.ModelPatch); strings.TrimSpace(patch) != "" {
		return nil
	}
	id := firstNonEmpty(scalarString(p.InstanceID), key)
	return outcomeRow{line: line, kind: schema.KeyTaskID, key: id, resolved: boolPtr(false), detail: "empty model_patch"}.emit(f)
}
