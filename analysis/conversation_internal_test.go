package analysis

import (
	"strings"
	"testing"

	"github.com/trajmine/trajmine/redact"
)

// TestShownTextMemo: with a memo, a text is redacted once and its result
// reused (a planted entry is what comes back), while every showing of a
// secret is counted; without one, each call redacts.
func TestShownTextMemo(t *testing.T) {
	red, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	pat := "ghp_" + strings.Repeat("aB3dE6gH9j", 3) + "kLmNoP"
	text := "export TOKEN=" + pat
	memo := newTextMemo()
	first, cut := shownText(red, text, 0, memo)
	if first != "export TOKEN=[REDACTED:github-pat]" || cut || red.Count() != 1 {
		t.Fatalf("first: %q (cut %v), %d counted", first, cut, red.Count())
	}
	again, _ := shownText(red, text, 0, memo)
	if again != first || red.Count() != 2 {
		t.Errorf("again: %q, %d counted; want the same text, 2 counted", again, red.Count())
	}
	memo.put("planted", memoVal{out: "from the memo", n: 3})
	if got, _ := shownText(red, "planted", 0, memo); got != "from the memo" || red.Count() != 5 {
		t.Errorf("a memo entry is not used: %q, %d counted", got, red.Count())
	}
	if got, _ := shownText(red, "planted", 0, nil); got != "planted" {
		t.Errorf("without a memo: %q", got)
	}
	// a cut text's entry is its cut result
	long := strings.Repeat("x", 30) + pat
	c1, cut1 := shownText(red, long, 20, memo)
	c2, cut2 := shownText(red, long, 20, memo)
	if c1 != strings.Repeat("x", 20) || !cut1 || c2 != c1 || !cut2 {
		t.Errorf("cut: %q %v, then %q %v", c1, cut1, c2, cut2)
	}
}
