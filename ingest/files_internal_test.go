package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// countReader yields n bytes of 'a' (n < 0: without end) and counts what
// was read.
type countReader struct{ n, read int64 }

func (r *countReader) Read(b []byte) (int, error) {
	if r.n >= 0 && r.read >= r.n {
		return 0, io.EOF
	}
	k := int64(len(b))
	if r.n >= 0 {
		k = min(k, r.n-r.read)
	}
	for i := range k {
		b[i] = 'a'
	}
	r.read += k
	return int(k), nil
}

// TestInspReadMember: a member over the remaining budget is refused before
// a byte of it is decompressed, and none is read past its declared size
// (plus the one byte that shows it lied).
func TestInspReadMember(t *testing.T) {
	for _, tc := range []struct {
		name          string
		size          uint64
		budget, avail int64
		wantErr       string
		wantRead      int64
	}{
		{"over the budget", 100, 10, -1, "member of 100 bytes over the decompression cap", 0},
		{"endless member that declares 10", 10, 100, -1, "member longer than the 10 bytes it declares", 11},
		{"exactly the budget", 10, 10, 10, "", 10},
		{"no cap", 10, -1, 10, "", 10},
		{"shorter than declared", 10, 100, 4, "unexpected EOF", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &countReader{n: tc.avail}
			b, err := inspReadMember(r, tc.size, tc.budget)
			if r.read != tc.wantRead {
				t.Errorf("read %d bytes, want %d", r.read, tc.wantRead)
			}
			if tc.wantErr == "" {
				if err != nil || uint64(len(b)) != tc.size {
					t.Fatalf("got %d bytes, %v", len(b), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// writeLog writes a two-record openai-messages log (two runs of one user
// and one assistant message each) and returns its bytes.
func writeLog(t *testing.T, path string) []byte {
	t.Helper()
	data := []byte(`{"messages":[{"role":"user","content":"one"},{"role":"assistant","content":"first"}]}` + "\n" +
		`{"messages":[{"role":"user","content":"two"},{"role":"assistant","content":"second"}]}` + "\n")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return data
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestFileGrowsDuringIngest is issue 19's repro: a file appended to after
// it was hashed. The sources row covers exactly the bytes imported (the
// two runs hashed, not the third appended), whether the file is imported
// from memory or streamed from disk; the next ingest sees a new size and
// imports the whole file again.
func TestFileGrowsDuringIngest(t *testing.T) {
	for _, tc := range []struct {
		name      string
		small     int64
		hashFirst bool
	}{
		{"small file, from memory", 0, false},
		{"large file, hashed first, streamed", -1, true},
		{"large file, hashed while streamed", -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "grows.jsonl")
			data := writeLog(t, path)
			o := &Options{Format: "openai-messages", SmallFile: tc.small, hashFirst: tc.hashFirst, afterPrepare: func(p string) {
				f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if _, err := f.WriteString(`{"messages":[{"role":"user","content":"three"},{"role":"assistant","content":"third"}]}` + "\n"); err != nil {
					t.Fatal(err)
				}
			}}
			var sink MemSink
			sum, err := Files(context.Background(), &sink, []string{path}, o)
			if err != nil || sum.Failed != 0 {
				t.Fatalf("%v %v", err, sum.Errors)
			}
			if len(sink.Sources) != 1 {
				t.Fatalf("sources %d", len(sink.Sources))
			}
			src := sink.Sources[0]
			if src.Bytes != int64(len(data)) || src.SHA256 != sha(data) {
				t.Errorf("source covers %d bytes (sha %s), want the %d imported (sha %s)", src.Bytes, src.SHA256[:8], len(data), sha(data)[:8])
			}
			if len(sink.Runs) != 2 || sum.Bytes != int64(len(data)) {
				t.Errorf("imported %d runs, %d bytes; want the 2 runs, %d bytes hashed", len(sink.Runs), sum.Bytes, len(data))
			}
		})
	}
}

// TestFileChangedInPlace: a file rewritten (same size) after prepare.
// Hashed first and streamed, the bytes read no longer hash as recorded:
// the file fails and nothing of it is kept. From memory, the bytes hashed
// are the bytes imported. Hashed while streamed (the default for a large
// file, hashlazy.go), hash and import both read the new bytes: the source
// row has the new content's hash.
func TestFileChangedInPlace(t *testing.T) {
	for _, tc := range []struct {
		name      string
		small     int64
		hashFirst bool
		wantErr   string
		runs      int
		newBytes  bool // the rewritten content is the one imported
	}{
		{"small file, from memory", 0, false, "", 2, false},
		{"large file, hashed first, streamed", -1, true, "changed while it was read (its first 173 bytes no longer hash as before); nothing of it was kept, ingest it again", 0, false},
		{"large file, hashed while streamed", -1, false, "", 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rewritten.jsonl")
			data := writeLog(t, path)
			if len(data) != 86+87 {
				t.Fatalf("log is %d bytes", len(data))
			}
			rewritten := []byte(strings.Replace(string(data), "first", "FIRST", 1))
			o := &Options{Format: "openai-messages", SmallFile: tc.small, hashFirst: tc.hashFirst, afterPrepare: func(p string) {
				if err := os.WriteFile(p, rewritten, 0o644); err != nil {
					t.Fatal(err)
				}
			}}
			var sink MemSink
			sum, err := Files(context.Background(), &sink, []string{path}, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(sink.Runs) != tc.runs {
				t.Errorf("runs %d, want %d", len(sink.Runs), tc.runs)
			}
			if tc.wantErr == "" {
				want := data
				if tc.newBytes {
					want = rewritten
				}
				if sum.Failed != 0 || len(sink.Sources) != 1 || sink.Sources[0].SHA256 != sha(want) {
					t.Errorf("failed %v, sources %+v", sum.Errors, sink.Sources)
				}
				upper := 0
				for _, e := range sink.Events {
					if e.Text == "FIRST" {
						upper++
					}
				}
				if tc.newBytes != (upper == 1) {
					t.Errorf("%d events of the rewritten text; want the bytes hashed imported", upper)
				}
				return
			}
			if sum.Failed != 1 || len(sink.Sources) != 0 {
				t.Fatalf("failed %d, sources %d; want the file failed", sum.Failed, len(sink.Sources))
			}
			if got := sum.Errors[0].Error(); !strings.Contains(got, tc.wantErr) {
				t.Errorf("error %q\nwant %q", got, tc.wantErr)
			}
		})
	}
}

// TestWalkUnreadableDirectory is issue 19's repro ("walk: permission
// denied", nothing imported) with the error injected, since tests here may
// run as root, for whom chmod 000 changes nothing: the directory is
// reported, counted as failed, and the rest of the tree imports.
func TestWalkUnreadableDirectory(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "locked", "z"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeLog(t, filepath.Join(root, "a", "one.jsonl"))
	writeLog(t, filepath.Join(root, "locked", "hidden.jsonl"))
	os.WriteFile(filepath.Join(root, "z", "two.jsonl"), []byte(`{"messages":[{"role":"user","content":"z"},{"role":"assistant","content":"zz"}]}`+"\n"), 0o644)
	locked := filepath.Join(root, "locked")
	// walk fails to read locked as filepath.WalkDir does: fn(dir, d, nil),
	// then fn(dir, d, err) for the failed ReadDir, and no entries
	walk := func(r string, fn fs.WalkDirFunc) error {
		return filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
			if p != locked || err != nil {
				return fn(p, d, err)
			}
			if err := fn(p, d, nil); err != nil {
				return err
			}
			if err := fn(p, d, &fs.PathError{Op: "open", Path: p, Err: fs.ErrPermission}); err != nil && err != filepath.SkipDir {
				return err
			}
			return filepath.SkipDir
		})
	}
	var sink MemSink
	sum, err := Files(context.Background(), &sink, []string{root}, &Options{walk: walk})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != 2 || sum.Failed != 1 || len(sink.Runs) != 3 {
		t.Errorf("files %d, failed %d, runs %d; want 2, 1, 3", sum.Files, sum.Failed, len(sink.Runs))
	}
	want := "walk " + locked + ": open " + locked + ": permission denied"
	if len(sum.Errors) != 1 || sum.Errors[0].Error() != want {
		t.Errorf("errors %v, want [%s]", sum.Errors, want)
	}
	if len(sum.Errors) == 1 && !errors.Is(sum.Errors[0], fs.ErrPermission) {
		t.Errorf("error does not wrap fs.ErrPermission")
	}
}
