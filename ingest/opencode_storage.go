package ingest

import (
	"cmp"
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
		return f.Reject(gaiSyntaxLine(data, err), "invalid session file: "+clipErr(err), data)
	}
	id := cmp.Or(info.ID, opcFileID(f.Path()))
	s := &opcSession{id: id, parentID: info.ParentID, msgs: map[string]*opcMsg{}}
	msgDir, partDir := opcStorageRoot(f.Path(), id)
	var rec int64 // record index over the files read
	err := opcEachFile(f, msgDir, "message", &rec, func(mp string, mi *opcInfo) error {
		mi.ID = cmp.Or(mi.ID, opcFileID(mp))
		m := s.msg(mi.ID)
		m.info, m.line = mi, rec
		return opcEachFile(f, partDir(mi.ID), "part", &rec, func(pp string, part *opcPart) error {
			part.ID = cmp.Or(part.ID, opcFileID(pp))
			m.part(*part, rec)
			return nil
		})
	})
	if err != nil {
		return err
	}
	return opcConvert(f, s)
}

// opcEachFile decodes each storage file of dir (opcJSONFiles; what names
// their kind) into a fresh T as the next record, *rec counting the files
// read, and calls fn with the file's path and value. A file that does not
// decode has been rejected (opcReadFile) and fn does not see it.
func opcEachFile[T any](f *File, dir, what string, rec *int64, fn func(path string, v *T) error) error {
	for _, p := range opcJSONFiles(dir) {
		if f.Ctx != nil {
			if err := f.Ctx.Err(); err != nil {
				return err
			}
		}
		*rec++
		var v T
		if ok, err := opcReadFile(f, p, what, *rec, &v); !ok {
			if err != nil {
				return err
			}
			continue
		}
		if err := fn(p, &v); err != nil {
			return err
		}
	}
	return nil
}

// opcReadFile decodes the storage file path (a message or part file, as what
// says) into v, as record rec. ok is false when it does not decode: it has
// then been rejected ("invalid <what> file <name>: <error>").
func opcReadFile(f *File, path, what string, rec int64, v any) (ok bool, err error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	raw = f.repairJSON(trimBOM(raw))
	if err := json.Unmarshal(raw, v); err != nil {
		return false, f.Reject(rec, "invalid "+what+" file "+filepath.Base(path)+": "+clipErr(err), raw)
	}
	return true, nil
}

// opcFileID is the id of a storage file's record that has none: the file's
// name without .json.
func opcFileID(path string) string { return strings.TrimSuffix(filepath.Base(path), ".json") }
