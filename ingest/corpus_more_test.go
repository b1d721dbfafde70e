package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
)

// corpusMoreDir returns ../shared/corpus-more (next to the shared corpus;
// required under CI=true).
func corpusMoreDir(t *testing.T) string {
	t.Helper()
	return testutil.SharedDir(t, "corpus-more")
}

// siblingSuffixes are the files of a corpus-more folder that another file's
// importer reads as a sibling: auto-detection must pick nothing for them
// (the grok-build anchor is chat_history.jsonl, mistral-vibe's is
// messages.jsonl).
var siblingSuffixes = map[string][]string{
	"grok-build":   {"summary.json", "signals.json"},
	"mistral-vibe": {"meta.json"},
}

// corpusFile is one file of either corpus with the format its folder
// belongs to ("" for a sibling read by another file's importer).
type corpusFile struct {
	folder, path, want string
}

// allCorpusFiles lists every file of ../shared/corpus and
// ../shared/corpus-more with its folder's format (from CorpusFolders,
// where corpus-more folders are listed as "corpus-more/<folder>").
func allCorpusFiles(t *testing.T) []corpusFile {
	t.Helper()
	owner := map[string]string{}
	for _, im := range ingest.Importers() {
		for _, dir := range ingest.CorpusFolders(im.Name()) {
			owner[dir] = im.Name()
		}
	}
	var out []corpusFile
	for _, root := range []struct{ dir, prefix string }{{testutil.CorpusDir(t), ""}, {corpusMoreDir(t), "corpus-more/"}} {
		dirs, err := os.ReadDir(root.dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dirs {
			if !d.IsDir() || d.Name() == "licenses" {
				continue
			}
			folder := root.prefix + d.Name()
			if owner[folder] == "" {
				t.Errorf("folder %s: no importer lists it in CorpusFolders", folder)
				continue
			}
			files, _ := filepath.Glob(filepath.Join(root.dir, d.Name(), "*"))
			for _, f := range files {
				want := owner[folder]
				for _, s := range siblingSuffixes[d.Name()] {
					if root.prefix != "" && strings.HasSuffix(f, s) {
						want = ""
					}
				}
				out = append(out, corpusFile{folder, f, want})
			}
		}
	}
	return out
}

// TestCorpusMoreFoldersListed checks that the corpus-more folders listed
// in CorpusFolders exist.
func TestCorpusMoreFoldersListed(t *testing.T) {
	root := filepath.Dir(corpusMoreDir(t))
	for _, im := range ingest.Importers() {
		for _, dir := range ingest.CorpusFolders(im.Name()) {
			if !strings.HasPrefix(dir, "corpus-more/") {
				continue
			}
			if st, err := os.Stat(filepath.Join(root, dir)); err != nil || !st.IsDir() {
				t.Errorf("%s: corpus folder %s missing", im.Name(), dir)
			}
		}
	}
}

// TestNoForeignClaims checks detection over every fixture: the files of
// both shared corpora, of ingest/testdata (testdataFiles) and of issue 30's
// agent fixtures (testdata/agents: agentFiles). Auto-detection picks the
// file's own format (nothing for a sibling file, see siblingSuffixes, or
// for input a test reads with its format forced), and no importer other
// than that one, generic ones included, recognises the file.
func TestNoForeignClaims(t *testing.T) {
	files := append(allCorpusFiles(t), testdataFiles(t)...)
	files = append(files, agentFiles(t)...)
	for _, cf := range files {
		data, err := os.ReadFile(cf.path)
		if err != nil {
			t.Fatal(err)
		}
		head := data[:min(len(data), ingest.HeadSize)]
		name := cf.folder + "/" + filepath.Base(cf.path)
		got := ""
		im, err := ingest.DetectFormat(cf.path, head)
		if im != nil {
			got = im.Name()
		}
		if got != cf.want {
			t.Errorf("%s: detected %q (%v), want %q", name, got, err, cf.want)
		}
		var foreign []string
		for _, c := range ingest.Candidates(cf.path, head) {
			if c.Name() != cf.want {
				foreign = append(foreign, c.Name())
			}
		}
		sort.Strings(foreign)
		if len(foreign) > 0 {
			t.Errorf("%s (%s): also recognised by %s", name, orNone(cf.want), strings.Join(foreign, ", "))
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "a sibling file"
	}
	return s
}

// TestCorpusMoreGolden is TestCorpusGolden over ../shared/corpus-more:
// a summary per file in testdata/corpus-more/<folder>/<file>.golden.
// Regenerate with go test ./ingest -run TestCorpusMoreGolden -update.
func TestCorpusMoreGolden(t *testing.T) {
	root := corpusMoreDir(t)
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "licenses" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, d.Name(), "*"))
		for _, f := range files {
			t.Run(d.Name()+"/"+filepath.Base(f), func(t *testing.T) {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				got := corpusSummary(t, f, data)
				if strings.HasPrefix(got, "format: none") {
					got = "format: none\n" // the list of formats tried is not part of the golden
				}
				testutil.Golden(t, got, filepath.Join("testdata", "corpus-more", d.Name(), filepath.Base(f)+".golden"))
			})
		}
	}
}

// TestIssue21LineRejects inserts a malformed line (not JSON) as line 3 of a
// fixture of each line-based issue-21 format: it is one positioned reject,
// and everything else imports as before (same events, tool outputs, runs).
func TestIssue21LineRejects(t *testing.T) {
	for _, tc := range []struct{ format, file string }{
		{"factory-droid", "factory-droid/agent-sessions__session_store_large.jsonl"},
		{"factory-droid-exec-stream-json", "factory-droid-exec-stream-json/agent-sessions__stream_json_large.jsonl"},
		{"qwen-code", "qwen-code/agent-sessions__019f0000-0000-7000-8000-000000000001.jsonl"},
		{"copilot-cli-events", "copilot-cli-events/agent-sessions__subdir_v1__events.jsonl"},
		{"cursor-agent-transcripts", "cursor-agent-transcripts/agent-sessions__large.jsonl"},
		{"grok-build", "grok-build/019f6000-0000-7000-8000-000000000001/chat_history.jsonl"},
		{"mistral-vibe", "mistral-vibe/session_with_tools/messages.jsonl"},
		{"gptme", "gptme/2026-06-13-write-hello-world/conversation.jsonl"},
		{"antigravity-cli", "antigravity-cli/agent-sessions__cli_small.jsonl"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			path := filepath.Join("testdata", tc.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(data), "\n")
			bad := strings.Join(lines[:2], "") + "{not json\n" + strings.Join(lines[2:], "")
			want, err := ingest.Parse(context.Background(), tc.format, path, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ingest.Parse(context.Background(), tc.format, path, []byte(bad), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Rejects) != 1 || got.Rejects[0].Line != 3 || !strings.HasPrefix(got.Rejects[0].Reason, "invalid JSON") {
				t.Errorf("rejects %v, want one at line 3", pkRejects(got))
			}
			if len(got.Events) != len(want.Events) || len(got.ToolOutputs) != len(want.ToolOutputs) || len(got.Runs) != len(want.Runs) {
				t.Errorf("%d events, %d outputs, %d runs; want %d, %d, %d", len(got.Events), len(got.ToolOutputs), len(got.Runs), len(want.Events), len(want.ToolOutputs), len(want.Runs))
			}
			// the lines after it keep their numbers (shifted by the one inserted)
			for i, e := range got.Events {
				if w := want.Events[min(i, len(want.Events)-1)].Line; w > 2 && e.Line != w+1 || w <= 2 && e.Line != w {
					t.Errorf("event %d at line %d, want %d", i, e.Line, w)
					break
				}
			}
		})
	}
}

// TestIssue21TestdataDetection checks detection on the fixtures copied for
// the issue-21 formats: each is detected as its folder's format, and the
// siblings another file's importer reads (Droid's <uuid>.settings.json,
// Grok's summary.json and signals.json, Vibe's meta.json) as nothing.
func TestIssue21TestdataDetection(t *testing.T) {
	siblings := []string{".settings.json", "summary.json", "signals.json", "meta.json"}
	for _, format := range []string{"factory-droid", "factory-droid-exec-stream-json", "qwen-code", "copilot-cli-events", "cursor-agent-transcripts",
		"grok-build", "mistral-vibe", "gptme", "hermes-agent", "antigravity-cli", "kiro-cli-sqlite-payload"} {
		err := filepath.WalkDir(filepath.Join("testdata", format), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() == "README.md" || d.Name() == "LICENSE" {
				return err
			}
			want := format
			for _, s := range siblings {
				if strings.HasSuffix(p, s) {
					want = ""
				}
			}
			if got := detected(t, p); got != want {
				t.Errorf("%s: detected %q, want %q", p, got, want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestTraeSubagentLinked: a Trae CLI rollout (a Codex-rollout clone, read
// by codex-cli) whose session_meta names its parent thread is a sub-agent
// run of that thread (issue 21); the parent id is read off the sample's
// first line.
func TestTraeSubagentLinked(t *testing.T) {
	p := filepath.Join(corpusMoreDir(t), "trae-cli", "agentsview__rollout_subagent.jsonl")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ingest.Parse(context.Background(), "codex-cli", p, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Runs) != 1 || m.Runs[0].ParentRunID != "019fbc4a-48b9-7472-a0da-6d92901383db" {
		t.Fatalf("runs %+v; want one run whose parent is 019fbc4a-48b9-7472-a0da-6d92901383db", m.Runs)
	}
	// a session_meta whose source is a string (older Codex rollouts) still names its run
	old := []byte(`{"timestamp":"2025-09-01T10:00:00Z","type":"session_meta","payload":{"id":"s-old","timestamp":"2025-09-01T10:00:00Z","source":"cli"}}` + "\n" +
		`{"timestamp":"2025-09-01T10:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}` + "\n")
	m, err = ingest.Parse(context.Background(), "codex-cli", "old.jsonl", old, nil)
	if err != nil || len(m.Runs) != 1 || m.Runs[0].RunID != "s-old" || m.Runs[0].ParentRunID != "" || len(m.Rejects) != 0 {
		t.Fatalf("old rollout: err %v, runs %+v, rejects %+v", err, m.Runs, m.Rejects)
	}
}

// TestClaudeLayoutRepeatedToolUse: an assistant line that repeats an
// earlier line's tool_use block (same id), as iFlow CLI writes them, adds
// no second call; the sample has 6 distinct tool_use ids on 8 lines
// (grep -o '"type":"tool_use","id":"[^"]*"' | sort -u).
func TestClaudeLayoutRepeatedToolUse(t *testing.T) {
	data := []byte(`{"type":"user","sessionId":"s","uuid":"u1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"go"}}
{"type":"assistant","sessionId":"s","uuid":"a1","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","model":"glm-4.7","role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"read_file","input":{"path":"a"}}]}}
{"type":"assistant","sessionId":"s","uuid":"a2","timestamp":"2026-01-01T00:00:02Z","message":{"id":"m2","model":"glm-4.7","role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"read_file","input":{"path":"a"}},{"type":"tool_use","id":"call_2","name":"read_file","input":{"path":"b"}}]}}
`)
	m, err := ingest.Parse(context.Background(), "claude-code", "iflow.jsonl", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, e := range m.Events {
		if e.Kind == "tool_call" {
			calls++
		}
	}
	if calls != 2 {
		t.Errorf("%d tool calls, want 2 (call_1 once, call_2)", calls)
	}
}
