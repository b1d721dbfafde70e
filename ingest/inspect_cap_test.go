package ingest_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
)

// zipMembers writes an archive of the named members, in order.
func zipMembers(t testing.TB, members ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		w, err := zw.Create(m[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(m[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const bombHeader = `{"version": 2, "status": "success", "eval": {"eval_id": "BOMB", "created": "2026-03-10T12:00:00+00:00", "task": "t", "run_id": "R", "model": "openai/gpt-5"}}`

// bombSample is a sample whose one message holds n bytes of "a": the
// repro of issue 19 (a 1.9 MB .eval holding a 1.9 GB string), scaled down.
func bombSample(n int) string {
	return `{"id": 1, "epoch": 1, "messages": [{"role": "user", "content": "` + strings.Repeat("a", n) + `"}]}`
}

// TestInspectDecompressionCap: an archive whose members decompress to more
// than Options.MaxDecompressed fails as a whole with a message naming the
// cap and the flag that raises it; the other files of the ingest import.
func TestInspectDecompressionCap(t *testing.T) {
	const n = 3 << 20 // the message's bytes
	sample := bombSample(n)
	bomb := zipMembers(t, [2]string{"samples/1_epoch_1.json", sample}, [2]string{"header.json", bombHeader})
	total := len(sample) + len(bombHeader) // 3 MiB + 68 bytes around the string + a 157-byte header
	if total != 3145728+68+157 {
		t.Fatalf("bomb decompresses to %d bytes", total)
	}
	if len(bomb) > 64<<10 {
		t.Fatalf("bomb is %d bytes compressed", len(bomb))
	}
	for _, tc := range []struct {
		name    string
		max     int64
		small   int64 // Options.SmallFile: 0 reads the archive into memory, -1 at offsets from disk
		wantErr string
		files   int
	}{
		{"over the cap, in memory", 1 << 20, 0, "bomb.eval: not imported: the archive's members decompress to at least 3145953 bytes (3.0 MiB), over the decompression cap of 1048576 bytes (1.0 MiB); raise it with --max-decompressed (Options.MaxDecompressed)", 1},
		{"over the cap, from disk", 1 << 20, -1, "bomb.eval: not imported: the archive's members decompress to at least 3145953 bytes (3.0 MiB), over the decompression cap of 1048576 bytes (1.0 MiB)", 1},
		{"one byte over", int64(total) - 1, -1, "over the decompression cap of 3145952 bytes", 1},
		{"exactly the cap", int64(total), -1, "", 2},
		{"cap raised", 8 << 20, 0, "", 2},
		{"no cap", -1, -1, "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "bomb.eval"), bomb, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "good.eval"), inspArchive(t), 0o644); err != nil {
				t.Fatal(err)
			}
			var sink ingest.MemSink
			sum, err := ingest.Files(context.Background(), &sink, []string{dir}, &ingest.Options{MaxDecompressed: tc.max, SmallFile: tc.small, Warn: func(error) {}})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Files != tc.files {
				t.Errorf("imported %d files, want %d (errors %v)", sum.Files, tc.files, sum.Errors)
			}
			if tc.wantErr == "" {
				if sum.Failed != 0 {
					t.Errorf("failed: %v", sum.Errors)
				}
				return
			}
			if sum.Failed != 1 || len(sum.Errors) != 1 {
				t.Fatalf("failed %d, errors %v; want the bomb", sum.Failed, sum.Errors)
			}
			if got := sum.Errors[0].Error(); !strings.Contains(got, tc.wantErr) {
				t.Errorf("error %q\nwant it to contain %q", got, tc.wantErr)
			}
			if !errors.Is(sum.Errors[0], ingest.ErrDecompressedCap) {
				t.Errorf("error %v is not ErrDecompressedCap", sum.Errors[0])
			}
			for _, s := range sink.Sources {
				if strings.HasSuffix(s.Path, "bomb.eval") {
					t.Errorf("the bomb was recorded as imported: %+v", s)
				}
			}
		})
	}
}

// TestInspectArchiveMemory checks the stated bound: importing an archive
// allocates (in all, so its peak heap is less) at most inspMemFactor (10)
// times its largest member, however small the archive is on disk. Measured:
// 8.0× (goccy copies its input on each Unmarshal; the sample, its messages
// as raw JSON, the message and its text each hold a copy).
func TestInspectArchiveMemory(t *testing.T) {
	const n = 16 << 20
	sample := bombSample(n)
	data := zipMembers(t, [2]string{"samples/1_epoch_1.json", sample}, [2]string{"header.json", bombHeader})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sink, err := ingest.Parse(context.Background(), "inspect-ai", "big.eval", data, nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Events) != 1 || len(sink.Events[0].Text) != n {
		t.Fatalf("events %d", len(sink.Events))
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d bytes for a member of %d: %.2f×", alloc, len(sample), float64(alloc)/float64(len(sample)))
	if alloc > 10*uint64(len(sample)) {
		t.Errorf("allocated %d bytes, more than 10 × the %d-byte member", alloc, len(sample))
	}
}
