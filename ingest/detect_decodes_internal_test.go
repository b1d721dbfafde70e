package ingest

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
	"github.com/trajmine/trajmine/internal/testutil"
)

// unmarshalDecodes is what every detector tested before lineDecodes: that
// json.Unmarshal of the line returns nil (its error explained, then
// dropped).
func unmarshalDecodes(line []byte, v any) bool { return json.Unmarshal(line, v) == nil }

// detectClaims is what detection says of a head: every candidate, in
// order, and DetectFormat's pick or its error.
func detectClaims(name string, head []byte) string {
	var b strings.Builder
	for _, im := range Candidates(name, head) {
		b.WriteString(im.Name() + " ")
	}
	b.WriteString("→ ")
	im, err := DetectFormat(name, head)
	switch {
	case err != nil:
		b.WriteString("error: " + err.Error())
	default:
		b.WriteString(im.Name())
	}
	return b.String()
}

// detectHeads are the heads detection is tried on for one file: the head
// ingest reads, the same cut inside its last line (a line cut by the head)
// and cut at a third of it, and the head from its second line on (a first
// line cut off in front).
func detectHeads(data []byte) [][]byte {
	head := data[:min(len(data), HeadSize)]
	heads := [][]byte{head}
	if len(head) > 2 {
		heads = append(heads, head[:len(head)-2], head[:len(head)/3])
	}
	if i := bytes.IndexByte(head, '\n'); i > 0 && i < len(head)-1 {
		heads = append(heads, head[i/2:])
	}
	return heads
}

// compareDecodes runs detection on every head of every file under root
// with lineDecodes and with unmarshalDecodes, and fails on any claim that
// differs. It returns how many heads it judged and how many line decodes
// failed (the lines whose error json.Decodes does not explain).
func compareDecodes(t *testing.T, root string) (heads, failed int) {
	t.Helper()
	counting := func(decodes func([]byte, any) bool) func([]byte, any) bool {
		return func(line []byte, v any) bool {
			ok := decodes(line, v)
			if !ok {
				failed++
			}
			return ok
		}
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, head := range detectHeads(data) {
			lineDecodes = counting(json.Decodes)
			fast := detectClaims(path, head)
			lineDecodes = unmarshalDecodes
			slow := detectClaims(path, head)
			lineDecodes = json.Decodes
			if fast != slow {
				t.Errorf("%s (head of %d bytes): with json.Decodes %q, with json.Unmarshal %q", path, len(head), fast, slow)
			}
			heads++
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return heads, failed
}

// TestDetectDecodesClaims shows that detection's line decodes through
// json.Decodes (no error explained) claim exactly what json.Unmarshal's nil
// test claimed, on every fixture under testdata and every file of the shared
// corpora, each head whole, cut inside its last line, cut at a third, and
// without the front of its first line.
func TestDetectDecodesClaims(t *testing.T) {
	defer func() { lineDecodes = json.Decodes }()
	roots := []struct {
		name string
		root func(t *testing.T) string
	}{
		{"testdata", func(*testing.T) string { return "testdata" }},
		{"corpus", func(t *testing.T) string { return testutil.CorpusDir(t) }},
		{"corpus-more", func(t *testing.T) string { return testutil.SharedDir(t, "corpus-more") }},
		{"corpus-outcomes", func(t *testing.T) string { return testutil.SharedDir(t, "corpus-outcomes") }},
	}
	for _, r := range roots {
		t.Run(r.name, func(t *testing.T) {
			heads, failed := compareDecodes(t, r.root(t))
			// every root holds JSONL files longer than a third of a
			// head's last line, so cut heads have lines that fail
			if heads == 0 || failed == 0 {
				t.Fatalf("%d heads judged, %d line decodes failed: the comparison did not run through lineDecodes", heads, failed)
			}
			t.Logf("%d heads, %d failed line decodes", heads, failed)
		})
	}
}

// BenchmarkDetectFormat is DetectFormat on the head of every file of the
// shared corpus, or of every file under $TRAJMINE_BENCH_DETECT_DIR when it
// is set (issue 33: the 584 Claude Code files of the many-file ingest).
func BenchmarkDetectFormat(b *testing.B) {
	root := os.Getenv("TRAJMINE_BENCH_DETECT_DIR")
	if root == "" {
		root = testutil.CorpusDir(b)
	}
	var names []string
	var heads [][]byte
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		names = append(names, path)
		heads = append(heads, data[:min(len(data), HeadSize)])
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		for i, head := range heads {
			_, _ = DetectFormat(names[i], head)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(heads)), "µs/file")
}
