package dashboards

import (
	"regexp"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/internal/glossary"
	"github.com/trajmine/trajmine/internal/testutil"
)

// renderPage writes d with the stubbed library and the given glossary (nil:
// glossary.Terms).
func renderPage(t *testing.T, d *Data, terms []glossary.Term) string {
	t.Helper()
	var b strings.Builder
	if err := Write(&b, d, &Options{noLibrary: true, terms: terms}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var termsSectionRE = regexp.MustCompile(`(?s)<section id="terms">.*?</section>`)

func TestTermID(t *testing.T) {
	tests := []struct{ name, want string }{
		{"as-logged", "term-as-logged"},
		{"cost × (cost ratio)", "term-cost-cost-ratio"},
		{"tokens × (token ratio)", "term-tokens-token-ratio"},
		{"CI", "term-ci"},
		{"saved, lost", "term-saved-lost"},
		{"  window what-if ", "term-window-what-if"},
		{"Σ", "term-σ"},
	}
	for _, tc := range tests {
		if got := TermID(tc.name); got != tc.want {
			t.Errorf("TermID(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestTermsSection: the page's Terms section is glossary.Terms as a
// definition list (golden), linked from the nav; every term has its own
// anchor, and every "?" link of a table header points at one of them,
// with the term's definition as the header's tooltip.
func TestTermsSection(t *testing.T) {
	page := renderPage(t, &Data{Title: "terms"}, nil)
	sec := termsSectionRE.FindString(page)
	if sec == "" {
		t.Fatal("no Terms section")
	}
	testutil.Golden(t, sec+"\n", "testdata/terms-section.golden")
	if !strings.Contains(page, `<a href="#terms">Terms</a>`) {
		t.Error("the nav does not link to the Terms section")
	}
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`<dt id="([^"]+)">`).FindAllStringSubmatch(sec, -1) {
		if ids[m[1]] {
			t.Errorf("anchor %s twice", m[1])
		}
		ids[m[1]] = true
	}
	if len(ids) != len(glossary.Terms) {
		t.Errorf("%d terms in the page, %d in the glossary", len(ids), len(glossary.Terms))
	}
	// the policy table's headers, by hand: the term each links to
	heads := regexp.MustCompile(`(?s)<table id="policy-table">\s*<thead>(.*?)</thead>`).FindStringSubmatch(page)
	if heads == nil {
		t.Fatal("no policy table")
	}
	links := regexp.MustCompile(`<th title="([^"]*)">([^<]*) <a class="term" href="#([^"]+)"`).FindAllStringSubmatch(heads[1], -1)
	want := []string{"policy=term-policy", "cost ×=term-cost-cost-ratio", "cost 95% CI=term-ci", "$ saved=term-cached-cost", "tokens ×=term-tokens-token-ratio",
		"tokens 95% CI=term-ci", "saved=term-saved-lost", "lost=term-saved-lost", "reinv/100 calls=term-re-invocation", "overflow=term-overflow", "boundary=term-reading-boundary"}
	var got []string
	for _, l := range links {
		got = append(got, l[2]+"="+l[3])
		if !ids[l[3]] {
			t.Errorf("header %q links to #%s, which is no term", l[2], l[3])
		}
		if l[1] == "" {
			t.Errorf("header %q has no definition", l[2])
		}
	}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("policy table headers:\n got %q\nwant %q", got, want)
	}
	// every link to a term, anywhere in the page, has its anchor
	for _, m := range regexp.MustCompile(`href="#(term-[^"]+)"`).FindAllStringSubmatch(page, -1) {
		if !ids[m[1]] {
			t.Errorf("a link to #%s, which is no term", m[1])
		}
	}
}

// TestTermsEscaped: a glossary's text reaches the page escaped, in the
// definition list and in a header's tooltip attribute; and a header naming
// a term the glossary lacks fails the rendering.
func TestTermsEscaped(t *testing.T) {
	terms := []glossary.Term{
		{Name: "policy", Definition: `A rule"><script>alert(1)</script> & <b>more</b>.`},
		{Name: `<img src=x onerror=alert(2)>`, Definition: "Hostile."},
	}
	for _, g := range glossary.Terms {
		if g.Name != "policy" {
			terms = append(terms, glossary.Term{Name: g.Name, Definition: "x."})
		}
	}
	page := renderPage(t, &Data{Title: "escaped"}, terms)
	for _, bad := range []string{"<script>alert(1)", "<img src=x", "<b>more", `A rule">`} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	for _, want := range []string{
		`<dd>A rule&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;more&lt;/b&gt;.</dd>`,
		`<dt id="term-img-src-x-onerror-alert-2">&lt;img src=x onerror=alert(2)&gt;</dt>`,
		`<th title="A rule&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;more&lt;/b&gt;.">policy <a class="term"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not hold %s", want)
		}
	}
	var b strings.Builder
	if err := Write(&b, &Data{}, &Options{noLibrary: true, terms: terms[:1]}); err == nil || !strings.Contains(err.Error(), `no glossary term "`) {
		t.Errorf("a header naming a missing term: %v", err)
	}
}
