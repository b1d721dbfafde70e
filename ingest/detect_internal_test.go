package ingest

import (
	"errors"
	"io"
	"strings"
	"testing"
)

type fakeImporter struct {
	name string
	sig  string
}

func (f fakeImporter) Name() string                      { return f.name }
func (f fakeImporter) Describe() string                  { return "test importer" }
func (f fakeImporter) Detect(_ string, h []byte) bool    { return strings.Contains(string(h), f.sig) }
func (f fakeImporter) Import(_ *File, _ io.Reader) error { return nil }

// TestDetectFormat checks the detection rule: one specific importer wins,
// two specific ones are ambiguous (an error naming both), generic importers
// only pick what no specific one claims.
func TestDetectFormat(t *testing.T) {
	saved, savedPrio := registry, priority
	t.Cleanup(func() { registry, priority = saved, savedPrio })
	registry, priority = nil, map[string]int{}
	register(40, fakeImporter{"alpha", `"alpha"`})
	register(50, fakeImporter{"beta", `"beta"`})
	register(90, fakeImporter{"generic", `{`})
	tests := []struct {
		head, want string
		err        error
	}{
		{`{"alpha":1}`, "alpha", nil},
		{`{"beta":1}`, "beta", nil},
		{`{"other":1}`, "generic", nil},
		{`{"alpha":1,"beta":2}`, "", ErrAmbiguousFormat},
		{`plain text`, "", ErrUnknownFormat},
	}
	for _, tc := range tests {
		im, err := DetectFormat("f.json", []byte(tc.head))
		got := ""
		if im != nil {
			got = im.Name()
		}
		if got != tc.want || !errors.Is(err, tc.err) && !(err == nil && tc.err == nil) {
			t.Errorf("DetectFormat(%s) = %q, %v; want %q, %v", tc.head, got, err, tc.want, tc.err)
		}
		if tc.err == ErrAmbiguousFormat && (err == nil || !strings.Contains(err.Error(), "alpha, beta")) {
			t.Errorf("ambiguous error %v does not name the candidates", err)
		}
	}
}

func TestEveryImporterListsItsCorpusFolders(t *testing.T) {
	for _, im := range registry {
		if _, ok := corpusFolders[im.Name()]; !ok {
			t.Errorf("importer %s has no entry in corpusFolders (formats.go)", im.Name())
		}
	}
}

// TestAnyJSONL checks that anyJSONL claims a head when one of its first n
// records is accepted, passing over lines that do not decode.
func TestAnyJSONL(t *testing.T) {
	type rec struct {
		Type string `json:"type"`
	}
	isB := func(r *rec) bool { return r.Type == "b" }
	tests := []struct {
		head string
		n    int
		want bool
	}{
		{"{\"type\":\"a\"}\n{\"type\":\"b\"}\n", 2, true},
		{"{\"type\":\"a\"}\n{\"type\":\"b\"}\n", 1, false},
		{"not json\n\n{\"type\":\"b\"}\n", 2, true},
		{"{\"type\":\"a\"}\n{\"ty", 30, false},
	}
	for _, tc := range tests {
		if got := anyJSONL([]byte(tc.head), tc.n, isB); got != tc.want {
			t.Errorf("anyJSONL(%q, %d) = %v, want %v", tc.head, tc.n, got, tc.want)
		}
	}
}
