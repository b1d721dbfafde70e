package ingest

import (
	"fmt"
	"sort"
	"strings"

	"github.com/trajmine/trajmine/schema"
)

// unreadTypes counts the records of a file whose type the importer does not
// read (a type new to it, or one it knows but has nothing to store for),
// so that each type is named once per file instead of rejected line by line
// (issue 30.1): flush records one reject per type, at the line of its first
// record, "N records of type "x" not read".
type unreadTypes struct {
	byType map[string]*unreadType
}

type unreadType struct {
	n     int64
	first int64  // line of the first record
	raw   []byte // the first record, cut to schema.MaxRejectRaw
}

// add counts one record of type typ at line (raw: the record).
func (u *unreadTypes) add(line int64, typ string, raw []byte) {
	if u.byType == nil {
		u.byType = map[string]*unreadType{}
	}
	if t, ok := u.byType[typ]; ok {
		t.n++
		return
	}
	u.byType[strings.Clone(typ)] = &unreadType{n: 1, first: line, raw: append([]byte(nil), raw[:min(len(raw), schema.MaxRejectRaw)]...)}
}

// flush records one reject per type counted, in the order of their first
// lines (in strict mode the first one's error is returned).
func (u *unreadTypes) flush(f *File) error {
	types := make([]string, 0, len(u.byType))
	for typ := range u.byType {
		types = append(types, typ)
	}
	sort.Slice(types, func(i, j int) bool { return u.byType[types[i]].first < u.byType[types[j]].first })
	for _, typ := range types {
		t := u.byType[typ]
		if err := f.Reject(t.first, unreadReason(t.n, typ), t.raw); err != nil {
			return err
		}
	}
	u.byType = nil
	return nil
}

// unreadReason is the reject reason for n records of type typ.
func unreadReason(n int64, typ string) string {
	noun := "records"
	if n == 1 {
		noun = "record"
	}
	return fmt.Sprintf("%d %s of type %s not read (the first at this line)", n, noun, clipQuote(typ))
}
