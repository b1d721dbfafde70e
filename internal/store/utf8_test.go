package store_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
)

// TestStoreKeepsInvalidUTF8 is issue 19's repro on DuckDB: a byte 0x8D in
// the session id, model, tool name, call id, request id and a tool target
// of a Claude Code session made its import fail ("NOT NULL constraint
// failed", "could not bind parameter") and kept nothing of the file. Now the
// file imports with the same runs and events as the clean one, each bad byte
// is U+FFFD, and the repairs are counted in sources.n_repairs.
func TestStoreKeepsInvalidUTF8(t *testing.T) {
	clean, err := os.ReadFile("../../ingest/testdata/claude-code/split_responses.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	bad := string(clean)
	for _, r := range []struct{ from, to string }{
		{`"s-split"`, "\"s-\x8dsplit\""},                                   // session id
		{`"claude-sonnet-4-5`, "\"claude-\x8dsonnet-4-5"},                  // model
		{`"name":"Read"`, "\"name\":\"Re\x8dad\""},                         // tool name
		{`"toolu_1"`, "\"toolu_\x8d1\""},                                   // call id (call and result)
		{`"id":"msg_1"`, "\"id\":\"msg_\x8d1\""},                           // response id (usage.request_id)
		{`/repo/pkg/parse/./parse_test.go`, "/repo/pkg/\x8dparse_test.go"}, // target
	} {
		if !strings.Contains(bad, r.from) {
			t.Fatalf("fixture has no %s", r.from)
		}
		bad = strings.ReplaceAll(bad, r.from, r.to)
	}
	forModes(t, func(t *testing.T, small int64) {
		dir := t.TempDir()
		for name, data := range map[string]string{"clean/s.jsonl": string(clean), "bad/s.jsonl": bad} {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		count := func(sub string) (int64, int64, int64) {
			st := newFileStore(t)
			sum, err := ingest.Files(context.Background(), st, []string{filepath.Join(dir, sub)}, &ingest.Options{SmallFile: small, Workers: 1})
			if err != nil || sum.Failed != 0 {
				t.Fatalf("%s: err %v, summary %+v", sub, err, sum)
			}
			if sub == "bad" {
				for q, want := range map[string]int64{
					"SELECT count(*) FROM runs WHERE run_id = 's-\uFFFDsplit' AND model LIKE 'claude-\uFFFDsonnet-4-5%'": 1,
					"SELECT count(*) FROM events WHERE tool_name = 'Re\uFFFDad' AND call_id = 'toolu_\uFFFD1'":           2, // the call and its result
					"SELECT count(*) FROM events WHERE kind = 'tool_result' AND call_id = 'toolu_\uFFFD1'":               1,
					"SELECT count(*) FROM usage WHERE request_id = 'msg_\uFFFD1'":                                        1,
					"SELECT count(*) FROM events WHERE target = '/repo/pkg/\uFFFDparse_test.go'":                         2, // the call and its result
				} {
					if got := scalar[int64](t, st, q); got != want {
						t.Errorf("%s = %d, want %d", q, got, want)
					}
				}
				if n := scalar[int64](t, st, "SELECT n_repairs FROM sources"); n == 0 || n != sum.Repairs {
					t.Errorf("n_repairs %d, summary %d; want the same, > 0", n, sum.Repairs)
				}
			}
			c := counts(t, st)
			return c["runs"], c["events"], c["usage"]
		}
		r0, e0, u0 := count("clean")
		r1, e1, u1 := count("bad")
		if r0 != r1 || e0 != e1 || u0 != u1 {
			t.Errorf("runs/events/usage: clean %d/%d/%d, with bad bytes %d/%d/%d", r0, e0, u0, r1, e1, u1)
		}
	})
}

// TestStoreKeepsRawNUL is issue 31's repro on DuckDB: one raw NUL byte
// inside a string lost a one-document file whole (a Gemini CLI session)
// and a JSON line its record (Claude Code). Now both import with the runs
// and events of the clean files, the NUL stored as U+0000 in the text it
// was in, and each repair counted in sources.n_repairs and the summary;
// streamed (a large file read through the repair) and batched alike.
func TestStoreKeepsRawNUL(t *testing.T) {
	root := filepath.Join(testutil.RepoRoot(), "ingest", "testdata")
	files := map[string]struct{ src, anchor string }{
		"s.json":  {filepath.Join(root, "gemini-cli", "session.json"), "list the repo"},
		"s.jsonl": {filepath.Join(root, "claude-code", "split_responses.jsonl"), "Fix the failing test"},
	}
	forModes(t, func(t *testing.T, small int64) {
		dir := t.TempDir()
		for name, f := range files {
			data, err := os.ReadFile(f.src)
			if err != nil {
				t.Fatal(err)
			}
			i := strings.Index(string(data), f.anchor)
			if i < 0 {
				t.Fatalf("%s has no %q", f.src, f.anchor)
			}
			bad := append(append(append([]byte{}, data[:i+3]...), 0), data[i+3:]...)
			for sub, b := range map[string][]byte{"clean": data, "bad": bad} {
				p := filepath.Join(dir, sub, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		count := func(sub string) map[string]int64 {
			st := newFileStore(t)
			sum, err := ingest.Files(context.Background(), st, []string{filepath.Join(dir, sub)}, &ingest.Options{SmallFile: small, Workers: 1})
			if err != nil || sum.Failed != 0 {
				t.Fatalf("%s: err %v, summary %+v", sub, err, sum)
			}
			if sub == "bad" {
				if sum.Repairs != 2 {
					t.Errorf("summary: %d repairs, want 2", sum.Repairs)
				}
				if n := scalar[int64](t, st, "SELECT sum(n_repairs) FROM sources"); n != 2 {
					t.Errorf("n_repairs %d, want 2", n)
				}
				for _, q := range []string{
					"SELECT count(*) FROM events WHERE text = 'lis' || chr(0) || 't the repo'",
					"SELECT count(*) FROM events WHERE text LIKE 'Fix' || chr(0) || ' the failing test%'",
				} {
					if got := scalar[int64](t, st, q); got != 1 {
						t.Errorf("%s = %d, want 1", q, got)
					}
				}
			}
			return counts(t, st)
		}
		if clean, bad := count("clean"), count("bad"); !maps.Equal(clean, bad) {
			t.Errorf("counts: clean %v, with a NUL %v", clean, bad)
		}
	})
}
