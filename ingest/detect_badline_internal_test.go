package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// badLineKeys are the keys, in order of preference, whose value a planted
// line mistypes or whose name it breaks: a JSONL format's record type or
// role, or the array a record is made of, which its importer needs on
// every line.
var badLineKeys = []string{"type", "role", "kind", "history", "conversations", "resourceSpans"}

// jsonlFormatsCovered are the JSONL formats TestDetectOneBadLine must find
// a fixture for (hand-listed, so that a fixture lost fails the test; a new
// format with a .jsonl fixture is covered without being listed here).
var jsonlFormatsCovered = []string{
	"claude-code", "codex-cli", "qwen-code", "copilot-cli-events", "factory-droid",
	"factory-droid-exec-stream-json", "claude-agent-sdk-stream-json", "openhands-sdk-v1-events",
	"codex-exec-json", "kimi-cli-wire", "pi-coding-agent", "openclaw-telemetry",
	"cursor-agent-transcripts", "mistral-vibe", "grok-build", "gptme", "antigravity-cli", "vscode-copilot-chat",
	"goose-jsonl",
}

// TestDetectOneBadLine plants one bad line at the top of a known-good JSONL
// fixture of every format that reads JSONL (each registered importer with
// a .jsonl or .ndjson fixture under testdata/ or in its corpus folders
// that is detected as it): (i) a copy of the first record with an invalid
// byte inside its type key, (ii) a copy with that key's value a number,
// (iii) a 10 MB line cut off before it ends. Imported as trajmine ingest
// does (Files), the file must still be detected as its format, and exactly
// the planted line is rejected, at line 1, while every run, event, usage
// row, output and context op of the clean file is kept.
func TestDetectOneBadLine(t *testing.T) {
	fixtures := jsonlFixtures(t)
	for _, name := range jsonlFormatsCovered {
		if fixtures[name] == "" {
			t.Errorf("%s: no JSONL fixture detected as it", name)
		}
	}
	var names []string
	for name := range fixtures {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fixture := fixtures[name]
		data, err := os.ReadFile(fixture)
		if err != nil {
			t.Fatal(err)
		}
		ref, key, val, ok := badLineRef(data)
		if !ok {
			t.Errorf("%s: %s has no record with a key of %v", name, fixture, badLineKeys)
			continue
		}
		want := importDir(t, fixture, data)
		plants := []struct{ kind, line string }{
			{"invalid byte in a key", string(ref[:key+2]) + "\xff" + string(ref[key+2:])},
			{"wrongly typed field", string(ref[:val]) + "12345" + string(ref[jsonSkipValue(ref, val):])},
			{"10 MB first line", string(ref[:jsonSkipValue(ref, val)]) + `,"junk":"` + strings.Repeat("x", 10<<20)},
		}
		for _, p := range plants {
			t.Run(name+"/"+p.kind, func(t *testing.T) {
				got := importDir(t, fixture, append([]byte(p.line+"\n"), data...))
				if got.format != name {
					t.Fatalf("detected as %q (%v), want %s", got.format, got.err, name)
				}
				wantRejects := []string{"1"}
				for _, r := range want.rejects {
					wantRejects = append(wantRejects, fmt.Sprint(r+1))
				}
				if fmt.Sprint(got.rejectLines()) != fmt.Sprint(wantRejects) {
					t.Errorf("rejected lines %v, want %v (%v)", got.rejectLines(), wantRejects, got.reasons)
				}
				if len(got.warnings) == 0 || !strings.HasPrefix(got.warnings[0], got.path+":1: ") {
					t.Errorf("first warning %q, want %s:1: …", got.warnings, got.path)
				}
				if got.counts != want.counts {
					t.Errorf("kept %s, want the clean file's %s", got.counts, want.counts)
				}
			})
		}
	}
}

// badLineImport is what TestDetectOneBadLine compares of an import.
type badLineImport struct {
	path, format string
	err          error
	rejects      []int64
	reasons      []string
	warnings     []string
	counts       string // runs, events by kind, usage rows, outputs, ops
}

func (b badLineImport) rejectLines() []string {
	out := make([]string, len(b.rejects))
	for i, l := range b.rejects {
		out[i] = fmt.Sprint(l)
	}
	return out
}

// importDir copies the files beside fixture (importers read their
// siblings) into a fresh folder, writes data under fixture's name and
// imports that file with Files into a MemSink.
func importDir(t *testing.T, fixture string, data []byte) badLineImport {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(filepath.Dir(fixture))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() && e.Name() != filepath.Base(fixture) {
			b, err := os.ReadFile(filepath.Join(filepath.Dir(fixture), e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := filepath.Join(dir, filepath.Base(fixture))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := badLineImport{path: path}
	sink := &MemSink{}
	sum, err := Files(context.Background(), sink, []string{path}, &Options{Warn: func(err error) {
		var se *SyntaxError
		if errors.As(err, &se) {
			out.warnings = append(out.warnings, se.Error())
		}
	}})
	if err == nil && len(sum.Errors) > 0 {
		err = sum.Errors[0]
	}
	out.err = err
	for _, s := range sink.Sources {
		if s.Path == path {
			out.format = s.Format
		}
	}
	for _, r := range sink.Rejects {
		out.rejects = append(out.rejects, r.Line)
		out.reasons = append(out.reasons, r.Reason)
	}
	kinds := map[schema.EventKind]int{}
	for _, e := range sink.Events {
		kinds[e.Kind]++
	}
	out.counts = fmt.Sprintf("%d runs, events %v, %d usage rows, %d outputs, %d ops",
		len(sink.Runs), kinds, len(sink.Usage), len(sink.ToolOutputs), len(sink.ContextOps))
	return out
}

// badLineRef returns the first line of data whose top-level object has one
// of badLineKeys, the offset of that key's opening quote and of its value.
func badLineRef(data []byte) (line []byte, key, val int, ok bool) {
	for l := range bytes.Lines(data) {
		l = bytes.TrimSpace(l)
		for _, want := range badLineKeys {
			jsonEachField(l, 0, func(k []byte, v int) bool {
				if string(k) == want && v < len(l) {
					key, val, ok = bytes.Index(l[:v], []byte(`"`+want+`"`)), v, true
				}
				return !ok
			})
			if ok && key >= 0 {
				return l, key, val, true
			}
			ok = false
		}
	}
	return nil, 0, 0, false
}

// jsonlFixtures returns, per format, the first (by path) .jsonl or .ndjson
// file under testdata/ (outside the goldens and fuzz seeds) or in the
// format's corpus folders that is detected as it and imports with a run.
func jsonlFixtures(t *testing.T) map[string]string {
	t.Helper()
	var paths []string
	walk := func(root string) {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && (d.Name() == "corpus" || d.Name() == "fuzz") && p != root {
				return filepath.SkipDir
			}
			if ext := filepath.Ext(p); !d.IsDir() && (ext == ".jsonl" || ext == ".ndjson") {
				paths = append(paths, p)
			}
			return nil
		})
	}
	walk("testdata")
	shared := filepath.Dir(testutil.CorpusDir(t))
	for _, im := range registry {
		for _, dir := range CorpusFolders(im.Name()) {
			if strings.Contains(dir, "/") {
				walk(filepath.Join(shared, dir))
			} else {
				walk(filepath.Join(shared, "corpus", dir))
			}
		}
	}
	sort.Strings(paths)
	out := map[string]string{}
	withRejects := map[string]string{} // used when a format has no fixture without
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || bytes.Count(data, []byte("\n")) < 2 {
			continue
		}
		head, _ := readHead(bytes.NewReader(data))
		im, err := DetectFormat(p, head)
		if err != nil || out[im.Name()] != "" || IsOutcomeFormat(im.Name()) || priority[im.Name()] >= genericPriority {
			continue
		}
		m, err := Parse(context.Background(), im.Name(), p, data, nil)
		switch {
		case err != nil || len(m.Runs) == 0:
		case len(m.Rejects) == 0:
			out[im.Name()] = p
		case withRejects[im.Name()] == "":
			withRejects[im.Name()] = p
		}
	}
	for name, p := range withRejects {
		if out[name] == "" {
			out[name] = p
		}
	}
	return out
}
