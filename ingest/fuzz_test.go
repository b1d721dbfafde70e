package ingest_test

import (
	"context"
	"flag"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

var fuzzImporter = flag.String("fuzz.importer", "", "FuzzImporters: fuzz only the table entry of this name (e.g. codex-cli)")

// fuzzParse is one way an input is parsed: with format, under the file name
// file (the name decides JSONL versus one document for some importers).
type fuzzParse struct{ format, file string }

// fuzzEntry is one importer family in FuzzImporters.
type fuzzEntry struct {
	name   string                  // the seed's first argument
	globs  []string                // seed files
	extra  func(testing.TB) []byte // a seed built in code, or nil
	skip   string                  // seed files with this suffix are left out
	parses []fuzzParse
	// seedName parses under "fuzz/<seed's file name>" instead of
	// parses[i].file (the ATIF importer reads continuation indexes from it).
	seedName bool
	check    func(t *testing.T, m *ingest.MemSink) // extra assertions, or nil
}

// fuzzTable lists every importer with its seeds (testdata/<format>/…, and
// issue 30's agent fixtures in testdata/agents).
var fuzzTable = []fuzzEntry{
	{name: adFormat, globs: []string{"testdata/aider-chat-history/*"}, parses: []fuzzParse{{adFormat, "fuzz.aider.chat.history.md"}}},
	{name: "atif", globs: []string{"testdata/atif/*.json*"}, parses: []fuzzParse{{"atif", ""}}, seedName: true, check: atifFuzzCheck},
	{name: "claude-code", globs: []string{"testdata/claude-code/*.jsonl", "testdata/claude-code-split-output/*.jsonl", "testdata/agents/claude-code-2.1/*.jsonl"}, parses: []fuzzParse{{"claude-code", "fuzz.jsonl"}}},
	{name: csFormat, globs: []string{"testdata/" + csFormat + "/*"}, parses: []fuzzParse{{csFormat, "fuzz.jsonl"}}},
	{name: cwFormat, globs: []string{"testdata/" + cwFormat + "/*.json"}, parses: []fuzzParse{{cwFormat, "fuzz.json"}}},
	{name: "cline", globs: []string{"testdata/cline-sdk-session/*.json", "testdata/cline-http-cassette/*.json"},
		parses: []fuzzParse{{clSDKFormat, "fuzz.json"}, {clCassetteFormat, "fuzz.json"}}},
	{name: "codex-cli", globs: []string{"testdata/codex/*.jsonl", "testdata/tokens/*.codex-cli.jsonl"}, parses: []fuzzParse{{"codex-cli", "fuzz.jsonl"}}, check: codexFuzzCheck},
	{name: cxeFormat, globs: []string{"testdata/" + cxeFormat + "/*.jsonl"}, parses: []fuzzParse{{cxeFormat, "fuzz.jsonl"}}},
	// the .json and the session-*.jsonl of 0.40+ (told apart by content)
	{name: gmFormat, globs: []string{"testdata/gemini-cli/*.json", "testdata/agents/gemini-cli-jsonl/*.json*"}, parses: []fuzzParse{{gmFormat, "fuzz.json"}}},
	{name: "inspect-ai", globs: []string{"testdata/inspect-ai/*.json"}, extra: inspArchive, parses: []fuzzParse{{"inspect-ai", "fuzz.eval"}}, check: atifFuzzCheck},
	{name: kimiFormat, globs: []string{"testdata/kimi-cli-wire/*.jsonl", "testdata/kimi-cli-wire/*/agents/*/wire.jsonl"}, parses: []fuzzParse{{kimiFormat, "fuzz.json"}}},
	{name: lfFormat, globs: []string{"testdata/langfuse-trace-export/*.json"}, parses: []fuzzParse{{lfFormat, "fuzz.json"}}, check: gaiFuzzCheck},
	// Both message importers run the same code (the name only sets the
	// default harness), so each input is read once as a document, once as
	// JSONL, and once under a LiteLLM call-log name (not a real path: no
	// siblings).
	{name: "messages", globs: []string{msgFixtures + "/*", "testdata/messages-litellm/*.json"},
		parses: []fuzzParse{{msgOpenAI, "fuzz.json"}, {msgAnthropic, "fuzz.jsonl"}, {msgOpenAI, "fuzz-model-1700000000.5.json"}}, check: msgCheckSink},
	{name: "mini-swe-agent", globs: []string{"testdata/mini-swe-agent/*"}, skip: ".md", parses: []fuzzParse{{"mini-swe-agent", "fuzz.traj.json"}}, check: sweFuzzCheck},
	{name: ocFormat, globs: []string{"testdata/openclaw-telemetry/*.jsonl"}, parses: []fuzzParse{{ocFormat, "fuzz.json"}}},
	{name: opcFormat, globs: []string{"testdata/opencode-sse-events/*.json", "testdata/opencode-sse-events/*.sse",
		"testdata/opencode-storage/storage/session/*/*.json", "testdata/opencode-storage/storage/message/*/*.json",
		"testdata/opencode-storage/storage/part/msg_s002/prt_s002c.json"}, parses: []fuzzParse{{opcFormat, "fuzz.json"}}, check: gaiFuzzCheck},
	// the name decides JSONL versus one document: try both
	{name: "openhands", globs: []string{"testdata/openhands/*.json*"}, parses: []fuzzParse{{"openhands", "fuzz.jsonl"}, {"openhands", "fuzz.json"}}, check: ohFuzzCheck},
	{name: ohsFormat, globs: []string{"testdata/" + ohsFormat + "/*.jsonl"}, parses: []fuzzParse{{ohsFormat, "events.jsonl"}}, check: ohsFuzzCheck},
	{name: "otel-genai-spans", globs: []string{"testdata/otel-genai-spans/*.json*"}, parses: []fuzzParse{{"otel-genai-spans", "fuzz.json"}}, check: gaiFuzzCheck},
	{name: piFormat, globs: []string{"testdata/pi-coding-agent/*.jsonl", "testdata/agents/pi/*.jsonl"}, parses: []fuzzParse{{piFormat, "fuzz.json"}}},
	{name: "swe-agent-traj", globs: []string{"testdata/swe-agent-traj/*"}, skip: ".md", parses: []fuzzParse{{"swe-agent-traj", "fuzz.traj"}}, check: sweFuzzCheck},
	// the issue-21 formats (sweFuzzCheck holds for them too); under a fuzz/
	// name there are no siblings (settings.json, summary.json, signals.json,
	// meta.json) to read
	{name: "factory-droid", globs: []string{"testdata/factory-droid/*.jsonl"}, parses: []fuzzParse{{"factory-droid", "fuzz.jsonl"}}, check: sweFuzzCheck},
	{name: "factory-droid-exec-stream-json", globs: []string{"testdata/factory-droid-exec-stream-json/*.jsonl", "testdata/agents/factory-droid-exec/*.jsonl"}, parses: []fuzzParse{{"factory-droid-exec-stream-json", "fuzz.jsonl"}}, check: sweFuzzCheck},
	{name: "qwen-code", globs: []string{"testdata/qwen-code/*.jsonl"}, parses: []fuzzParse{{"qwen-code", "fuzz.jsonl"}}, check: sweFuzzCheck},
	{name: "copilot-cli-events", globs: []string{"testdata/copilot-cli-events/*.jsonl", "testdata/agents/copilot-cli/*.jsonl"}, parses: []fuzzParse{{"copilot-cli-events", "fuzz/events.jsonl"}}, check: sweFuzzCheck},
	{name: "cursor-agent-transcripts", globs: []string{"testdata/cursor-agent-transcripts/*.jsonl", "testdata/cursor-agent-transcripts/*/subagents/*.jsonl",
		"testdata/agents/cursor-turn-ended/*.jsonl"},
		parses: []fuzzParse{{"cursor-agent-transcripts", "fuzz.jsonl"}}, check: sweFuzzCheck},
	{name: "grok-build", globs: []string{"testdata/grok-build/*/chat_history.jsonl", "testdata/agents/grok-build/legacy/*/*/chat_history.jsonl"}, parses: []fuzzParse{{"grok-build", "fuzz/chat_history.jsonl"}}, check: sweFuzzCheck},
	{name: "mistral-vibe", globs: []string{"testdata/mistral-vibe/*/messages.jsonl"}, parses: []fuzzParse{{"mistral-vibe", "fuzz/messages.jsonl"}}, check: sweFuzzCheck},
	{name: "gptme", globs: []string{"testdata/gptme/*/conversation.jsonl"}, parses: []fuzzParse{{"gptme", "fuzz/conversation.jsonl"}}, check: sweFuzzCheck},
	{name: "hermes-agent", globs: []string{"testdata/hermes-agent/*.json"}, parses: []fuzzParse{{"hermes-agent", "fuzz.json"}}, check: sweFuzzCheck},
	{name: "goose-jsonl", globs: []string{"testdata/agents/goose-jsonl/*.jsonl"}, parses: []fuzzParse{{"goose-jsonl", "fuzz.jsonl"}}, check: sweFuzzCheck},
	{name: "antigravity-cli", globs: []string{"testdata/antigravity-cli/*.jsonl", "testdata/agents/antigravity-new/*.jsonl"}, parses: []fuzzParse{{"antigravity-cli", "fuzz.jsonl"}}, check: sweFuzzCheck},
	{name: "kiro-cli-sqlite-payload", globs: []string{"testdata/kiro-cli-sqlite-payload/*.json"}, parses: []fuzzParse{{"kiro-cli-sqlite-payload", "fuzz.json"}}, check: sweFuzzCheck},
	// issue 30 points 9 and 10 (testdata/agents; the hand-written rule
	// cases as extra seeds); under a fuzz/ name there is no sibling to read
	{name: ctFormat, globs: []string{"testdata/agents/roo-code/tasks/*/ui_messages.json", "testdata/agents/kilo-code/tasks/*/*.json"},
		extra:  func(testing.TB) []byte { return []byte(ctXMLHistory) },
		parses: []fuzzParse{{ctFormat, "fuzz/ui_messages.json"}, {ctFormat, "fuzz/api_conversation_history.json"}}, check: sweFuzzCheck},
	{name: ampFormat, globs: []string{"testdata/agents/amp/T-*.json"}, extra: func(testing.TB) []byte { return []byte(ampRulesThread) },
		parses: []fuzzParse{{ampFormat, "fuzz/T-fuzz.json"}}, check: sweFuzzCheck},
	{name: vsFormat, globs: []string{"testdata/agents/vscode-copilot-chat/chatSessions/*"}, extra: func(testing.TB) []byte { return []byte(vsLogRules) },
		parses: []fuzzParse{{vsFormat, "fuzz/s.json"}, {vsFormat, "fuzz/s.jsonl"}}, check: sweFuzzCheck},
	// the outcome files: each input read by every outcome format, under
	// the names that decide their shapes (a flat report's folder, a
	// reward.json, a table's extension)
	{name: "outcomes", globs: []string{"testdata/outcomes/*/*", "testdata/outcomes/*/*/*", "testdata/outcomes/*/*/*/*", "testdata/outcomes/*/*/*/*/*",
		"testdata/outcomes/*/*/*/*/*/*", "testdata/outcomes/*/*/*/*/*/*/*"},
		parses: []fuzzParse{{"swebench-report", "fuzz/logs/x__x-1/report.json"}, {"swebench-results", "fuzz/results/results.json"},
			{"swebench-preds", "fuzz/preds.json"}, {"swebench-preds", "fuzz/all_preds.jsonl"}, {"harbor-result", "fuzz/result.json"},
			{"harbor-result", "fuzz/t/verifier/reward.json"}, {"terminal-bench-results", "fuzz/results.json"},
			{"outcome-table", "fuzz.csv"}, {"outcome-table", "fuzz.tsv"}, {"outcome-table", "fuzz.jsonl"}},
		check: outcomeFuzzCheck},
}

// outcomeFuzzCheck: an outcome file makes no run, and its rows are valid
// (MemSink validated each) and hold a key and an outcome.
func outcomeFuzzCheck(t *testing.T, m *ingest.MemSink) {
	if len(m.Runs) != 0 || len(m.Events) != 0 {
		t.Fatalf("an outcome file made %d runs and %d events", len(m.Runs), len(m.Events))
	}
	for i := range m.Outcomes {
		if err := schema.Validate(&m.Outcomes[i]); err != nil {
			t.Fatalf("invalid outcome row: %v", err)
		}
	}
}

// fuzzEntryFor is the table entry a fuzzed name selects: the entry of that
// name, else one picked by its hash (so that mutated names still reach an
// importer).
func fuzzEntryFor(name string) *fuzzEntry {
	for i := range fuzzTable {
		if fuzzTable[i].name == name {
			return &fuzzTable[i]
		}
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return &fuzzTable[int(h.Sum32()%uint32(len(fuzzTable)))]
}

// FuzzImporters feeds every importer its seeds (the files of its testdata
// directory) and their mutations. The invariants: Detect and Parse never
// panic, and without Strict the import of in-memory data has no reason to
// fail, so an error is a record that failed validation (MemSink validates
// every record) or a recovered panic; an entry's check adds what its format
// promises beyond that. -fuzz.importer=NAME narrows it to one entry.
func FuzzImporters(f *testing.F) {
	for _, e := range fuzzTable {
		if *fuzzImporter != "" && e.name != *fuzzImporter {
			continue
		}
		n := 0
		for _, g := range e.globs {
			seeds, err := filepath.Glob(g)
			if err != nil {
				f.Fatal(err)
			}
			for _, p := range seeds {
				if e.skip != "" && strings.HasSuffix(p, e.skip) || strings.HasSuffix(p, ".golden") {
					continue
				}
				if st, err := os.Stat(p); err == nil && st.IsDir() {
					continue // a glob over a tree matches its folders too
				}
				data, err := os.ReadFile(p)
				if err != nil {
					f.Fatal(err)
				}
				f.Add(e.name, filepath.Base(p), data)
				n++
			}
		}
		if e.extra != nil {
			f.Add(e.name, "extra", e.extra(f))
			n++
		}
		if n == 0 {
			f.Fatalf("%s: no seeds in %v", e.name, e.globs)
		}
	}
	f.Fuzz(func(t *testing.T, name, seed string, data []byte) {
		e := fuzzEntryFor(name)
		if *fuzzImporter != "" && e.name != *fuzzImporter {
			return
		}
		for _, p := range e.parses {
			file := p.file
			if e.seedName {
				file = "fuzz/" + seed
			}
			im, err := ingest.Lookup(p.format)
			if err != nil {
				t.Fatal(err)
			}
			im.Detect(file, data[:min(len(data), ingest.HeadSize)])
			m, err := ingest.Parse(context.Background(), p.format, file, data, nil)
			if err != nil {
				t.Fatalf("parse %s as %s: %v", file, p.format, err)
			}
			if e.check != nil {
				e.check(t, m)
			}
		}
	})
}

// codexFuzzCheck: valid records, one run at most, events numbered from 0, and turns and
// usage rows within the run's model calls.
func codexFuzzCheck(t *testing.T, sink *ingest.MemSink) {
	for _, r := range sink.Records() {
		if err := schema.Validate(r); err != nil {
			t.Fatalf("invalid record: %v", err)
		}
	}
	if len(sink.Runs) > 1 {
		t.Fatalf("got %d runs, want at most 1", len(sink.Runs))
	}
	for i, e := range sink.Events {
		if e.Seq != int64(i) || e.Turn > sink.Runs[0].NTurns {
			t.Fatalf("event %d: seq %d turn %d of %d calls", i, e.Seq, e.Turn, sink.Runs[0].NTurns)
		}
	}
	for _, u := range sink.Usage {
		if u.Turn >= sink.Runs[0].NTurns {
			t.Fatalf("usage of turn %d of %d calls", u.Turn, sink.Runs[0].NTurns)
		}
	}
}

// ohsFuzzCheck: one run at most, and what ohFuzzCheck checks.
func ohsFuzzCheck(t *testing.T, sink *ingest.MemSink) {
	if len(sink.Runs) > 1 {
		t.Fatalf("got %d runs, want at most 1", len(sink.Runs))
	}
	ohFuzzCheck(t, sink)
}

// sweFuzzCheck: events of known runs, numbered from 0 per run, turns within
// the run's model calls, and context ops before the run's last event.
func sweFuzzCheck(t *testing.T, m *ingest.MemSink) {
	runs := map[string]int64{}
	for _, r := range m.Runs {
		runs[r.RunID] = r.NTurns
	}
	seq := map[string]int64{}
	for _, e := range m.Events {
		turns, ok := runs[e.RunID]
		if !ok || e.Seq != seq[e.RunID] || e.Turn > turns {
			t.Fatalf("event %+v: run known %v, want seq %d, turn ≤ %d", e, ok, seq[e.RunID], turns)
		}
		seq[e.RunID]++
	}
	for _, op := range m.ContextOps {
		if op.Seq >= seq[op.RunID] {
			t.Fatalf("op %+v after the last event", op)
		}
	}
}

// gaiFuzzCheck: what gaiCheckSink checks of a GenAI importer's records.
func gaiFuzzCheck(t *testing.T, m *ingest.MemSink) { gaiCheckSink(t, m) }
