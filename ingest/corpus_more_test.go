package ingest_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
)

// corpusMoreDir returns ../shared/corpus-more (next to the shared corpus).
func corpusMoreDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(testutil.CorpusDir(t)), "corpus-more")
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Skipf("corpus-more not found at %s", dir)
	}
	return dir
}

// siblingSuffixes are the files of a corpus-more folder that another file's
// importer reads as a sibling: auto-detection must pick nothing for them
// (the grok-build anchor is chat_history.jsonl, mistral-vibe's is
// messages.jsonl).
var siblingSuffixes = map[string][]string{
	"grok-build":   {"summary.json", "signals.json"},
	"mistral-vibe": {"meta.json"},
}

// corpusFile is one file of either corpus with the format its folder
// belongs to ("" for a sibling read by another file's importer).
type corpusFile struct {
	folder, path, want string
}

// allCorpusFiles lists every file of ../shared/corpus and
// ../shared/corpus-more with its folder's format (from CorpusFolders,
// where corpus-more folders are listed as "corpus-more/<folder>").
func allCorpusFiles(t *testing.T) []corpusFile {
	t.Helper()
	owner := map[string]string{}
	for _, im := range ingest.Importers() {
		for _, dir := range ingest.CorpusFolders(im.Name()) {
			owner[dir] = im.Name()
		}
	}
	var out []corpusFile
	for _, root := range []struct{ dir, prefix string }{{testutil.CorpusDir(t), ""}, {corpusMoreDir(t), "corpus-more/"}} {
		dirs, err := os.ReadDir(root.dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dirs {
			if !d.IsDir() || d.Name() == "licenses" {
				continue
			}
			folder := root.prefix + d.Name()
			if owner[folder] == "" {
				t.Errorf("folder %s: no importer lists it in CorpusFolders", folder)
				continue
			}
			files, _ := filepath.Glob(filepath.Join(root.dir, d.Name(), "*"))
			for _, f := range files {
				want := owner[folder]
				for _, s := range siblingSuffixes[d.Name()] {
					if root.prefix != "" && strings.HasSuffix(f, s) {
						want = ""
					}
				}
				out = append(out, corpusFile{folder, f, want})
			}
		}
	}
	return out
}

// TestCorpusMoreFoldersListed checks that the corpus-more folders listed
// in CorpusFolders exist.
func TestCorpusMoreFoldersListed(t *testing.T) {
	root := filepath.Dir(corpusMoreDir(t))
	for _, im := range ingest.Importers() {
		for _, dir := range ingest.CorpusFolders(im.Name()) {
			if !strings.HasPrefix(dir, "corpus-more/") {
				continue
			}
			if st, err := os.Stat(filepath.Join(root, dir)); err != nil || !st.IsDir() {
				t.Errorf("%s: corpus folder %s missing", im.Name(), dir)
			}
		}
	}
}

// TestNoForeignClaims checks detection over every file of both corpora:
// auto-detection picks the folder's own format (nothing for a sibling file,
// see siblingSuffixes), and no importer other than the folder's own, generic
// ones included, recognises the file.
func TestNoForeignClaims(t *testing.T) {
	for _, cf := range allCorpusFiles(t) {
		data, err := os.ReadFile(cf.path)
		if err != nil {
			t.Fatal(err)
		}
		head := data[:min(len(data), ingest.HeadSize)]
		name := cf.folder + "/" + filepath.Base(cf.path)
		got := ""
		im, err := ingest.DetectFormat(cf.path, head)
		if im != nil {
			got = im.Name()
		}
		if got != cf.want {
			t.Errorf("%s: detected %q (%v), want %q", name, got, err, cf.want)
		}
		var foreign []string
		for _, c := range ingest.Candidates(cf.path, head) {
			if c.Name() != cf.want {
				foreign = append(foreign, c.Name())
			}
		}
		sort.Strings(foreign)
		if len(foreign) > 0 {
			t.Errorf("%s (%s): also recognised by %s", name, orNone(cf.want), strings.Join(foreign, ", "))
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "a sibling file"
	}
	return s
}

// TestCorpusMoreGolden is TestCorpusGolden over ../shared/corpus-more:
// a summary per file in testdata/corpus-more/<folder>/<file>.golden.
// Regenerate with go test ./ingest -run TestCorpusMoreGolden -update.
func TestCorpusMoreGolden(t *testing.T) {
	root := corpusMoreDir(t)
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "licenses" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, d.Name(), "*"))
		for _, f := range files {
			t.Run(d.Name()+"/"+filepath.Base(f), func(t *testing.T) {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				got := corpusSummary(t, f, data)
				if strings.HasPrefix(got, "format: none") {
					got = "format: none\n" // the list of formats tried is not part of the golden
				}
				testutil.Golden(t, got, filepath.Join("testdata", "corpus-more", d.Name(), filepath.Base(f)+".golden"))
			})
		}
	}
}
