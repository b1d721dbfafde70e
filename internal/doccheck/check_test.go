package doccheck_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/internal/doccheck"
	"github.com/trajmine/trajmine/internal/testutil"
)

// TestModule: no doc comment of trajmine names an identifier that does
// not exist.
func TestModule(t *testing.T) {
	m, err := doccheck.Load(testutil.RepoRoot())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Check() {
		t.Error(p)
	}
}

// TestPlanted checks the planted module of testdata/mod (its README):
// the names that do not exist are reported, each once with its line (by
// hand from stale/stale.go), and those that exist, are data or are not
// checkable are not.
func TestPlanted(t *testing.T) {
	m, err := doccheck.Load(filepath.Join("testdata", "mod"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range m.Check() {
		got = append(got, fmt.Sprintf("%s:%d %s %s", p.Pos.Filename, p.Pos.Line, p.Word.Text, p.Word.Kind))
	}
	want := []string{
		"stale/stale.go:3 reportData camel-case",
		"stale/stale.go:12 runWork.replayTrace dotted",
		"stale/stale.go:15 other.Missing dotted",
		"stale/stale.go:22 Gone doc link",
		"stale/stale.go:22 RunWork.Replay dotted",
		"stale/stale.go:25 Gone2 backquoted",
		"stale/stale.go:28 Wrapped.Nope dotted",
		"stale/stale.go:40 reportSample camel-case",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestLoadErrors: a directory without go.mod, and a file that does not
// parse, are errors naming the file.
func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := doccheck.Load(dir); err == nil {
		t.Error("no go.mod: no error")
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte("package x\nfunc (\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := doccheck.Load(dir)
	if err == nil || !strings.Contains(err.Error(), "x.go:") {
		t.Errorf("a file that does not parse: %v", err)
	}
}
