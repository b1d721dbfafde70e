package dashboards

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/trajmine/trajmine/internal/glossary"
)

// The page's glossary: the Terms section lists internal/glossary.Terms
// (what trajmine help terms prints) as a definition list, each term with
// an anchor (TermID); a table header that names a term carries its
// definition as a tooltip and a link to it (the template's "th" and
// "termth").

// TermID is the anchor of a glossary term in the page: "term-" and the
// term's letters and digits, lower-cased, each other run of characters one
// "-" ("cost × (cost ratio)" → "term-cost-cost-ratio").
func TermID(name string) string {
	var b strings.Builder
	b.WriteString("term-")
	dash := false
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > len("term-") {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}

// termHead is a table header naming a glossary term: the header's text,
// the term's anchor and its definition.
type termHead struct {
	Label, ID, Definition string
}

// termTH is the template's termth: label is the header's text, name the
// term's name in terms; a name terms does not hold is an error (the page
// fails to render rather than link nowhere).
func termTH(terms []glossary.Term, label, name string) (termHead, error) {
	for _, t := range terms {
		if t.Name == name {
			return termHead{Label: label, ID: TermID(t.Name), Definition: t.Definition}, nil
		}
	}
	return termHead{}, fmt.Errorf("no glossary term %q", name)
}
