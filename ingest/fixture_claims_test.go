package ingest_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The files TestNoForeignClaims runs over beside the two shared corpora:
// every log of ingest/testdata (testdataFiles) and of issue 30's agent
// fixtures, testdata/agents (agentFiles), each with the format that must
// claim it.

// testdataFolderFormats are the folders of testdata whose name is not the
// format of their files.
var testdataFolderFormats = map[string]string{
	"codex":                    "codex-cli",
	"claude-code-split-output": "claude-code",
	"messages-litellm":         "openai-messages",
	"opencode-storage":         "opencode-sse-events", // OpenCode storage/ trees
}

// testdataClaims are the files of testdata claimed otherwise than their
// folder says ("" for none): bad input a test reads with its format
// forced, siblings another file's importer reads, and members of an
// unpacked archive.
var testdataClaims = map[string]string{
	"codex/malformed.jsonl":                                        "", // lines rejected for every reason
	"openhands-sdk-v1-events/errors.jsonl":                         "", // the same
	"opencode-storage/storage/part/msg_s002/prt_s002z.json":        "", // a broken part
	"factory-droid/droid-settings.settings.json":                   "", // read beside its session
	"grok-build/019f6000-0000-7000-8000-000000000001/signals.json": "",
	"grok-build/019f6000-0000-7000-8000-000000000001/summary.json": "",
	"mistral-vibe/session_with_tools/meta.json":                    "",
	"notalog.json": "",
	// the members of an .eval archive (the archive is the log): a sample's
	// messages are a plain message list, or nothing a format knows
	"inspect-ai/archive/samples/1_epoch_1.json": "openai-messages",
	"inspect-ai/archive/samples/2_epoch_1.json": "openai-messages",
	"inspect-ai/archive/samples/3_epoch_1.json": "",
	"messages/anthropic_list.json":              "anthropic-messages",
	"messages/anthropic_request.json":           "anthropic-messages",
	"messages/dtoc_anthropic.jsonl":             "anthropic-messages",
}

// tokensFileFormats are the formats testdata/tokens/<case>.<name>.jsonl
// files are in, by name.
var tokensFileFormats = map[string]string{
	"claude-code": "claude-code", "claude-stream": "claude-agent-sdk-stream-json",
	"codex-cli": "codex-cli", "codex-exec": "codex-exec-json",
}

// isFixtureLog reports whether a file under testdata is input rather than
// documentation, a licence, a golden or a hand count.
func isFixtureLog(name string) bool {
	return !strings.HasSuffix(name, ".md") && !strings.HasPrefix(name, "LICENSE") && !strings.HasSuffix(name, ".golden") &&
		name != "counts.json"
}

// testdataFiles lists every log under testdata (outside the goldens, the
// fuzz corpora and testdata/agents) with the format that must claim it.
func testdataFiles(t *testing.T) []corpusFile {
	t.Helper()
	var out []corpusFile
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, "testdata"+string(filepath.Separator)))
		if d.IsDir() {
			switch rel {
			case "corpus", "corpus-more", "fuzz", "agents":
				return filepath.SkipDir
			}
			return nil
		}
		if !isFixtureLog(d.Name()) {
			return nil
		}
		parts := strings.Split(rel, "/")
		want := parts[0]
		switch {
		case len(parts) == 1:
			want = ""
		case want == "outcomes":
			want = parts[1]
		case want == "tokens":
			want = tokensFileFormats[strings.Split(d.Name(), ".")[1]]
		case want == "messages":
			want = "openai-messages"
		}
		if f, ok := testdataFolderFormats[want]; ok {
			want = f
		}
		if f, ok := testdataClaims[rel]; ok {
			want = f
		}
		out = append(out, corpusFile{"testdata/" + parts[0], p, want})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// agentFolderFormats name, per folder of testdata/agents, the format that
// reads its logs: the drift of issue 30.1–30.8 in formats trajmine reads,
// and the agents of issue 30.9–30.10 it reads now. The folders with ""
// hold agents no importer reads from these files (SQLite stores kept as
// .sql, no licensed fixture): no specific format may claim their files
// (agentClaimsToday says which a generic message-list format claims).
var agentFolderFormats = map[string]string{
	"claude-code-2.1":    "claude-code",
	"cursor-turn-ended":  "cursor-agent-transcripts",
	"gemini-cli-jsonl":   "gemini-cli",
	"grok-build":         "grok-build",
	"factory-droid-exec": "factory-droid-exec-stream-json",
	"copilot-cli":        "copilot-cli-events",
	"antigravity-new":    "antigravity-cli",
	"pi":                 "pi-coding-agent",

	"amp":                 "amp-thread",
	"kilo-code":           "cline-task-folder",
	"roo-code":            "cline-task-folder",
	"vscode-copilot-chat": "vscode-copilot-chat",
	"goose-jsonl":         "goose-jsonl",

	"cline": "", "cursor-ide": "", "goose": "", "hermes": "", "kiro": "", "opencode-sqlite": "",
}

// agentClaimsToday are the files of testdata/agents claimed otherwise than
// their folder says ("" for none).
var agentClaimsToday = map[string]string{
	// Grok Build session siblings, and the same session in the current
	// format kept for comparison (the anchor is chat_history.jsonl)
	"grok-build/legacy/%2Fworkspace%2Fagentsview/019f6000-0000-7000-8000-000000000002/signals.json":    "",
	"grok-build/legacy/%2Fworkspace%2Fagentsview/019f6000-0000-7000-8000-000000000002/summary.json":    "",
	"grok-build/legacy/%2Fworkspace%2Fagentsview/019f6000-0000-7000-8000-000000000002/source-v1.jsonl": "",
	// a Kiro conversations row's JSON saved as a file: kiro-cli-sqlite-payload
	"kiro/standard_payload.json": "kiro-cli-sqlite-payload",
	// new agents a generic message-list format claims until their importers
	// land (issue 30.9–30.10, other branches)
	"hermes/sessions/session_child.json": "openai-messages",
}

// agentFiles lists every log of testdata/agents with the format that must
// claim it; a folder missing from agentFolderFormats is an error.
func agentFiles(t *testing.T) []corpusFile {
	t.Helper()
	root := filepath.Join("testdata", "agents")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusFile
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		want, ok := agentFolderFormats[d.Name()]
		if !ok {
			t.Errorf("testdata/agents/%s: not in agentFolderFormats", d.Name())
			continue
		}
		err := filepath.WalkDir(filepath.Join(root, d.Name()), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !isFixtureLog(e.Name()) {
				return err
			}
			rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
			w := want
			if f, ok := agentClaimsToday[rel]; ok {
				w = f
			}
			out = append(out, corpusFile{"testdata/agents/" + d.Name(), p, w})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}
