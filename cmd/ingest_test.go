package cmd

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestMaxDecompressedFlag: --max-decompressed takes bytes with an optional
// unit, or none; anything else is a usage error naming the flag.
func TestMaxDecompressedFlag(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want byteSize
		err  string
	}{
		{"", 1 << 30, ""}, // the default
		{"512MiB", 512 << 20, ""},
		{"2GB", 2_000_000_000, ""},
		{"1048576", 1 << 20, ""},
		{"64kib", 64 << 10, ""},
		{"none", -1, ""},
		{"0", 0, `invalid argument "0" for "--max-decompressed" flag: "0" is not a size`},
		{"1.5GiB", 0, `"1.5GiB" is not a size`},
		{"-3", 0, `"-3" is not a size`},
		{"9000000TiB", 0, `"9000000TiB" is not a size`},
	} {
		t.Run(tc.arg, func(t *testing.T) {
			var got *IngestOptions
			c := NewIngestCmd(testDeps(t, nil), func(o *IngestOptions) error { got = o; return nil })
			args := []string{"x.eval"}
			if tc.arg != "" {
				args = append([]string{"--max-decompressed", tc.arg}, args...)
			}
			c.SetArgs(args)
			c.SetOut(&bytes.Buffer{})
			c.SetErr(&bytes.Buffer{})
			err := c.Execute()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.MaxDecompressed != tc.want {
				t.Errorf("got %d, want %d", got.MaxDecompressed, tc.want)
			}
		})
	}
	for v, want := range map[byteSize]string{1 << 30: "1GiB", 2_000_000_000: "2GB", -1: "none", 1000: "1KB", 1001: "1001B"} {
		if got := v.String(); got != want {
			t.Errorf("%d prints as %q, want %q", v, got, want)
		}
	}
}

// TestIngestHostileInputs runs issue 19's repros through the command: an
// .eval that decompresses past --max-decompressed, and /dev/zero with
// --format. Each fails with its reason, exit status 1, and the good file
// beside it imports.
func TestIngestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("samples/1_epoch_1.json")
	w.Write([]byte(`{"id": 1, "epoch": 1, "messages": [{"role": "user", "content": "` + strings.Repeat("a", 2<<20) + `"}]}`))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	bomb := filepath.Join(dir, "bomb.eval")
	if err := os.WriteFile(bomb, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.jsonl")
	if err := os.WriteFile(good, []byte(`{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		// 2 MiB of "a" and 68 bytes around them
		{"bomb", []string{"ingest", "--max-decompressed", "1MiB", bomb, good},
			bomb + ": not imported: the archive's members decompress to at least 2097220 bytes (2.0 MiB), over the decompression cap of 1048576 bytes (1.0 MiB); raise it with --max-decompressed (Options.MaxDecompressed)\n"},
	}
	if runtime.GOOS == "linux" {
		tests = append(tests, struct {
			name   string
			args   []string
			stderr string
		}{"dev-zero", []string{"ingest", "--format", "openai-messages", "/dev/zero", good}, "/dev/zero: skipped, not a regular file: a character device\n"})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := testDeps(t, nil)
			d.DB = filepath.Join(t.TempDir(), "x.duckdb")
			stdout, stderr, code := run(t, d, tc.args...)
			if code != exitFailed {
				t.Errorf("exit %d, want %d", code, exitFailed)
			}
			if want := tc.stderr + "trajmine: 1 file failed to import\n"; stderr != want {
				t.Errorf("stderr\n%q\nwant\n%q", stderr, want)
			}
			if !strings.HasPrefix(stdout, "imported 1 file ") || !strings.Contains(stdout, "1 run, 2 events") || !strings.HasSuffix(stdout, "; 1 failed\n") {
				t.Errorf("stdout %q", stdout)
			}
		})
	}
}
