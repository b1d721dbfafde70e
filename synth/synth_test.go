package synth_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/trajmine/trajmine/synth"
)

// corpus is generated once and shared by the read-only tests.
var corpus struct {
	dir string
	m   *synth.Manifest
	err error
}

const (
	testN    = 60
	testSeed = 42
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "synth-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	corpus.dir = dir
	corpus.m, corpus.err = synth.Write(dir, &synth.Options{N: testN, Seed: testSeed})
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func loadCorpus(t *testing.T) (string, *synth.Manifest) {
	t.Helper()
	if corpus.err != nil {
		t.Fatalf("Write: %v", corpus.err)
	}
	return corpus.dir, corpus.m
}

// est mirrors the documented estimator: ceil(runes/3.6).
func est(s string) int { return (10*utf8.RuneCountInString(s) + 35) / 36 }

// readLines returns the JSON objects of a JSONL file, failing on bad JSON.
func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var v map[string]any
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s:%d: invalid JSON: %v", path, n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func num(v any) int64 {
	switch x := v.(type) {
	case json.Number:
		n, err := x.Int64()
		if err != nil {
			panic(err)
		}
		return n
	case float64:
		return int64(x)
	}
	panic(fmt.Sprintf("not a number: %#v", v))
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func list(v any) []any         { l, _ := v.([]any); return l }
func str(v any) string         { s, _ := v.(string); return s }

func TestDeterministic(t *testing.T) {
	opts := &synth.Options{N: 18, Seed: 7}
	a, b := t.TempDir(), t.TempDir()
	ma, err := synth.Write(a, opts)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := synth.Write(b, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ma, mb) {
		t.Fatalf("manifests differ for the same seed")
	}
	fa, fb := readTree(t, a), readTree(t, b)
	if len(fa) == 0 || len(fa) != len(fb) {
		t.Fatalf("got %d and %d files", len(fa), len(fb))
	}
	for name, data := range fa {
		if !bytes.Equal(data, fb[name]) {
			t.Errorf("%s differs between runs with the same seed", name)
		}
	}

	c := t.TempDir()
	if _, err := synth.Write(c, &synth.Options{N: 18, Seed: 8}); err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(fa, readTree(t, c)) {
		t.Errorf("seeds 7 and 8 produced identical corpora")
	}
}

// TestCalls: Calls = DefaultCalls writes the default corpus byte for byte;
// four times as many makes the sessions longer (median model calls at
// least doubled: windows, overflows and compactions cap some of them).
func TestCalls(t *testing.T) {
	def, same := t.TempDir(), t.TempDir()
	md, err := synth.Write(def, &synth.Options{N: 30, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := synth.Write(same, &synth.Options{N: 30, Seed: 4, Calls: synth.DefaultCalls}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(readTree(t, def), readTree(t, same)) {
		t.Error("Calls = DefaultCalls differs from the default corpus")
	}
	long, err := synth.Write(t.TempDir(), &synth.Options{N: 30, Seed: 4, Calls: 4 * synth.DefaultCalls})
	if err != nil {
		t.Fatal(err)
	}
	median := func(m *synth.Manifest) int {
		var ts []int
		for _, f := range m.Files {
			ts = append(ts, f.Turns)
		}
		slices.Sort(ts)
		return ts[len(ts)/2]
	}
	if a, b := median(md), median(long); b < 2*a {
		t.Errorf("median model calls %d with Calls = %d, %d by default: want at least twice", b, 4*synth.DefaultCalls, a)
	}
}

func readTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestOptions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    *synth.Options
		wantErr string
		want    []string // formats of the manifest entries, in order
		absent  string   // a directory that must not be written
	}{
		{name: "unknown format", opts: &synth.Options{N: 3, Formats: []string{"claude-code", "jsonl"}}, wantErr: `unknown format "jsonl"`},
		{name: "negative N", opts: &synth.Options{N: -1}, wantErr: "N must be >= 0"},
		{name: "negative Calls", opts: &synth.Options{N: 1, Calls: -5}, wantErr: "Calls must be >= 0"},
		{name: "codex only", opts: &synth.Options{N: 2, Formats: []string{synth.FormatCodexCLI}},
			want: []string{"codex-cli", "codex-cli"}, absent: "claude-code"},
		{name: "order and duplicates ignored", opts: &synth.Options{N: 4, Formats: []string{"openai-messages", "claude-code", "openai-messages"}},
			want: []string{"claude-code", "openai-messages", "claude-code", "openai-messages"}, absent: "codex"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			m, err := synth.Write(dir, tc.opts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range m.Files {
				got = append(got, f.Format)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("formats = %v, want %v", got, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, tc.absent)); err == nil {
				t.Errorf("%s written although not requested", tc.absent)
			}
		})
	}
}

// tally is what a session's file says, to compare with its FileInfo.
type tally struct {
	turns, tools int
	in, out      int64
	hit, dtoc    bool
}

func TestManifestMatchesFiles(t *testing.T) {
	dir, m := loadCorpus(t)
	if len(m.Files) != testN {
		t.Fatalf("manifest has %d files, want %d", len(m.Files), testN)
	}
	var runs map[string]tally
	for _, fi := range m.Files {
		t.Run(fi.Format+"/"+fi.RunID, func(t *testing.T) {
			p := filepath.Join(dir, filepath.FromSlash(fi.Path))
			var got tally
			switch fi.Format {
			case synth.FormatClaudeCode:
				got = tallyClaude(t, readLines(t, p))
			case synth.FormatCodexCLI:
				got = tallyCodex(t, readLines(t, p))
			case synth.FormatOpenAIMessages:
				if runs == nil {
					runs = map[string]tally{}
					for _, r := range readLines(t, p) {
						runs[str(r["run_id"])] = tallyOpenAI(r)
					}
				}
				got = runs[fi.RunID]
			default:
				t.Fatalf("unknown format %q", fi.Format)
			}
			want := tally{turns: fi.Turns, tools: fi.ToolCalls, in: fi.InputTokens, out: fi.OutputTokens, hit: fi.HitsWindow, dtoc: fi.DTOC}
			if got != want {
				t.Errorf("file says %+v, manifest says %+v", got, want)
			}
		})
	}
}

func tallyClaude(t *testing.T, lines []map[string]any) tally {
	var s tally
	usage := map[string]map[string]any{} // last line's usage per message.id
	var order []string
	results := 0
	for _, l := range lines {
		if l["isApiErrorMessage"] == true {
			s.hit = true
			continue
		}
		switch l["type"] {
		case "assistant":
			msg := obj(l["message"])
			id := str(msg["id"])
			if _, ok := usage[id]; !ok {
				order = append(order, id)
			}
			usage[id] = obj(msg["usage"])
			for _, b := range list(msg["content"]) {
				if obj(b)["type"] == "tool_use" {
					s.tools++
				}
			}
		case "user":
			for _, b := range list(obj(l["message"])["content"]) {
				if obj(b)["type"] == "tool_result" {
					results++
				}
			}
		}
	}
	if results != s.tools {
		t.Errorf("%d tool_use blocks but %d tool_result blocks", s.tools, results)
	}
	for _, id := range order {
		u := usage[id]
		s.turns++
		s.in += num(u["input_tokens"]) + num(u["cache_read_input_tokens"]) + num(u["cache_creation_input_tokens"])
		s.out += num(u["output_tokens"])
	}
	return s
}

func tallyCodex(t *testing.T, lines []map[string]any) tally {
	var s tally
	outputs := 0
	var last map[string]any
	for _, l := range lines {
		p := obj(l["payload"])
		switch p["type"] {
		case "token_count":
			info := obj(p["info"])
			u := obj(info["last_token_usage"])
			s.turns++
			s.in += num(u["input_tokens"])
			s.out += num(u["output_tokens"])
			last = obj(info["total_token_usage"])
		case "function_call", "custom_tool_call":
			s.tools++
		case "function_call_output", "custom_tool_call_output":
			outputs++
		case "error":
			s.hit = true
		}
	}
	if outputs != s.tools {
		t.Errorf("%d tool calls but %d outputs", s.tools, outputs)
	}
	if last == nil || num(last["input_tokens"]) != s.in || num(last["output_tokens"]) != s.out {
		t.Errorf("total_token_usage %v does not sum last_token_usage (in %d, out %d)", last, s.in, s.out)
	}
	return s
}

func tallyOpenAI(run map[string]any) tally {
	var s tally
	for _, u := range list(run["usage"]) {
		s.turns++
		s.in += num(obj(u)["prompt_tokens"])
		s.out += num(obj(u)["completion_tokens"])
	}
	for _, m := range list(run["messages"]) {
		if obj(m)["role"] == "tool" {
			s.tools++
			if strings.HasPrefix(str(obj(m)["content"]), `{"tool_key":`) {
				s.dtoc = true
			}
		}
	}
	s.hit = obj(run["outcome"])["end_reason"] == "context_overflow"
	return s
}

func TestClaudeCodeLines(t *testing.T) {
	dir, m := loadCorpus(t)
	compacted := 0
	for _, fi := range m.Files {
		if fi.Format != synth.FormatClaudeCode {
			continue
		}
		lines := readLines(t, filepath.Join(dir, filepath.FromSlash(fi.Path)))
		t.Run(fi.RunID, func(t *testing.T) {
			if c := checkClaude(t, fi, lines); c > 0 {
				compacted++
			}
		})
	}
	if compacted == 0 {
		t.Errorf("no Claude Code session auto-compacted")
	}
}

// checkClaude checks one transcript and returns its number of compactions.
func checkClaude(t *testing.T, fi synth.FileInfo, lines []map[string]any) int {
	t.Helper()
	seen := map[string]bool{}
	toolUses := map[string]bool{}
	var cwd string
	type resp struct {
		id       string
		prompt   int64
		read     int64
		out      int64
		lines    int
		cold     bool
		stop     any
		inputKey string
	}
	var resps []*resp
	var cur *resp
	cold, compactions := true, 0
	for i, l := range lines {
		where := fmt.Sprintf("line %d", i+1)
		typ := str(l["type"])
		if typ == "file-history-snapshot" {
			continue
		}
		for _, k := range []string{"uuid", "sessionId", "timestamp", "cwd", "version"} {
			if str(l[k]) == "" {
				t.Fatalf("%s: %s line without %s", where, typ, k)
			}
		}
		if _, ok := l["parentUuid"]; !ok {
			t.Fatalf("%s: no parentUuid key", where)
		}
		if p := str(l["parentUuid"]); p != "" && !seen[p] {
			t.Errorf("%s: parentUuid %s is not an earlier line", where, p)
		}
		seen[str(l["uuid"])] = true
		if str(l["sessionId"]) != fi.RunID {
			t.Errorf("%s: sessionId %v, want %s", where, l["sessionId"], fi.RunID)
		}
		if _, err := time.Parse(time.RFC3339Nano, str(l["timestamp"])); err != nil {
			t.Errorf("%s: timestamp: %v", where, err)
		}
		cwd = str(l["cwd"])
		switch typ {
		case "system":
			if l["subtype"] == "compact_boundary" {
				meta := obj(l["compactMetadata"])
				if l["parentUuid"] != nil || meta["trigger"] != "auto" || num(meta["preTokens"]) < 150000 {
					t.Errorf("%s: bad compact_boundary %v", where, l)
				}
				if i+1 >= len(lines) || lines[i+1]["isCompactSummary"] != true {
					t.Errorf("%s: compact_boundary not followed by an isCompactSummary user line", where)
				}
				compactions++
				cold = true
			}
		case "user":
			msg := obj(l["message"])
			if msg["role"] != "user" {
				t.Errorf("%s: user message role %v", where, msg["role"])
			}
			for _, b := range list(msg["content"]) {
				if obj(b)["type"] == "tool_result" {
					if !toolUses[str(obj(b)["tool_use_id"])] {
						t.Errorf("%s: tool_result for unknown tool_use %v", where, obj(b)["tool_use_id"])
					}
					if l["toolUseResult"] == nil {
						t.Errorf("%s: tool result line without toolUseResult", where)
					}
				}
			}
		case "assistant":
			msg := obj(l["message"])
			content := list(msg["content"])
			if len(content) != 1 {
				t.Fatalf("%s: %d content blocks, want one per line", where, len(content))
			}
			if l["isApiErrorMessage"] == true {
				if !fi.HitsWindow || i != len(lines)-1 || obj(content[0])["text"] != "Prompt is too long" {
					t.Errorf("%s: unexpected API error line", where)
				}
				continue
			}
			id := str(msg["id"])
			if !strings.HasPrefix(id, "msg_") || !strings.HasPrefix(str(l["requestId"]), "req_") || !strings.HasPrefix(str(msg["model"]), "claude-") || msg["role"] != "assistant" {
				t.Errorf("%s: bad message header id=%q requestId=%v model=%v", where, id, l["requestId"], msg["model"])
			}
			if _, ok := msg["stop_reason"]; !ok {
				t.Errorf("%s: no stop_reason", where)
			}
			u := obj(msg["usage"])
			prompt := num(u["input_tokens"]) + num(u["cache_read_input_tokens"]) + num(u["cache_creation_input_tokens"])
			key := fmt.Sprint(u["input_tokens"], u["cache_read_input_tokens"], u["cache_creation_input_tokens"])
			if b := obj(content[0]); b["type"] == "tool_use" {
				toolUses[str(b["id"])] = true
			}
			if cur == nil || cur.id != id {
				cur = &resp{id: id, prompt: prompt, read: num(u["cache_read_input_tokens"]), cold: cold, inputKey: key}
				resps = append(resps, cur)
				cold = false
			} else if key != cur.inputKey {
				t.Errorf("%s: input usage differs between lines of %s", where, id)
			}
			if cur.lines > 0 && (cur.out < 1 || cur.out > 30 || cur.stop != nil) {
				t.Errorf("%s: non-final line of %s has output_tokens %d, stop_reason %v", where, id, cur.out, cur.stop)
			}
			cur.lines++
			cur.out = num(u["output_tokens"])
			cur.stop = msg["stop_reason"]
		}
	}
	wantDir := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, cwd)
	if want := "claude-code/projects/" + wantDir + "/" + fi.RunID + ".jsonl"; fi.Path != want {
		t.Errorf("path %s, want %s", fi.Path, want)
	}
	for k, r := range resps {
		if r.out < 20 || r.out > 1500 || r.stop == nil {
			t.Errorf("response %s: final output_tokens %d stop_reason %v", r.id, r.out, r.stop)
		}
		if r.prompt > 200000 {
			t.Errorf("response %s: prompt %d exceeds the window", r.id, r.prompt)
		}
		if k > 0 && !r.cold && r.read != resps[k-1].prompt {
			t.Errorf("response %s: cache_read %d, want previous prompt %d", r.id, r.read, resps[k-1].prompt)
		}
		if k > 0 && r.cold && r.prompt >= resps[k-1].prompt {
			t.Errorf("response %s: prompt %d did not drop after compaction (was %d)", r.id, r.prompt, resps[k-1].prompt)
		}
	}
	return compactions
}

func TestCodexLines(t *testing.T) {
	dir, m := loadCorpus(t)
	for _, fi := range m.Files {
		if fi.Format != synth.FormatCodexCLI {
			continue
		}
		t.Run(fi.RunID, func(t *testing.T) {
			lines := readLines(t, filepath.Join(dir, filepath.FromSlash(fi.Path)))
			meta := obj(lines[0]["payload"])
			if lines[0]["type"] != "session_meta" || meta["id"] != fi.RunID {
				t.Fatalf("first line %v is not this session's session_meta", lines[0]["type"])
			}
			ts, err := time.Parse(time.RFC3339Nano, str(meta["timestamp"]))
			if err != nil {
				t.Fatal(err)
			}
			want := "codex/sessions/" + ts.Format("2006/01/02") + "/rollout-" + ts.Format("2006-01-02T15-04-05") + "-" + fi.RunID + ".jsonl"
			if fi.Path != want {
				t.Errorf("path %s, want %s", fi.Path, want)
			}
			calls := map[string]bool{}
			var prev int64
			started, completed := 0, 0
			for i, l := range lines {
				p := obj(l["payload"])
				switch p["type"] {
				case "task_started":
					started++
				case "task_complete":
					completed++
				case "turn_context":
					if m := p["model"]; m != "gpt-5-codex" && m != "gpt-5" {
						t.Errorf("line %d: model %v", i+1, m)
					}
				case "function_call":
					if !json.Valid([]byte(str(p["arguments"]))) {
						t.Errorf("line %d: arguments are not JSON: %v", i+1, p["arguments"])
					}
					calls[str(p["call_id"])] = true
				case "custom_tool_call":
					calls[str(p["call_id"])] = true
				case "function_call_output", "custom_tool_call_output":
					if !calls[str(p["call_id"])] {
						t.Errorf("line %d: output for unknown call %v", i+1, p["call_id"])
					}
				case "token_count":
					info := obj(p["info"])
					u := obj(info["last_token_usage"])
					in, cached := num(u["input_tokens"]), num(u["cached_input_tokens"])
					out, reasoning := num(u["output_tokens"]), num(u["reasoning_output_tokens"])
					if num(info["model_context_window"]) != 272000 || in > 272000 {
						t.Errorf("line %d: input %d window %v", i+1, in, info["model_context_window"])
					}
					if prev > 0 && cached != prev/128*128 {
						t.Errorf("line %d: cached %d, want previous input %d rounded to 128", i+1, cached, prev)
					}
					if in <= prev || cached > in || reasoning > out || num(u["total_tokens"]) != in+out || out < 20 || out > 1500 {
						t.Errorf("line %d: inconsistent usage %v (previous input %d)", i+1, u, prev)
					}
					prev = in
				case "error":
					if !fi.HitsWindow || !strings.HasPrefix(str(p["message"]), "Your input exceeds the context window") {
						t.Errorf("line %d: unexpected error %v", i+1, p["message"])
					}
				}
			}
			if started == 0 || started != completed {
				t.Errorf("%d task_started, %d task_complete", started, completed)
			}
		})
	}
}

func TestOpenAIRuns(t *testing.T) {
	dir, m := loadCorpus(t)
	var runs []map[string]any
	for _, fi := range m.Files {
		if fi.Format == synth.FormatOpenAIMessages {
			runs = readLines(t, filepath.Join(dir, filepath.FromSlash(fi.Path)))
			break
		}
	}
	dtoc := 0
	for _, run := range runs {
		t.Run(str(run["run_id"]), func(t *testing.T) {
			if checkOpenAI(t, run, false) {
				dtoc++
			}
		})
	}
	if dtoc == 0 {
		t.Errorf("no DTOC runs among %d", len(runs))
	}
}

// checkOpenAI replays a run's context accounting and checks every
// prompt_tokens exactly; it reports whether the run is a DTOC run. idle
// allows a DTOC run that never calls manage_context (ProfileNever).
func checkOpenAI(t *testing.T, run map[string]any, idle bool) bool {
	t.Helper()
	if num(run["window_tokens"]) != 128000 || str(run["model"]) == "" {
		t.Errorf("bad header %v %v", run["model"], run["window_tokens"])
	}
	msgs, usage := list(run["messages"]), list(run["usage"])
	type ctxItem struct{ full, stub int }
	items := map[string]*ctxItem{} // tool_key → tokens
	disabled := map[string]bool{}
	calls := map[string]string{} // tool_call_id → function name
	pending := 0                 // tokens added since the previous call, or the whole prompt so far
	var prevPrompt int64
	var overhead int64 = -1
	dtoc, manages, disables := false, 0, 0
	var manageOps []map[string]any
	k := 0
	for i, mv := range msgs {
		m := obj(mv)
		content := str(m["content"])
		switch m["role"] {
		case "assistant":
			if k >= len(usage) {
				t.Fatalf("more assistant messages than usage entries (%d)", len(usage))
			}
			prompt := num(obj(usage[k])["prompt_tokens"])
			if overhead < 0 {
				overhead = prompt - int64(pending)
				if overhead < 500 || overhead > 2000 {
					t.Errorf("first prompt overhead %d", overhead)
				}
			} else if want := prevPrompt + int64(pending); prompt != want {
				t.Errorf("message %d: prompt_tokens %d, want %d (previous %d + added %d)", i, prompt, want, prevPrompt, pending)
			}
			if prompt > 128000 {
				t.Errorf("message %d: prompt %d exceeds the window", i, prompt)
			}
			prevPrompt, pending = prompt, 0
			k++
			tok := est(content)
			for _, tc := range list(m["tool_calls"]) {
				fn := obj(obj(tc)["function"])
				calls[str(obj(tc)["id"])] = str(fn["name"])
				tok += est(str(fn["name"])) + est(str(fn["arguments"]))
				if fn["name"] == "manage_context" {
					manages++
					var op map[string]any
					if err := json.Unmarshal([]byte(str(fn["arguments"])), &op); err != nil {
						t.Fatalf("manage_context arguments: %v", err)
					}
					manageOps = append(manageOps, op)
				}
			}
			pending += tok
		case "tool":
			name, ok := calls[str(m["tool_call_id"])]
			if !ok {
				t.Errorf("message %d: tool result for unknown call %v", i, m["tool_call_id"])
			}
			tok := est(content)
			if strings.HasPrefix(content, `{"tool_key":`) {
				dtoc = true
				var env struct {
					Key    string `json:"tool_key"`
					Result string `json:"tool_result"`
					Est    int    `json:"estimated_tokens"`
				}
				if err := json.Unmarshal([]byte(content), &env); err != nil {
					t.Fatalf("message %d: envelope: %v", i, err)
				}
				if !strings.HasPrefix(env.Key, name+"_") || env.Est != (utf8.RuneCountInString(env.Result)+3)/4 {
					t.Errorf("message %d: envelope key %q for %s, estimated_tokens %d", i, env.Key, name, env.Est)
				}
				items[env.Key] = &ctxItem{full: tok, stub: est(stubEnvelope(env.Key, env.Est))}
			} else if dtoc {
				t.Errorf("message %d: plain tool result in a DTOC run", i)
			}
			pending += tok
			if name == "manage_context" {
				op := manageOps[len(manageOps)-1]
				for _, key := range list(op["disable"]) {
					it := items[str(key)]
					if it == nil || disabled[str(key)] {
						t.Fatalf("disable of unknown or disabled key %v", key)
					}
					disabled[str(key)] = true
					pending -= it.full - it.stub
					disables++
				}
				for _, key := range list(op["enable"]) {
					it := items[str(key)]
					if it == nil || !disabled[str(key)] {
						t.Fatalf("enable of unknown or enabled key %v", key)
					}
					delete(disabled, str(key))
					pending += it.full - it.stub
				}
			}
		default:
			pending += est(content)
		}
	}
	if k != len(usage) {
		t.Errorf("%d assistant messages, %d usage entries", k, len(usage))
	}
	outcome := obj(run["outcome"])
	switch outcome["end_reason"] {
	case "context_overflow":
		if dtoc || prevPrompt+int64(pending) <= 128000 || outcome["resolved"] != false {
			t.Errorf("overflow outcome but next prompt would be %d (dtoc %v)", prevPrompt+int64(pending), dtoc)
		}
	case "finished", "step_limit":
	default:
		t.Errorf("end_reason %v", outcome["end_reason"])
	}
	if dtoc && !idle && (manages == 0 || disables == 0) {
		t.Errorf("DTOC run with %d manage_context calls and %d disables", manages, disables)
	}
	if !dtoc && manages > 0 {
		t.Errorf("manage_context in a non-DTOC run")
	}
	return dtoc
}

// stubEnvelope is the documented cost of a disabled DTOC result.
func stubEnvelope(key string, estTok int) string {
	return fmt.Sprintf(`{"tool_key":%q,"tool_result":"[disabled]","estimated_tokens":%d}`, key, estTok)
}

func TestSomeSessionsHitTheWindow(t *testing.T) {
	_, m := loadCorpus(t)
	hits := map[string]int{}
	total := map[string]int{}
	for _, f := range m.Files {
		total[f.Format]++
		if f.HitsWindow {
			hits[f.Format]++
			if f.DTOC {
				t.Errorf("%s: DTOC run hit the window", f.RunID)
			}
		}
		if f.Turns < 4 || f.Turns > 170 {
			t.Errorf("%s: %d model calls", f.RunID, f.Turns)
		}
	}
	for _, f := range []string{synth.FormatClaudeCode, synth.FormatCodexCLI, synth.FormatOpenAIMessages} {
		if hits[f] == 0 || hits[f] > total[f]/2 {
			t.Errorf("%s: %d of %d sessions hit the window", f, hits[f], total[f])
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	for b.Loop() {
		if _, err := synth.Write(b.TempDir(), &synth.Options{N: 30, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
