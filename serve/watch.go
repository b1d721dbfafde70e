package serve

import (
	"os"
	"slices"
	"time"

	"github.com/trajmine/trajmine/ingest"
)

// fileState is what the watcher compares of a log file: its size and
// modification time, and those of its SQLite write-ahead log (FILE-wal)
// when it has one: an agent's SQLite store (a standard place) takes new
// sessions in its -wal until a checkpoint, the file itself unchanged.
type fileState struct {
	size, walSize int64
	mod, walMod   time.Time
}

// snapshot is every log file under paths (ingest.Expand's walk: the files
// an import would consider) with its state (fileState). A path
// that does not exist (yet) is skipped, as is a file gone between the walk
// and its stat.
func snapshot(paths []string) map[string]fileState {
	out := map[string]fileState{}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		files, err := ingest.Expand([]string{p}, nil)
		if err != nil {
			continue
		}
		for _, f := range files {
			st, err := os.Stat(f)
			if err != nil || !st.Mode().IsRegular() {
				continue
			}
			fs := fileState{size: st.Size(), mod: st.ModTime()}
			if w, err := os.Stat(f + "-wal"); err == nil {
				fs.walSize, fs.walMod = w.Size(), w.ModTime()
			}
			out[f] = fs
		}
	}
	return out
}

// changed lists, sorted, the files of cur that prev lacks or whose state
// differs from prev's. A file gone from cur is not
// listed: its runs stay in the store, as trajmine ingest leaves them.
func changed(prev, cur map[string]fileState) []string {
	var out []string
	for f, s := range cur {
		if p, ok := prev[f]; !ok || p.size != s.size || !p.mod.Equal(s.mod) || p.walSize != s.walSize || !p.walMod.Equal(s.walMod) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}
