package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/trajmine/trajmine/schema"
)

// TestHashWhileStreamed: a large file hashed while it is imported
// (hashlazy.go) is stored as when it was hashed first, and a content met
// before (earlier in the same ingest, or in the sink) is skipped with
// nothing of it stored. writeLog's file holds 2 runs of 2 events each
// (counted by hand); a copy of it under another name has the same content.
func TestHashWhileStreamed(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		copies                   int  // files of the same content in one ingest
		twice                    bool // ingest the first file again, with Rehash
		files, skipped, runs, ev int  // the last ingest's summary
		sinkRuns                 int
	}{
		{"one file", 1, false, 1, 0, 2, 4, 2},
		{"the same content twice in one ingest", 2, false, 1, 1, 2, 4, 2},
		{"three copies in one ingest", 3, false, 1, 2, 2, 4, 2},
		{"again in a second ingest", 1, true, 0, 1, 0, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(hashFirst bool) (*MemSink, *Summary) {
				dir := t.TempDir()
				var paths []string
				for i := range tc.copies {
					p := filepath.Join(dir, string(rune('a'+i))+".jsonl")
					writeLog(t, p)
					paths = append(paths, p)
				}
				sink := &MemSink{}
				o := &Options{Format: "openai-messages", SmallFile: -1, hashFirst: hashFirst, Rehash: true}
				sum, err := Files(context.Background(), sink, paths, o)
				if err == nil && tc.twice {
					sum, err = Files(context.Background(), sink, paths[:1], o)
				}
				if err != nil || sum.Failed != 0 {
					t.Fatalf("%v %v", err, sum.Errors)
				}
				return sink, sum
			}
			lazy, sum := run(false)
			if sum.Files != tc.files || sum.Skipped != tc.skipped || sum.Runs != int64(tc.runs) || sum.Events != int64(tc.ev) {
				t.Errorf("files %d skipped %d runs %d events %d; want %d %d %d %d", sum.Files, sum.Skipped, sum.Runs, sum.Events, tc.files, tc.skipped, tc.runs, tc.ev)
			}
			if len(lazy.Runs) != tc.sinkRuns || len(lazy.Sources) != 1 {
				t.Errorf("sink holds %d runs, %d sources; want %d, 1", len(lazy.Runs), len(lazy.Sources), tc.sinkRuns)
			}
			first, _ := run(true)
			ignore := cmp.Options{
				cmpopts.IgnoreFields(schema.Source{}, "IngestedAt", "Path"),
				cmpopts.IgnoreFields(schema.Run{}, "SourcePath"),
				cmpopts.IgnoreFields(schema.Reject{}, "SourcePath"),
				cmpopts.IgnoreUnexported(MemSink{}),
				cmpopts.EquateEmpty(),
			}
			if d := cmp.Diff(first, lazy, ignore); d != "" {
				t.Errorf("hashed while streamed differs from hashed first (-first +while):\n%s", d)
			}
		})
	}
}

// TestHashWhileStreamedSourceHash: the source row of a file hashed while
// it is imported has the sha256 and size of the file's bytes.
func TestHashWhileStreamedSourceHash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	data := writeLog(t, path)
	var sink MemSink
	sum, err := Files(context.Background(), &sink, []string{path}, &Options{Format: "openai-messages", SmallFile: -1})
	if err != nil || sum.Failed != 0 {
		t.Fatalf("%v %v", err, sum.Errors)
	}
	if len(sink.Sources) != 1 || sink.Sources[0].SHA256 != sha(data) || sink.Sources[0].Bytes != int64(len(data)) {
		t.Fatalf("sources %+v; want sha %s, %d bytes", sink.Sources, sha(data), len(data))
	}
	for _, r := range sink.Runs {
		if r.SourceSHA256 != sha(data) {
			t.Errorf("run %s names source %q, want %s", r.RunID, r.SourceSHA256, sha(data))
		}
	}
}

// TestStreamFingerprint: a file hashed while it is imported is checked by
// fingerprint (sourceReader.useFingerprint): the stream of the bytes the
// hasher read verifies, however it is cut into reads; bytes changed after
// the hasher read them (rewritten in place, the same size, before or in
// the middle of the stream) fail the check, as a stream checked against
// the sha256 does. writeLog's file is 173 bytes.
func TestStreamFingerprint(t *testing.T) {
	for _, tc := range []struct {
		name    string
		chunk   int // the stream's read size
		rewrite int // rewrite the file after this many bytes streamed (-1: never)
		at      int // … its byte at this offset changed to '#'
		wantErr bool
	}{
		{"unchanged, one read", 4096, -1, 0, false},
		{"unchanged, reads of 7 bytes", 7, -1, 0, false},
		{"rewritten before the stream", 64, 0, 10, true},
		{"rewritten in the middle of the stream, ahead of it", 64, 64, 100, true},
		{"rewritten in the part verify reads", 64, 172, 172, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log.jsonl")
			data := writeLog(t, path)
			h := hashFile(path, int64(len(data)))
			if h.err != nil || h.sha != sha(data) || h.n != int64(len(data)) {
				t.Fatalf("hashFile: %+v, want sha %s, %d bytes", h, sha(data), len(data))
			}
			fh, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			sr := newSourceReader(fh, h.n, nil)
			sr.useFingerprint()
			sr.wantFP = h.fp
			buf := make([]byte, tc.chunk)
			for {
				if int(sr.read) >= tc.rewrite && tc.rewrite >= 0 {
					rewritten := bytes.Clone(data)
					rewritten[tc.at] = '#'
					if err := os.WriteFile(path, rewritten, 0o644); err != nil {
						t.Fatal(err)
					}
					tc.rewrite = -1
				}
				if sr.read == 172 { // the last byte is left to verify
					break
				}
				if _, err := sr.Read(buf[:min(len(buf), 172-int(sr.read))]); err != nil {
					t.Fatal(err)
				}
			}
			err = sr.verify(&schema.Source{Path: path, SHA256: h.sha, Bytes: h.n})
			if (err != nil) != tc.wantErr {
				t.Fatalf("verify: %v, want an error: %v", err, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "changed while it was read") {
				t.Errorf("verify: %v", err)
			}
		})
	}
}
