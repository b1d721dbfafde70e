package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/synth"
)

// dumpTables renders every table of the store, rows in the order they were
// stored (rowid), every column but sources.ingested_at (the wall clock of
// the import), one line per row.
func dumpTables(t *testing.T, st *store.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tb := range schema.Tables {
		q := "SELECT * FROM " + tb.Name + " ORDER BY rowid"
		if tb.Name == schema.TableSources {
			q = "SELECT * EXCLUDE (ingested_at) FROM " + tb.Name + " ORDER BY rowid"
		}
		rows, err := st.DB().QueryContext(context.Background(), q)
		if err != nil {
			t.Fatalf("dump %s: %v", tb.Name, err)
		}
		cols, _ := rows.Columns()
		var b strings.Builder
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatalf("dump %s: %v", tb.Name, err)
			}
			fmt.Fprintf(&b, "%q\n", vals)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("dump %s: %v", tb.Name, err)
		}
		rows.Close()
		out[tb.Name] = b.String()
	}
	return out
}

// manyFilesCorpus writes a directory of session files in the three synth
// formats (one of them a single JSONL of many runs) plus the cases where
// the order of the files decides the result: a copy of a session file with
// one more line (same session id, other content: the later file's run is
// renamed id@sha8) and an identical copy (same content: only the first file
// is kept).
func manyFilesCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	m, err := synth.Write(dir, &synth.Options{N: 90, Seed: 7, Calls: 2})
	if err != nil {
		t.Fatal(err)
	}
	var cc string
	for _, f := range m.Files {
		if f.Format == synth.FormatClaudeCode {
			cc = filepath.Join(dir, f.Path)
			break
		}
	}
	data, err := os.ReadFile(cc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimRight(string(data), "\n"), "\n")
	for name, content := range map[string]string{
		"aa-grown.jsonl": string(data) + lines[len(lines)-1] + "\n",
		"zz-copy.jsonl":  string(data),
		"mm-grown.jsonl": string(data) + lines[0] + "\n",
	} {
		p := filepath.Join(filepath.Dir(cc), name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestParallelIngestMatchesOneByOne (issue 18): a directory ingested in one
// call, files parsed on several workers and committed in batches (and large
// files streamed), stores the very rows, in the very order and under the
// very run ids, of the same files ingested one call each in path order.
func TestParallelIngestMatchesOneByOne(t *testing.T) {
	ctx := context.Background()
	dir := manyFilesCorpus(t)
	paths, err := ingest.Expand([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	one := newTestStore(t)
	for _, p := range paths {
		if _, err := ingest.Files(ctx, one, []string{p}, &ingest.Options{Workers: 1, SmallFile: -1}); err != nil {
			t.Fatal(err)
		}
	}
	want := dumpTables(t, one)
	if strings.Count(want[schema.TableSources], "\n") != len(paths)-1 {
		t.Fatalf("one by one: %d sources for %d files (one duplicate)", strings.Count(want[schema.TableSources], "\n"), len(paths))
	}
	if !strings.Contains(want[schema.TableRuns], "@") {
		t.Fatalf("no run renamed id@sha8: the corpus does not test run-id order")
	}
	for _, tc := range []struct {
		name    string
		workers int
		small   int64
	}{
		{"2 workers, batched", 2, 0},
		{"8 workers, batched, large files streamed", 8, 64 << 10},
		{"8 workers, every file streamed", 8, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newTestStore(t)
			sum, err := ingest.Files(ctx, st, []string{dir}, &ingest.Options{Workers: tc.workers, SmallFile: tc.small})
			if err != nil || sum.Failed != 0 {
				t.Fatalf("%v %v", err, sum.Errors)
			}
			if sum.Files != len(paths)-1 || sum.Skipped != 1 {
				t.Errorf("files %d, skipped %d; want %d, 1", sum.Files, sum.Skipped, len(paths)-1)
			}
			got := dumpTables(t, st)
			for _, tb := range schema.Tables {
				if got[tb.Name] != want[tb.Name] {
					t.Errorf("table %s differs from the one-by-one ingest (%d rows, want %d)", tb.Name,
						strings.Count(got[tb.Name], "\n"), strings.Count(want[tb.Name], "\n"))
				}
			}
		})
	}
}

// TestCorruptFileAmong200: one file in the middle of 200 has a line that is
// not JSON. With --strict it fails, reported as file:line, and the other
// 199 are kept; without, all 200 are kept, the bad line a reject reported
// as file:line.
func TestCorruptFileAmong200(t *testing.T) {
	dir := t.TempDir()
	var bad string
	for i := range 200 {
		p := filepath.Join(dir, fmt.Sprintf("s%03d.jsonl", i))
		body := fmt.Sprintf(`{"messages":[{"role":"user","content":"q%d"},{"role":"assistant","content":"a%d"}]}`+"\n", i, i)
		if i == 100 {
			bad = p
			body += "{not json\n" + body
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name                 string
		strict               bool
		files, failed        int
		runs, rejects        int64
		errs, warns, sources int
	}{
		// 2 runs in the bad file (lines 1 and 3), 1 in each other
		{"strict", true, 199, 1, 199, 0, 1, 0, 199},
		{"lenient", false, 200, 0, 201, 1, 0, 1, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newTestStore(t)
			var warns []string
			sum, err := ingest.Files(context.Background(), st, []string{dir}, &ingest.Options{
				Format: "openai-messages", Strict: tc.strict, Workers: 2,
				Warn: func(err error) { warns = append(warns, err.Error()) },
			})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Files != tc.files || sum.Failed != tc.failed || sum.Runs != tc.runs || sum.Rejects != tc.rejects {
				t.Errorf("files %d failed %d runs %d rejects %d; want %d %d %d %d", sum.Files, sum.Failed, sum.Runs, sum.Rejects, tc.files, tc.failed, tc.runs, tc.rejects)
			}
			msgs := warns
			if tc.strict {
				msgs = nil
				for _, e := range sum.Errors {
					msgs = append(msgs, e.Error())
				}
			}
			if len(msgs) != 1 || !strings.HasPrefix(msgs[0], bad+":2: ") {
				t.Errorf("messages %q, want one starting %q", msgs, bad+":2: ")
			}
			var n, runs int
			db := st.DB()
			mustScan(t, db, "SELECT count(*) FROM sources", &n)
			mustScan(t, db, "SELECT count(*) FROM runs", &runs)
			if n != tc.sources || int64(runs) != tc.runs {
				t.Errorf("stored %d sources, %d runs; want %d, %d", n, runs, tc.sources, tc.runs)
			}
		})
	}
}

func mustScan(t *testing.T, db *sql.DB, q string, dst any) {
	t.Helper()
	if err := db.QueryRowContext(context.Background(), q).Scan(dst); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}
