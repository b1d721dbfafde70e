package schema

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Tags are conditions a user gives runs at import (trajmine ingest --tag
// KEY=VALUE PATH...: dtoc=on, seed=3, batch=after-fix), for trajmine
// compare to group them by (compare --by tag:KEY). A tag belongs to a path
// as ingest was given it, a file or a folder: every run whose log is that
// file or under that folder carries it, runs imported later there too, and
// a changed file's new runs keep it. Tagging a path again with a key
// replaces that key's value. A run under two tagged paths with one key
// takes the value of the nearer (longer) path.
//
// The table is not in Tables: ingest creates it when a tag is first given
// (store.SetTags), and a store without it has no tags. A lake holds none
// (ingest --tag --lake is refused).

// TableTags is the tags table's name.
const TableTags = "tags"

// Tag is one tags row.
type Tag struct {
	Path  string `json:"path"`
	Key   string `json:"key"`
	Value string `json:"value"`
}

// TagsTable describes the tags table.
var TagsTable = Table{Name: TableTags, Doc: "tags given at import (trajmine ingest --tag KEY=VALUE): every run whose source_path is path or under it carries key = value", Columns: []Column{
	col("path", Varchar, "a file or folder as ingest was given it, cleaned (filepath.Clean)"),
	col("key", Varchar, "the tag's key"),
	col("value", Varchar, "its value"),
}}

// Values returns t's fields in TagsTable column order.
func (t *Tag) Values() []any { return []any{t.Path, t.Key, t.Value} }

// ParseTag parses KEY=VALUE (trajmine ingest --tag): a key of letters,
// digits and "_-." and a non-empty value without line breaks.
func ParseTag(s string) (Tag, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" {
		return Tag{}, fmt.Errorf("tag %q: want KEY=VALUE (e.g. dtoc=on)", s)
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return Tag{}, fmt.Errorf("tag %q: the key may hold letters, digits and _-. only", s)
		}
	}
	if strings.ContainsAny(v, "\n\r") || !utf8.ValidString(v) {
		return Tag{}, fmt.Errorf("tag %q: the value must be one line of UTF-8", s)
	}
	return Tag{Key: k, Value: v}, nil
}
