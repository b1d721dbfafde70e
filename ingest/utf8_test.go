package ingest_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
)

// utf8Seed is one fixture file and the format auto-detection gives it.
type utf8Seed struct {
	path, format string
	data         []byte
}

// utf8Seeds returns every fixture under testdata/<dir>/ that auto-detection
// recognises, in every format that has one; zip archives (.eval) are left
// out, since a byte changed inside compressed data breaks the archive's
// checksum rather than a string (the archive is then rejected whole, as it
// must be).
func utf8Seeds(t testing.TB) []utf8Seed {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []utf8Seed
	formats := map[string]bool{}
	for _, p := range paths {
		if strings.HasSuffix(p, ".eval") || strings.HasSuffix(p, ".md") || strings.Contains(p, "corpus") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil || len(data) == 0 {
			continue
		}
		im := ingest.Detect(p, data[:min(len(data), ingest.HeadSize)])
		if im == nil {
			continue
		}
		out = append(out, utf8Seed{p, im.Name(), data})
		formats[im.Name()] = true
	}
	if len(formats) < 20 {
		t.Fatalf("only %d formats have a fixture: %v", len(formats), formats)
	}
	return out
}

// stringBytes returns the offsets of the bytes inside JSON string literals
// (keys and values) of data, excluding escape sequences.
func stringBytes(data []byte) []int {
	var out []int
	in, esc := false, false
	for i, c := range data {
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case in:
			out = append(out, i)
		}
	}
	return out
}

func inject(data []byte, at int, bad byte) []byte {
	out := make([]byte, 0, len(data)+1)
	out = append(out, data[:at]...)
	out = append(out, bad)
	return append(out, data[at:]...)
}

// TestInvalidUTF8KeepsFile inserts an invalid UTF-8 byte (0x8D, a lone
// continuation byte, as in issue 19's repro) at up to 60 evenly spread
// places inside the strings of every fixture of every format, and checks
// that the file still imports (Parse returns no error; MemSink validates
// that every stored text is valid UTF-8), with no run silently gone.
// (Where an importer decodes a string with encoding/json, the decoder
// already turns the byte into U+FFFD; where it keeps raw bytes, the
// boundary repairs and counts it: TestStoreKeepsInvalidUTF8 checks both.)
func TestInvalidUTF8KeepsFile(t *testing.T) {
	for _, s := range utf8Seeds(t) {
		clean, err := ingest.Parse(context.Background(), s.format, s.path, s.data, nil)
		if err != nil {
			continue // a malformed fixture (e.g. testdata/codex/malformed.jsonl with --strict cases) says nothing here
		}
		pos := stringBytes(s.data)
		if len(pos) == 0 {
			continue
		}
		step := max(1, len(pos)/60)
		for k := 0; k < len(pos); k += step {
			data := inject(s.data, pos[k], 0x8D)
			m, err := ingest.Parse(context.Background(), s.format, s.path, data, nil)
			if err != nil {
				t.Errorf("%s (%s), 0x8D at byte %d: file lost: %v", s.path, s.format, pos[k], err)
				continue
			}
			if len(m.Sources) != 1 {
				t.Errorf("%s: 0x8D at byte %d: %d sources", s.path, pos[k], len(m.Sources))
				continue
			}
			if len(clean.Runs) > 0 && len(m.Runs) == 0 && len(m.Rejects) == 0 {
				t.Errorf("%s: 0x8D at byte %d: all %d runs gone without a reject", s.path, pos[k], len(clean.Runs))
			}
		}
	}
}

// FuzzInvalidUTF8 is TestInvalidUTF8KeepsFile under the fuzzer: which
// fixture, where among its string bytes, and which invalid byte (or bytes)
// are the fuzzer's; the file must still import.
func FuzzInvalidUTF8(f *testing.F) {
	seeds := utf8Seeds(f)
	for i := range seeds {
		f.Add(uint16(i), uint32(7*i), []byte{0x8D})
	}
	f.Add(uint16(0), uint32(0), []byte{0xC0, 0xAF})
	f.Add(uint16(1), uint32(3), []byte{0xFF, 0xFE, 0xED})
	f.Fuzz(func(t *testing.T, which uint16, at uint32, bad []byte) {
		s := seeds[int(which)%len(seeds)]
		pos := stringBytes(s.data)
		if len(pos) == 0 || len(bad) == 0 || len(bad) > 8 {
			return
		}
		if _, err := ingest.Parse(context.Background(), s.format, s.path, s.data, nil); err != nil {
			return
		}
		// keep the JSON structure: no quote, backslash or control byte
		bad = bytes.Map(func(r rune) rune {
			if r == '"' || r == '\\' || r < 0x20 {
				return 0x8D
			}
			return r
		}, bad)
		p := pos[int(at)%len(pos)]
		data := append(append(append([]byte{}, s.data[:p]...), bad...), s.data[p:]...)
		if _, err := ingest.Parse(context.Background(), s.format, s.path, data, nil); err != nil {
			t.Fatalf("%s (%s), %x at byte %d: file lost: %v", s.path, s.format, bad, p, err)
		}
	})
}
