package ingest

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// The JSONL form of a VS Code Copilot Chat session (vscode_copilot_chat.go):
// a log of the session's mutations, replayed to get the serialized chat
// back.
//
// Steps:
//  1. Each line is {kind, k, v, i?}: kind 0 is the initial snapshot (v,
//     the whole session; a later one replaces it); kind 1 sets the value at
//     path k (keys and array indexes) to v; kind 2 pushes the items of the
//     array v onto the array at k (after cutting it to length i when i is
//     given); kind 3 deletes what is at k. A line that is not such a
//     record, a mutation before the first snapshot, or a path that leads
//     nowhere is rejected at its line and the log goes on without it.
//  2. The session left at the end is read as the JSON form is, each
//     request's events at the line that brought the request (the snapshot,
//     or the push or set of requests); a request that does not decode is
//     rejected there.

// vsOp is one line of a session's mutation log.
type vsOp struct {
	Kind *int            `json:"kind"`
	K    json.RawMessage `json:"k"`
	V    json.RawMessage `json:"v"`
	I    *int            `json:"i"`
}

// vsImportLog replays a session's mutation log and imports the session
// it leaves.
func vsImportLog(f *File, r io.Reader) error {
	var state map[string]any
	var reqLines []int64 // per request, the line that brought it
	err := lineReader[vsOp]{}.read(f, r, func(line int64, raw []byte, op *vsOp) error {
		if op.Kind == nil {
			return f.Reject(line, "record without a kind", raw)
		}
		switch *op.Kind {
		case 0:
			var v map[string]any
			if json.Unmarshal(op.V, &v) != nil || v == nil {
				return f.Reject(line, "initial snapshot: v is not an object", raw)
			}
			state = v
			reqs, _ := state["requests"].([]any)
			reqLines = vsLines(nil, line, len(reqs))
			return nil
		case 1, 2, 3:
		default:
			return f.Reject(line, fmt.Sprintf("unknown kind %d", *op.Kind), raw)
		}
		if state == nil {
			return f.Reject(line, "mutation before the initial snapshot", raw)
		}
		var path []any
		if json.Unmarshal(op.K, &path) != nil || len(path) == 0 {
			return f.Reject(line, "k is not a non-empty path", raw)
		}
		var val any
		if *op.Kind != 3 && len(op.V) > 0 {
			if err := json.Unmarshal(op.V, &val); err != nil {
				return f.Reject(line, "v: "+clipErr(err), raw)
			}
		}
		if reason := vsApply(state, *op.Kind, path, val, op.I); reason != "" {
			return f.Reject(line, reason, raw)
		}
		if k, _ := path[0].(string); k == "requests" {
			reqLines = vsRequestLines(reqLines, line, *op.Kind, path, val, op.I)
		}
		return nil
	})
	if err != nil || state == nil {
		return err
	}
	id, _ := state["sessionId"].(string)
	b, err := f.NewRun(firstNonEmpty(id, fileStem(f.Path())))
	if err != nil {
		return err
	}
	v := &vsRun{b: b}
	reqs, _ := state["requests"].([]any)
	for i, rq := range reqs {
		line := int64(1)
		if i < len(reqLines) {
			line = reqLines[i]
		}
		raw, _ := json.Marshal(rq)
		var q vsRequest
		if ok, err := decodeElem(f, line, "requests[%d]", i, jsonSpan{raw: raw}, &q); !ok {
			if err != nil {
				return err
			}
			continue
		}
		if err := v.request(&q, line); err != nil {
			return err
		}
	}
	return v.finish()
}

// vsLines is lines with n more entries of line.
func vsLines(lines []int64, line int64, n int) []int64 {
	for range n {
		lines = append(lines, line)
	}
	return lines
}

// vsRequestLines follows a mutation of the requests (path starts with
// "requests") in the lines that brought each request.
func vsRequestLines(lines []int64, line int64, kind int, path []any, val any, i *int) []int64 {
	switch {
	case len(path) == 1 && kind == 1:
		items, _ := val.([]any)
		return vsLines(nil, line, len(items))
	case len(path) == 1 && kind == 2:
		if i != nil && *i >= 0 && *i <= len(lines) {
			lines = lines[:*i]
		}
		items, _ := val.([]any)
		return vsLines(lines, line, len(items))
	case len(path) == 2 && kind == 1:
		if n, ok := vsIndex(path[1]); ok && n < len(lines) {
			lines[n] = line
		}
	}
	return lines
}

// vsApply applies mutation kind (1 set, 2 push, 3 delete) at path to
// root; it returns why it cannot ("" when done).
func vsApply(root map[string]any, kind int, path []any, val any, i *int) string {
	var parent any = root
	for n, key := range path[:len(path)-1] {
		next, ok := vsChild(parent, key)
		if !ok {
			return "k: nothing at " + vsPath(path[:n+1])
		}
		parent = next
	}
	last := path[len(path)-1]
	switch kind {
	case 1:
		if !vsSet(parent, last, val) {
			return "k: cannot set " + vsPath(path)
		}
	case 2:
		cur, _ := vsChild(parent, last)
		arr, isArr := cur.([]any)
		if cur != nil && !isArr {
			return "k: " + vsPath(path) + " is not an array"
		}
		items, ok := val.([]any)
		if !ok {
			return "v: the items to push are not an array"
		}
		if i != nil {
			if *i < 0 || *i > len(arr) {
				return fmt.Sprintf("i: %d is outside the array at %s (length %d)", *i, vsPath(path), len(arr))
			}
			arr = arr[:*i]
		}
		if !vsSet(parent, last, append(arr, items...)) {
			return "k: cannot push onto " + vsPath(path)
		}
	case 3:
		switch p := parent.(type) {
		case map[string]any:
			k, _ := last.(string)
			delete(p, k)
		default:
			if !vsSet(parent, last, nil) {
				return "k: cannot delete " + vsPath(path)
			}
		}
	}
	return ""
}

// vsChild is the value under key (an object's key or an array's index).
func vsChild(parent, key any) (any, bool) {
	switch p := parent.(type) {
	case map[string]any:
		k, ok := key.(string)
		if !ok {
			return nil, false
		}
		v, ok := p[k]
		return v, ok
	case []any:
		n, ok := vsIndex(key)
		if !ok || n >= len(p) {
			return nil, false
		}
		return p[n], true
	}
	return nil, false
}

// vsSet sets the value under key of parent.
func vsSet(parent, key, val any) bool {
	switch p := parent.(type) {
	case map[string]any:
		k, ok := key.(string)
		if ok {
			p[k] = val
		}
		return ok
	case []any:
		n, ok := vsIndex(key)
		if !ok || n >= len(p) {
			return false
		}
		p[n] = val
		return true
	}
	return false
}

// vsIndex reads a path element as an array index.
func vsIndex(key any) (int, bool) {
	f, ok := key.(float64)
	if !ok || f < 0 || f != math.Trunc(f) || f > 1<<31 {
		return 0, false
	}
	return int(f), true
}

// vsPath renders a path for a reject.
func vsPath(path []any) string {
	parts := make([]string, len(path))
	for i, p := range path {
		switch x := p.(type) {
		case string:
			parts[i] = x
		case float64:
			parts[i] = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			parts[i] = fmt.Sprint(x)
		}
	}
	return strings.Join(parts, ".")
}
