package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// opencode's storage layout (storage/session, message and part JSON files):
// a session file is imported with the messages and parts stored beside it.

// opcStorageRoot finds, from a session file's path, the directories of the
// session's message files and of a message's part files.
func opcStorageRoot(path, sid string) (msgDir string, partDir func(mid string) string) {
	p := filepath.ToSlash(path)
	i := strings.LastIndex(p, "/storage/session/")
	var root string
	switch {
	case i >= 0:
		root = p[:i] + "/storage/"
	case strings.HasPrefix(p, "storage/session/"):
		root = "storage/"
	default:
		return "", nil
	}
	rest := p[len(root)+len("session/"):]
	if strings.HasPrefix(rest, "info/") { // the older layout: session/{info,message,part}/…
		old := root + "session/"
		return filepath.FromSlash(old + "message/" + sid), func(mid string) string {
			return filepath.FromSlash(old + "part/" + sid + "/" + mid)
		}
	}
	return filepath.FromSlash(root + "message/" + sid), func(mid string) string {
		return filepath.FromSlash(root + "part/" + mid)
	}
}

// opcJSONFiles lists a directory's *.json files sorted by name (ids sort by
// creation time).
func opcJSONFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out
}

func opcImportStorage(f *File, data []byte) error {
	var info opcSessionInfo
	if err := json.Unmarshal(data, &info); err != nil {
		return f.Reject(gaiSyntaxLine(data, err), "invalid session file: "+err.Error(), data)
	}
	id := info.ID
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(f.Path()), ".json")
	}
	s := &opcSession{id: id, parentID: info.ParentID, msgs: map[string]*opcMsg{}}
	msgDir, partDir := opcStorageRoot(f.Path(), id)
	var rec int64 // record index over the files read
	for _, mp := range opcJSONFiles(msgDir) {
		if f.Ctx != nil {
			if err := f.Ctx.Err(); err != nil {
				return err
			}
		}
		rec++
		raw, err := os.ReadFile(mp)
		if err != nil {
			return fmt.Errorf("read %s: %w", mp, err)
		}
		var mi opcInfo
		if err := json.Unmarshal(raw, &mi); err != nil {
			if err := f.Reject(rec, "invalid message file "+filepath.Base(mp)+": "+err.Error(), raw); err != nil {
				return err
			}
			continue
		}
		if mi.ID == "" {
			mi.ID = strings.TrimSuffix(filepath.Base(mp), ".json")
		}
		m := s.msg(mi.ID)
		m.info, m.line = &mi, rec
		for _, pp := range opcJSONFiles(partDir(mi.ID)) {
			rec++
			raw, err := os.ReadFile(pp)
			if err != nil {
				return fmt.Errorf("read %s: %w", pp, err)
			}
			var part opcPart
			if err := json.Unmarshal(raw, &part); err != nil {
				if err := f.Reject(rec, "invalid part file "+filepath.Base(pp)+": "+err.Error(), raw); err != nil {
					return err
				}
				continue
			}
			if part.ID == "" {
				part.ID = strings.TrimSuffix(filepath.Base(pp), ".json")
			}
			m.part(part, rec)
		}
	}
	return opcConvert(f, s)
}
