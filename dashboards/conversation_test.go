package dashboards_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/dashboards"
	"github.com/trajmine/trajmine/dashboards/browsertest"
)

func i64(v int64) *int64 { return &v }

// planted is a string in one tool output of run-3's conversation.
const planted = "PLANTED-needle-7f3a"

// conversation is run-3's conversation as analysis.Conversation would
// give it: a system prompt, a user message, calls with usage and cost (one
// unpriced), a tool call with arguments, outputs (one hostile, one cut at
// 500 characters, one with the planted string), reasoning, a
// manage_context disable with its fate on the output, a compaction with
// tokens before and after at no event.
func conversation() dashboards.Conversation {
	return dashboards.Conversation{RunID: "run-3", Events: 11, Limit: 500, Cut: 1,
		Calls: []dashboards.ConvCall{
			{Turn: 0, Model: "claude-sonnet-4", Input: 1200, Output: 50, CacheRead: 1000, CostUSD: f64(0.0123)},
			{Turn: 1, Model: "claude-sonnet-4", Input: 2400, Output: 80, CacheRead: 1100, CacheWrite: 200, Reasoning: 30, CostUSD: f64(0.0211)},
			{Turn: 2, Model: "local-" + xssScript, Input: 900, Output: 10},
		},
		Items: []dashboards.ConvItem{
			{Seq: 0, Turn: 0, Kind: "system", Role: "system", Text: "You are a coding agent.", Chars: 23, Tokens: 6},
			{Seq: 1, Turn: 0, Kind: "user", Role: "user", Text: "Fix the failing test " + xssScript, Chars: 50, Tokens: 12},
			{Seq: 2, Turn: 0, Kind: "tool_call", Tool: "bash", CallID: "c1", Target: "pytest -x", Args: `{"command":"pytest -x","timeout":60}`, Chars: 40, Tokens: 10},
			{Seq: 3, Turn: 1, Kind: "tool_result", Tool: "bash", CallID: "c1", Key: "bash_1", Target: "pytest -x", Text: "FAILED tests/test_a.py::test_x\n" + xssImg + "\n" + xssURL, Chars: 90, Tokens: 23, Error: true, Exit: i64(1),
				Fate: []dashboards.ConvOp{{Op: "disable", Seq: 8, Turn: 2, Key: "bash_1", Trigger: "manage_context"}}},
			{Seq: 4, Turn: 1, Kind: "reasoning", Text: "The test fails on an off-by-one.", Chars: 32, Tokens: 8},
			{Seq: 5, Turn: 1, Kind: "tool_call", Tool: "read_file", CallID: "c2", Target: "src/a.py", Args: `{"path":"src/a.py"}`, Chars: 30, Tokens: 8},
			{Seq: 6, Turn: 2, Kind: "tool_result", Tool: "read_file", CallID: "c2", Key: "read_file_1", Target: "src/a.py", Text: strings.Repeat("def f(): pass\n", 35) + "#", Chars: 2000, Tokens: 500, Cut: true},
			{Seq: 7, Turn: 2, Kind: "assistant", Text: "Found it; hiding the old output.", Chars: 32, Tokens: 8},
			{Seq: 8, Turn: 2, Kind: "tool_call", Tool: "manage_context", CallID: "c3", Args: `{"disable":["bash_1"]}`, Chars: 36, Tokens: 9,
				Ops: []dashboards.ConvOp{{Op: "disable", Seq: 8, Turn: 2, Key: "bash_1", Trigger: "manage_context"}}},
			{Seq: 9, Turn: 2, Kind: "context_op", Ops: []dashboards.ConvOp{{Op: "compaction", Seq: 9, Turn: 2, Before: i64(120000), After: i64(8000), Trigger: "auto"}}},
			{Seq: 10, Turn: 3, Kind: "tool_result", Tool: "grep", CallID: "c4", Key: "grep_1", Text: "src/a.py:3: " + planted, Chars: 31, Tokens: 8},
		}}
}

// convPage is the fixture's page with run-3's conversation and a note.
func convPage() *dashboards.Data {
	d := fixture(true)
	d.Conversations = []dashboards.Conversation{conversation()}
	d.ConversationNote = "This page holds the conversations of 1 of the 5 runs."
	return d
}

// TestConversationsInPage: the page carries each conversation in the runs
// block, gzip-compressed alone and base64-encoded under its run id, and it
// decodes back to the Conversation unchanged, hostile text included, while
// the page's markup stays the template's.
func TestConversationsInPage(t *testing.T) {
	d := convPage()
	page := render(t, d)
	checkMarkup(t, page)
	m := regexp.MustCompile(`(?s)<script type="application/json" id="trajmine-runs">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no runs JSON block")
	}
	var block struct {
		Conversations map[string]string `json:"conversations"`
		Note          string            `json:"conversation_note"`
	}
	if err := json.Unmarshal([]byte(m[1]), &block); err != nil {
		t.Fatal(err)
	}
	if len(block.Conversations) != 1 || block.Note != d.ConversationNote {
		t.Fatalf("%d conversations, note %q", len(block.Conversations), block.Note)
	}
	// keyed by the run's index in the run list (run-3 is Data.Runs[2]):
	// no log text in the key
	raw, err := base64.StdEncoding.DecodeString(block.Conversations["2"])
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var got dashboards.Conversation
	if err := json.NewDecoder(zr).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(conversation(), got); diff != "" {
		t.Errorf("decoded conversation (-want +got):\n%s", diff)
	}
	n, err := dashboards.ConversationSize(&d.Conversations[0])
	if err != nil || n != len(block.Conversations["2"]) {
		t.Errorf("ConversationSize = %d, %v; the page holds %d bytes", n, err, len(block.Conversations["2"]))
	}
	// a conversation of a run not in the run list is refused
	bad := convPage()
	bad.Conversations[0].RunID, bad.Conversations[0].Encoded = "not-listed", ""
	if err := dashboards.Write(io.Discard, bad, nil); err == nil || !strings.Contains(err.Error(), `run "not-listed" is not in the run list`) {
		t.Errorf("a conversation of an unlisted run: %v", err)
	}
	// no conversation, no field; a served page may fetch (connect-src 'self')
	if strings.Contains(render(t, fixture(true)), `"conversations"`) {
		t.Error("a page without conversations has the field")
	}
	if !strings.Contains(page, "connect-src 'none'") {
		t.Error("a file's CSP allows connections")
	}
	d.Live = &dashboards.Live{Generation: 3, Poll: 2000, Watching: "1 path", Updated: "12:00:00"}
	if live := render(t, d); !strings.Contains(live, "connect-src 'self'") || !strings.Contains(live, `"live":{"generation":3,"poll":2000}`) {
		t.Error("a served page's CSP or live block is wrong")
	}
	// the runs' handles (trajmine serve's names of them), in the run
	// list's order
	d.Live.Handles = []string{"rA", "rB"}
	if live := render(t, d); !strings.Contains(live, `"live":{"generation":3,"poll":2000,"handles":["rA","rB"]}`) {
		t.Error("a served page's live block lacks the handles")
	}
}

// TestBrowserConversation opens the page in headless Chromium: the first
// run's conversation is drawn with its calls' tokens and cost, tool
// outputs are folded until opened, the hostile output renders as text (no
// image, no dialog), the cut, fate and context operations are stated,
// finding and kind toggles filter, and a run whose conversation is not in
// the page says that trajmine serve has it. The conversation view is
// screenshotted at 1440 px (kept with -screenshots DIR).
func TestBrowserConversation(t *testing.T) {
	browsertest.Chromium(t)
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, []byte(render(t, convPage())), 0o644); err != nil {
		t.Fatal(err)
	}
	s := browsertest.Open(t, "file://"+file, 60*time.Second)
	const list = `document.getElementById('conv-list')`
	s.Wait(list+`.getAttribute('data-run')`, "run-3", 10*time.Second)
	// a folded item's body is filled on its toggle event, which comes
	// after opening it: steps that read one wait for it
	steps := []struct {
		name, js, want string
		wait           bool
	}{
		{"items", `String(document.querySelectorAll('#conv-list .conv-item').length)`, "11", false},
		{"folded", `String(document.querySelectorAll('#conv-list details.conv-item').length) + ' folded, ' + document.querySelectorAll('#conv-list details[open]').length + ' open'`, "5 folded, 0 open", false},
		{"calls", `Array.from(document.querySelectorAll('#conv-list .conv-call')).map(function (e) { return e.textContent; }).join(' | ')`,
			"call 0in 1,200 (cache read 1,000) · out 50 · $0.0123 | call 1in 2,400 (cache read 1,100, cache write 200) · out 80 · reasoning 30 · $0.0211 | call 2in 900 · out 10 · cost unknown (no price)local-" + xssScript + " | call 3no usage logged", false},
		{"arguments", `document.querySelector('#conv-list [data-seq="2"] .conv-args').textContent`, "{\n  \"command\": \"pytest -x\",\n  \"timeout\": 60\n}", false},
		{"an output is empty until opened", `document.querySelector('#conv-list [data-seq="3"] .conv-body').childNodes.length + ''`, "0", false},
		{"hostile output as text", `(function () { var d = document.querySelector('#conv-list [data-seq="3"]'); d.open = true; return ''; })()`, "", false},
		{"its text", `(function () { var e = document.querySelector('#conv-list [data-seq="3"] .conv-text'); return e ? e.textContent : ''; })()`, "FAILED tests/test_a.py::test_x\n" + xssImg + "\n" + xssURL, true},
		{"no image", `String(document.images.length)`, "0", false},
		{"its badges", `Array.from(document.querySelectorAll('#conv-list [data-seq="3"] .badge')).map(function (e) { return e.textContent; }).join(' | ')`, "error (exit 1) | hidden (placeholder shown) at call 2 (manage_context)", false},
		{"ops", `Array.from(document.querySelectorAll('#conv-list .conv-op')).map(function (e) { return e.textContent; }).join(' | ')`, "disable bash_1 (manage_context) at call 2 | compaction: 120,000 → 8,000 tokens (auto) at call 2", false},
		{"cut", `(function () { var d = document.querySelector('#conv-list [data-seq="6"]'); d.open = true; var n = d.querySelector('.note'); return n ? n.textContent : ''; })()`, "cut at 500 of 2,000 characters in this page; trajmine serve shows it whole", true},
		{"find", `(function () { var q = document.querySelector('#conv-tools input'); q.value = 'needle-7F3A'; q.dispatchEvent(new Event('input'));
			return document.querySelectorAll('#conv-list .conv-item').length + ' ' + document.querySelector('#conv-list .conv-item').getAttribute('data-seq'); })()`, "1 10", false},
		{"found and marked", `(function () { var d = document.querySelector('#conv-list [data-seq="10"]'); d.open = true; var m = d.querySelector('mark'); return m ? m.textContent : ''; })()`, "needle-7f3a", true},
		{"kinds", `(function () { var q = document.querySelector('#conv-tools input'); q.value = ''; q.dispatchEvent(new Event('input'));
			var box = Array.from(document.querySelectorAll('#conv-tools label')).filter(function (l) { return l.textContent.trim() === 'tool outputs'; })[0].querySelector('input');
			box.checked = false; box.dispatchEvent(new Event('change'));
			var n = document.querySelectorAll('#conv-list .conv-item').length, k = document.querySelectorAll('#conv-list .k-tool_result').length;
			box.checked = true; box.dispatchEvent(new Event('change')); return n + ' items, ' + k + ' outputs'; })()`, "8 items, 0 outputs", false},
		{"a run not in the page", `(function () { var rows = document.querySelectorAll('#runs-table tbody tr'); for (var i = 0; i < rows.length; i++) { if (rows[i].cells[0].textContent === 'overflowed') { rows[i].click(); } } return ''; })()`, "", false},
	}
	for _, st := range steps {
		if st.wait {
			s.Wait(st.js, st.want, 5*time.Second)
		}
		if got := s.Eval(st.js); got != st.want {
			t.Errorf("%s: %q, want %q", st.name, got, st.want)
		}
	}
	s.Wait(`document.getElementById('conv-note').textContent`, "This page holds the conversations of 1 of the 5 runs. This run's conversation is not in this page: trajmine serve shows every run's.", 5*time.Second)
	if n := s.Eval(`String(document.querySelectorAll('#conv-list .conv-item').length) + ' ' + getComputedStyle(document.getElementById('conv-tools')).display`); n != "0 none" {
		t.Errorf("a run without a conversation: %s items, its tools' display; want 0 none", n)
	}
	// back to run-3, an output opened, for the screenshot
	s.Eval(`(function () { var rows = document.querySelectorAll('#runs-table tbody tr'); for (var i = 0; i < rows.length; i++) { if (rows[i].cells[0].textContent === 'run-3') { rows[i].click(); } } return ''; })()`)
	s.Wait(list+`.getAttribute('data-run') + ' ' + document.querySelectorAll('#conv-list .conv-item').length`, "run-3 11", 5*time.Second)
	s.Eval(`(function () { document.querySelector('header').style.position = 'static'; document.querySelector('#conv-list [data-seq="3"]').open = true; document.getElementById('conversation').scrollIntoView(); return ''; })()`)
	dir := browsertest.ShotDir(t, "conversation")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s.Shot("#conversation", filepath.Join(dir, "conversation.png"))
	for _, e := range s.Errors() {
		t.Errorf("browser error: %s", e)
	}
	for _, d := range s.Dialogs() {
		t.Errorf("a dialog opened (injected script ran?): %s", d)
	}
	for _, u := range s.Requests() {
		if u != "file://"+file {
			t.Errorf("network request: %s", u)
		}
	}
	t.Logf("screenshot in %s", dir)
}
