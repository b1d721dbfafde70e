package schema_test

import (
	"strings"
	"testing"

	"github.com/trajmine/trajmine/schema"
)

func TestParseTag(t *testing.T) {
	for _, tc := range []struct {
		in, key, value, err string
	}{
		{"dtoc=on", "dtoc", "on", ""},
		{"batch.v2=after fix=yes", "batch.v2", "after fix=yes", ""},
		{"dtoc", "", "", "want KEY=VALUE"},
		{"=on", "", "", "want KEY=VALUE"},
		{"dtoc=", "", "", "want KEY=VALUE"},
		{"dt oc=on", "", "", "letters, digits"},
		{"k=a\nb", "", "", "one line"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := schema.ParseTag(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got.Key != tc.key || got.Value != tc.value {
				t.Errorf("got %+v, %v", got, err)
			}
		})
	}
}

// FuzzParseTag: never a panic; a parsed tag has a key and a one-line value.
func FuzzParseTag(f *testing.F) {
	for _, s := range []string{"dtoc=on", "a=b=c", "=", "k=\n", "ключ=v"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tag, err := schema.ParseTag(s)
		if err != nil {
			return
		}
		if tag.Key == "" || tag.Value == "" || strings.ContainsAny(tag.Value, "\r\n") || tag.Key+"="+tag.Value != s {
			t.Fatalf("ParseTag(%q) = %+v", s, tag)
		}
	})
}
