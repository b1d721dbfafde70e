// Package testutil holds test helpers shared across trajmine's packages:
// golden-file comparison with -update, and locating the shared corpus of real
// recorded trajectories. It is a leaf and is imported only by tests.
package testutil

import (
	"crypto/sha256"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Update is set by `go test ./... -update` and makes Golden rewrite files.
var Update = flag.Bool("update", false, "rewrite golden files")

// Golden compares got with the file at path, rewriting it under -update.
// On mismatch it reports a diff.
func Golden(t testing.TB, got, path string) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden %s: %v (run go test -update to create it)", path, err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s\n(run go test -update to accept)", path, diff)
	}
}

// RepoRoot returns the repository root (the directory holding go.mod).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// CorpusDir returns the shared corpus of real trajectories: $TRAJMINE_CORPUS,
// else ../shared/corpus beside the repository. When it is absent the test is
// skipped with a message, except under CI=true, where its absence fails.
func CorpusDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("TRAJMINE_CORPUS")
	if dir == "" {
		dir = filepath.Join(RepoRoot(), "..", "shared", "corpus")
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		if strings.EqualFold(os.Getenv("CI"), "true") {
			t.Fatalf("shared corpus not found at %s (set TRAJMINE_CORPUS); required under CI=true", dir)
		}
		t.Skipf("shared corpus not found at %s (set TRAJMINE_CORPUS to run corpus tests)", dir)
	}
	return dir
}

// SharedDir returns the folder name beside the shared corpus (corpus-more,
// corpus-outcomes): skipped with a message when it is absent, except under
// CI=true, where its absence fails (CI runs with all of shared/ beside it).
func SharedDir(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(CorpusDir(t)), name)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		if strings.EqualFold(os.Getenv("CI"), "true") {
			t.Fatalf("%s not found at %s; required under CI=true", name, dir)
		}
		t.Skipf("%s not found at %s", name, dir)
	}
	return dir
}

// Corpus returns the path of a file or folder inside the shared corpus.
func Corpus(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(CorpusDir(t), rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("corpus entry %s: %v", rel, err)
	}
	return p
}

// VersionGolden pins got, the answers of code whose results are stored and
// read back by version (actions.DefaultVersion, counterfactual.UsesVersion),
// to that version: the file at path holds "version N" and the answers. When
// the answers change while the version is the file's, the test fails and
// -update does not help: the version must be bumped (a reader would
// otherwise trust results stored by the older code); for a new version,
// -update rewrites the file. what names the version constant.
func VersionGolden(t testing.TB, path, what string, version int, got string) {
	t.Helper()
	head := "version " + strconv.Itoa(version) + "\n"
	got = head + got
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	oldHead, _, _ := strings.Cut(string(old), "\n")
	switch {
	case string(old) == got:
	case oldHead+"\n" == head:
		t.Errorf("the answers changed but %s is still %d: bump it (results stored by the older code must not be read back), then run with -update\n%s",
			what, version, cmp.Diff(string(old), got))
	case *Update:
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	default:
		t.Errorf("%s is for %q, %s is %d: run with -update", path, oldHead, what, version)
	}
}

// DirSums maps each file under dir to its sha256: compare two calls to
// see that nothing under dir changed, was added or was removed.
func DirSums(t testing.TB, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[p] = sha256.Sum256(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
