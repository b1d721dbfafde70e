package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
)

// TestBOM is issue 19's repro: a UTF-8 byte order mark made codex-cli,
// codex-exec-json and inspect-ai .json files unknown. A BOM-prefixed copy
// of a corpus file of each is detected as its format and imports the same
// runs and events as the file itself, from memory and streamed; its source
// row covers the three bytes of the BOM too.
func TestBOM(t *testing.T) {
	for _, tc := range []struct{ format, file string }{
		{"codex-cli", "codex-cli/ccusage__codex__session-alpha.jsonl"},
		{"codex-exec-json", "codex-exec-json/agentcmd__stream-output-4.jsonl"},
		{"inspect-ai", "inspect-ai/2025-05-12T20-27-36-04-00_browser.json"},
	} {
		orig, err := os.ReadFile(testutil.Corpus(t, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		plain := filepath.Join(dir, "plain", filepath.Base(tc.file))
		bom := filepath.Join(dir, "bom", filepath.Base(tc.file))
		for p, data := range map[string][]byte{plain: orig, bom: append([]byte("\xef\xbb\xbf"), orig...)} {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := detected(t, bom); got != tc.format {
			t.Errorf("%s with a BOM detected as %q, want %s", tc.file, got, tc.format)
		}
		for _, small := range []int64{0, -1} {
			t.Run(tc.format+map[int64]string{0: "/memory", -1: "/streamed"}[small], func(t *testing.T) {
				var want, got ingest.MemSink
				for _, c := range []struct {
					path string
					sink *ingest.MemSink
				}{{plain, &want}, {bom, &got}} {
					sum, err := ingest.Files(context.Background(), c.sink, []string{c.path}, &ingest.Options{SmallFile: small, Warn: func(error) {}})
					if err != nil || sum.Files != 1 {
						t.Fatalf("%s: %v %+v", c.path, err, sum)
					}
				}
				if len(got.Runs) == 0 || len(got.Runs) != len(want.Runs) || len(got.Events) != len(want.Events) || len(got.Rejects) != len(want.Rejects) {
					t.Fatalf("with a BOM: %d runs, %d events, %d rejects; without: %d, %d, %d",
						len(got.Runs), len(got.Events), len(got.Rejects), len(want.Runs), len(want.Events), len(want.Rejects))
				}
				for i := range want.Events {
					if d := cmp.Diff(want.Events[i].Text, got.Events[i].Text); d != "" {
						t.Fatalf("event %d differs (-plain +bom):\n%s", i, d)
					}
				}
				if got.Sources[0].Bytes != int64(len(orig))+3 {
					t.Errorf("source covers %d bytes, want %d", got.Sources[0].Bytes, len(orig)+3)
				}
			})
		}
	}
}

// TestParseBOM: Parse (tests, fuzzing) drops a BOM as Files does.
func TestParseBOM(t *testing.T) {
	data := []byte("\xef\xbb\xbf" + `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}` + "\n")
	sink, err := ingest.Parse(context.Background(), "openai-messages", "bom.jsonl", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Runs) != 1 || len(sink.Events) != 2 || len(sink.Rejects) != 0 {
		t.Errorf("%d runs, %d events, %d rejects; want 1, 2, 0", len(sink.Runs), len(sink.Events), len(sink.Rejects))
	}
	if len(sink.Events) > 0 && strings.HasPrefix(sink.Events[0].Text, "\ufeff") {
		t.Errorf("the BOM reached the text")
	}
}

// TestDoneOncePerFile: Options.Done is called once for every file, whether
// imported, skipped (not a log, found by walking) or failed (named, of no
// known format), with the small files parsed in memory and streamed.
func TestDoneOncePerFile(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"split_responses.jsonl", "overflow_subagent.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", "claude-code", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	notes := filepath.Join(dir, "notes.json") // not a log: skipped when walked
	bad := filepath.Join(t.TempDir(), "bad.json")
	for p, s := range map[string]string{notes: `{"notes": "hello"}`, bad: `{"hello": "world"}`} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, small := range []int64{0, -1} {
		var mu sync.Mutex
		done := 0
		sum, err := ingest.Files(context.Background(), &ingest.MemSink{}, []string{dir, bad}, &ingest.Options{SmallFile: small, Warn: func(error) {},
			Done: func() { mu.Lock(); done++; mu.Unlock() }})
		if err != nil {
			t.Fatal(err)
		}
		// by hand: 2 imported, notes.json skipped, bad.json failed
		if done != 4 || sum.Files != 2 || sum.Skipped != 1 || sum.Failed != 1 {
			t.Errorf("small file %d: Done called %d times, want 4; summary %+v", small, done, sum)
		}
	}
}
