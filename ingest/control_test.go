package ingest_test

import (
	"archive/zip"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

var writeNULSeeds = flag.Bool("nulseeds", false, "TestNULKeepsDocument: write its corrupted files as FuzzImporters seeds (testdata/fuzz/FuzzImporters/nul-*)")

// nulCase is one file of a one-document format with a raw NUL put inside
// one of its text values: after the first half of the first occurrence of
// anchor.
type nulCase struct {
	format, path, anchor string
	fuzz                 string // the FuzzImporters entry its seed is for ("": no seed)
	// member, for an archive or a storage tree: the file of the tree
	// (path, a directory) that holds the anchor; the file imported is
	// entry (an Inspect .eval zipped from path, or a session file of the
	// tree).
	member, entry string
}

// nulCases covers every format that reads a file as one JSON document, each
// on a fixture of its own (issue 31: a NUL lost such a file whole in all 8
// formats tried).
var nulCases = []nulCase{
	{format: "atif", path: "testdata/atif/lin.trajectory.json", anchor: "Task: build it", fuzz: "atif"},
	{format: "atif", path: "testdata/atif/trial.traces.json", anchor: "Summary so far: listed files.", fuzz: "atif"},
	{format: "claude-agent-sdk-stream-json", path: "testdata/claude-agent-sdk-stream-json/cassette_overflow.json", anchor: "Summarise README.md", fuzz: csFormat},
	{format: "claude-code-web-export", path: "testdata/claude-code-web-export/interrupted_split.json", anchor: "Count the TODOs in src/", fuzz: cwFormat},
	{format: "cline-http-cassette", path: "testdata/cline-http-cassette/completion.json", anchor: "Hi there.", fuzz: "cline"},
	{format: "cline-http-cassette", path: "testdata/cline-http-cassette/cassette.json", anchor: "a.go is fine.", fuzz: "cline"}, // in an SSE stream recorded as a string
	{format: "cline-sdk-session", path: "testdata/cline-sdk-session/s1.messages.json", anchor: "make the test pass", fuzz: "cline"},
	{format: "gemini-cli", path: "testdata/gemini-cli/session.json", anchor: "list the repo", fuzz: gmFormat},
	{format: "hermes-agent", path: "testdata/hermes-agent/agent-sessions__large.json", anchor: "Check the current directory.", fuzz: "hermes-agent"},
	{format: "inspect-ai", path: "testdata/inspect-ai/log.json", anchor: "Let me check.", fuzz: "inspect-ai"},
	{format: "inspect-ai", path: "testdata/inspect-ai/archive", member: "samples/1_epoch_1.json", entry: "nul.eval", anchor: "I will start by listing files."},
	{format: "kiro-cli-sqlite-payload", path: "testdata/kiro-cli-sqlite-payload/agentsview__standard_payload.json", anchor: "Build the Kiro parser", fuzz: "kiro-cli-sqlite-payload"},
	{format: "langfuse-trace-export", path: "testdata/langfuse-trace-export/traces.json", anchor: "a.go:3: TODO fix", fuzz: lfFormat},
	{format: "mini-swe-agent", path: "testdata/mini-swe-agent/full.traj.json", anchor: "THOUGHT: Look around first.", fuzz: "mini-swe-agent"},
	{format: "openhands", path: "testdata/openhands/trajs.json", anchor: "Action has been rejected by the user! Reason: not now", fuzz: "openhands"},
	{format: "otel-genai-spans", path: "testdata/otel-genai-spans/otlp.json", anchor: "Sunny, 24C", fuzz: "otel-genai-spans"},
	{format: "opencode-sse-events", path: "testdata/opencode-sse-events/session.json", anchor: "fix the bug in main.go", fuzz: opcFormat},
	{format: "opencode-sse-events", path: "testdata/opencode-storage", member: "storage/part/msg_s001/prt_s001a.json", entry: "storage/session/p1/ses_st1.json", anchor: "list the files"},
	{format: "swe-agent-traj", path: "testdata/swe-agent-traj/text.traj", anchor: "We're solving this issue: print 1.", fuzz: "swe-agent-traj"},
	{format: "openai-messages", path: "testdata/messages/openai_list.json", anchor: "Why does `make test` fail?", fuzz: "messages"},
	{format: "anthropic-messages", path: "testdata/messages/anthropic_list.json", anchor: "List the Go files and check the module path.", fuzz: "messages"},
}

// withNUL is data with a NUL byte after the first half of anchor's first
// occurrence.
func withNUL(t testing.TB, data []byte, anchor string) []byte {
	t.Helper()
	i := bytes.Index(data, []byte(anchor))
	if i < 0 {
		t.Fatalf("no %q in the fixture", anchor)
	}
	return inject(data, i+len(anchor)/2, 0)
}

// input is the case's file, as its path and bytes, clean or with the NUL.
func (c nulCase) input(t *testing.T, nul bool) (string, []byte) {
	t.Helper()
	if c.member == "" {
		data, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if nul {
			data = withNUL(t, data, c.anchor)
		}
		return c.path, data
	}
	// a tree: copied, its member changed
	dir := t.TempDir()
	err := filepath.WalkDir(c.path, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(c.path, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if nul && filepath.ToSlash(rel) == c.member {
			data = withNUL(t, data, c.anchor)
		}
		out := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Ext(c.entry) == ".eval" {
		return c.entry, zipTree(t, dir)
	}
	p := filepath.Join(dir, c.entry)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, data
}

// zipTree is the files under dir as a zip archive, in name order but
// header.json last (as Inspect writes it).
func zipTree(t *testing.T, dir string) []byte {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == "header.json") != (names[j] == "header.json") {
			return names[j] == "header.json"
		}
		return names[i] < names[j]
	})
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// importCounts is what an import kept, in numbers.
type importCounts struct {
	Runs, Events, Usage, ToolOutputs, ContextOps, Rejects int
}

func countsOf(m *ingest.MemSink) importCounts {
	return importCounts{len(m.Runs), len(m.Events), len(m.Usage), len(m.ToolOutputs), len(m.ContextOps), len(m.Rejects)}
}

// hasNUL reports whether a text field of a stored record holds U+0000.
func hasNUL(m *ingest.MemSink) bool {
	for _, r := range m.Records() {
		for _, s := range schema.Texts(r) {
			if strings.Contains(*s, "\x00") {
				return true
			}
		}
	}
	return false
}

// TestNULKeepsDocument is issue 31's point-4 repro: one raw NUL byte
// inside a string made a one-document JSON file invalid JSON and lost it
// whole ("invalid JSON: invalid character '\x00' in string literal"), in
// every format reading such files, an Inspect archive's members and an
// OpenCode storage tree's files included. Now the file is detected as
// before and imports with the counts of the clean file (runs, events,
// usage rows, tool outputs, context ops, rejects), the NUL kept as U+0000
// in the text it was in, and the repair counted once in the source's
// Repairs.
func TestNULKeepsDocument(t *testing.T) {
	for _, c := range nulCases {
		t.Run(c.format+"/"+filepath.Base(c.path), func(t *testing.T) {
			path, clean := c.input(t, false)
			badPath, bad := c.input(t, true) // another copy of a tree
			if im := ingest.Detect(badPath, bad[:min(len(bad), ingest.HeadSize)]); im == nil || im.Name() != c.format {
				t.Errorf("detected as %v, want %s", im, c.format)
			}
			want, err := ingest.Parse(context.Background(), c.format, path, clean, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ingest.Parse(context.Background(), c.format, badPath, bad, nil)
			if err != nil {
				t.Fatalf("with a NUL: %v", err)
			}
			if d := cmp.Diff(countsOf(want), countsOf(got)); d != "" {
				t.Errorf("counts (-clean +with a NUL):\n%s\nrejects: %v", d, got.Rejects)
			}
			if r0, r1 := want.Sources[0].Repairs, got.Sources[0].Repairs; r1 != r0+1 {
				t.Errorf("repairs %d, want %d", r1, r0+1)
			}
			if !hasNUL(got) {
				t.Error("the NUL is in no stored text")
			}
			if *writeNULSeeds && c.fuzz != "" {
				writeFuzzSeed(t, "FuzzImporters", "nul-"+c.format+"-"+filepath.Base(c.path), c.fuzz, filepath.Base(c.path), bad)
			}
		})
	}
}

// writeFuzzSeed writes a seed of fuzz target fuzz under testdata/fuzz.
func writeFuzzSeed(t *testing.T, fuzz, name string, args ...any) {
	t.Helper()
	var b strings.Builder
	b.WriteString("go test fuzz v1\n")
	for _, a := range args {
		switch v := a.(type) {
		case string:
			fmt.Fprintf(&b, "string(%q)\n", v)
		case []byte:
			fmt.Fprintf(&b, "[]byte(%q)\n", v)
		default:
			t.Fatalf("seed argument %T", a)
		}
	}
	dir := filepath.Join("testdata", "fuzz", fuzz)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNULCoversDocumentFormats keeps nulCases complete: every format whose
// fixtures include a one-document JSON file (its first character '{' or
// '[', not JSON lines) has a case.
func TestNULCoversDocumentFormats(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range nulCases {
		covered[c.format] = true
	}
	for _, s := range utf8Seeds(t) {
		if covered[s.format] || !isDocument(s.data) {
			continue
		}
		t.Errorf("%s: a one-document format (%s) without a case in nulCases", s.format, s.path)
		covered[s.format] = true
	}
}

// isDocument reports whether data is one JSON value spread over lines (not
// one value a line).
func isDocument(data []byte) bool {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' && data[0] != '[' {
		return false
	}
	lines := bytes.Split(data, []byte("\n"))
	return len(lines) == 1 || !bytes.HasSuffix(bytes.TrimSpace(lines[0]), []byte("}"))
}

// TestRawControlKeepsFile puts raw control characters (NUL, ESC, 0x01,
// 0x1F; not the white space \t \r \n) at up to 40 evenly spread places
// inside the strings of every fixture, JSON lines and documents alike, and
// checks that the file still imports, the repair counted, and that its
// runs are not all gone without a reject (a NUL in a key or a type name
// changes what the record says, and may cost the record, not the file).
func TestRawControlKeepsFile(t *testing.T) {
	for _, s := range utf8Seeds(t) {
		if !bytes.HasPrefix(bytes.TrimLeft(s.data, " \t\r\n"), []byte("{")) && !bytes.HasPrefix(bytes.TrimLeft(s.data, " \t\r\n"), []byte("[")) {
			continue // not JSON text (server-sent events): not repaired
		}
		clean, err := ingest.Parse(context.Background(), s.format, s.path, s.data, nil)
		if err != nil {
			continue
		}
		pos := stringBytes(s.data)
		step := max(1, len(pos)/40)
		for k := 0; k < len(pos); k += step {
			bad := []byte{0x00, 0x1B, 0x01, 0x1F}[k%4]
			data := inject(s.data, pos[k], bad)
			m, err := ingest.Parse(context.Background(), s.format, s.path, data, nil)
			if err != nil {
				t.Errorf("%s (%s), %#x at byte %d: file lost: %v", s.path, s.format, bad, pos[k], err)
				continue
			}
			if m.Sources[0].Repairs <= clean.Sources[0].Repairs {
				t.Errorf("%s: %#x at byte %d: repairs %d, clean %d", s.path, bad, pos[k], m.Sources[0].Repairs, clean.Sources[0].Repairs)
			}
			if len(clean.Runs) > 0 && len(m.Runs) == 0 && len(m.Rejects) == 0 {
				t.Errorf("%s: %#x at byte %d: all %d runs gone without a reject", s.path, bad, pos[k], len(clean.Runs))
			}
		}
	}
}
