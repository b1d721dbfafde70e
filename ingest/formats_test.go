package ingest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
)

// TestCorpusFoldersListed checks that every importer states its corpus
// folders, that they exist, and that every corpus folder has an importer.
func TestCorpusFoldersListed(t *testing.T) {
	root := testutil.CorpusDir(t)
	covered := map[string]bool{}
	for _, im := range ingest.Importers() {
		for _, dir := range ingest.CorpusFolders(im.Name()) {
			if strings.HasPrefix(dir, "corpus-more/") || strings.HasPrefix(dir, "corpus-outcomes/") {
				continue // TestCorpusMoreFoldersListed, TestOutcomeCorpusDetection
			}
			if st, err := os.Stat(filepath.Join(root, dir)); err != nil || !st.IsDir() {
				t.Errorf("%s: corpus folder %s missing", im.Name(), dir)
			}
			covered[dir] = true
		}
	}
	dirs, _ := os.ReadDir(root)
	for _, d := range dirs {
		if d.IsDir() && d.Name() != "licenses" && !covered[d.Name()] {
			t.Errorf("corpus folder %s has no importer listed", d.Name())
		}
	}
}

// TestCorpusDetection checks auto-detection on every corpus file: exactly one
// specific importer recognises it (no ambiguity, no overlap), and it is the
// importer that lists the file's folder in its corpus folders.
func TestCorpusDetection(t *testing.T) {
	root := testutil.CorpusDir(t)
	owner := map[string]string{}
	for _, im := range ingest.Importers() {
		for _, dir := range ingest.CorpusFolders(im.Name()) {
			owner[dir] = im.Name()
		}
	}
	dirs, _ := os.ReadDir(root)
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "licenses" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, d.Name(), "*"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			head := data[:min(len(data), ingest.HeadSize)]
			var names []string
			for _, im := range ingest.Candidates(f, head) {
				names = append(names, im.Name())
			}
			im, err := ingest.DetectFormat(f, head)
			if err != nil || im.Name() != owner[d.Name()] {
				t.Errorf("%s/%s: detected %v (%v), candidates %v; want %s", d.Name(), filepath.Base(f), im, err, names, owner[d.Name()])
				continue
			}
			for _, n := range names {
				if n != im.Name() && !isGeneric(n) {
					t.Errorf("%s/%s: also claimed by %s", d.Name(), filepath.Base(f), n)
				}
			}
		}
	}
}

func isGeneric(name string) bool { return name == "openai-messages" || name == "anthropic-messages" }
