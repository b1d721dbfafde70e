package synth

import (
	"math/rand/v2"
	"path"
	"strconv"
	"strings"
	"time"
)

// Claude Code: one JSONL transcript per session at
// claude-code/projects/<encoded-cwd>/<sessionId>.jsonl.

const claudeWindow = 200000

var (
	claudeModels       = []string{"claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805", "claude-sonnet-4-20250514", "claude-haiku-4-5-20251001", "claude-opus-4-5-20251101"}
	claudeModelWeights = []int{55, 20, 10, 10, 5}
	claudeVersions     = []string{"2.0.27", "2.0.55", "2.0.76", "2.1.4", "2.1.39"}
	slugWords          = []string{"radiant", "floating", "quiet", "amber", "swift", "hidden", "gentle", "crimson", "lucky", "misty", "music", "harbor", "lantern", "meadow", "comet", "river", "falcon", "orchid"}
	// Tool mix: Read, Grep, Glob, Bash(test), Bash(other), Edit, Write, TodoWrite.
	claudeMix = [nKinds]int{34, 14, 6, 14, 10, 14, 4, 4}
)

// encodeCwd turns a working directory into Claude Code's project folder
// name: every character other than a letter or digit becomes '-'.
func encodeCwd(cwd string) string {
	b := []byte(cwd)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

type claudeWriter struct {
	a       *agent
	r       *rand.Rand
	lw      *lineWriter
	id      string
	cwd     string
	version string
	branch  string
	slug    string
	model   string
	v21     bool
	parent  string // uuid of the last line in the chain; "" for none
	cold    bool   // the next call starts a fresh prompt cache (first call, after compaction)
	turnAt  time.Time
	path    string // transcript path, for the compaction summary
}

// claudeSession writes one Claude Code transcript to lw.
func claudeSession(lw *lineWriter, spec sessionSpec, relPath string) FileInfo {
	r := spec.r
	ws := newWorkspace(spec.project)
	p := newPlan(r, claudeWindow, between(r, 14000, 21000), true, false, spec.scale)
	c := &claudeWriter{
		a:       newAgent(r, ws, p, claudeMix, spec.start),
		r:       r,
		lw:      lw,
		id:      spec.id,
		cwd:     spec.project.root,
		version: pick(r, claudeVersions),
		branch:  spec.project.branch,
		model:   claudeModels[weighted(r, claudeModelWeights)],
		cold:    true,
		path:    spec.project.home + "/.claude/projects/" + encodeCwd(spec.project.root) + "/" + spec.id + ".jsonl",
	}
	c.v21 = strings.HasPrefix(c.version, "2.1.")
	if c.v21 {
		c.slug = pick(r, slugWords) + "-" + pick(r, slugWords) + "-" + pick(r, slugWords)
	}
	hit := c.run()
	return FileInfo{
		Path: relPath, Format: FormatClaudeCode, RunID: spec.id,
		Turns: c.a.n, ToolCalls: c.a.tools, HitsWindow: hit,
		InputTokens: c.a.in, OutputTokens: c.a.out,
	}
}

// run generates the session; it reports whether it ended in an overflow.
func (c *claudeWriter) run() bool {
	a := c.a
	c.userPrompt(userPrompt(c.r, a.ws, false))
	for {
		if a.p.compact && a.cur > a.compactAt {
			c.compact()
		}
		if a.overflowing() {
			c.promptTooLong()
			return true
		}
		s := a.next()
		c.response(s)
		if s.final {
			if c.v21 {
				c.turnDuration()
			}
			a.turn++
			if a.turn >= len(a.p.turnEnds) {
				return false
			}
			a.advance(90 * time.Second)
			c.userPrompt(userPrompt(c.r, a.ws, true))
		}
	}
}

// head returns the fields every transcript line starts with.
func (c *claudeWriter) head() obj {
	var parent any
	if c.parent != "" {
		parent = c.parent
	}
	o := make(obj, 0, 16)
	o = append(o, kv{"parentUuid", parent}, kv{"isSidechain", false}, kv{"userType", "external"},
		kv{"cwd", c.cwd}, kv{"sessionId", c.id}, kv{"version", c.version}, kv{"gitBranch", c.branch})
	if c.slug != "" && c.a.n > 0 {
		o = append(o, kv{"slug", c.slug})
	}
	return o
}

func (c *claudeWriter) userPrompt(text string) {
	u := uuid4(c.r)
	ts := isoMillis(c.a.now)
	c.lw.write(obj{{"type", "file-history-snapshot"}, {"messageId", u},
		{"snapshot", obj{{"messageId", u}, {"trackedFileBackups", obj{}}, {"timestamp", ts}}}, {"isSnapshotUpdate", false}})
	o := c.head()
	o = append(o, kv{"type", "user"}, kv{"message", obj{{"role", "user"}, {"content", text}}}, kv{"uuid", u}, kv{"timestamp", ts})
	if c.v21 {
		o = append(o, kv{"thinkingMetadata", obj{{"maxThinkingTokens", 31999}}}, kv{"todos", arr{}}, kv{"permissionMode", pick(c.r, []string{"default", "acceptEdits", "bypassPermissions"})})
	}
	c.lw.write(o)
	c.parent = u
	c.turnAt = c.a.now
	c.a.add(est(text))
}

// block is one content block of an API response plus, for tool_use, the
// tool's result.
type block struct {
	content obj
	visible int // tokens this block adds to later prompts
	result  *claudeResult
	kind    kind
}

type claudeResult struct {
	content string
	isError bool
	extra   any // toolUseResult
}

// response writes one API response, split over one line per content block,
// with tool results interleaved after their tool_use lines.
func (c *claudeWriter) response(s step) {
	a, r := c.a, c.r
	var blocks []block
	thinking := ""
	if s.thinking {
		thinking = thought(r, a.ws)
		blocks = append(blocks, block{content: obj{{"type", "thinking"}, {"thinking", thinking}, {"signature", randChars(r, b64std, 4*between(r, 80, 300))}}})
	}
	if s.final {
		text := finalAnswer(r, a.ws, a.edited)
		blocks = append(blocks, block{content: obj{{"type", "text"}, {"text", text}}, visible: est(text)})
	} else {
		if s.preface {
			t := preface(r, c.target(s.actions[0]))
			blocks = append(blocks, block{content: obj{{"type", "text"}, {"text", t}}, visible: est(t)})
		}
		for _, ac := range s.actions {
			name, input, res := c.tool(ac)
			tu := obj{{"type", "tool_use"}, {"id", toolUseID(r)}, {"name", name}, {"input", input}}
			if c.v21 {
				tu = append(tu, kv{"caller", obj{{"type", "direct"}}})
			}
			blocks = append(blocks, block{content: tu, visible: est(name) + est(encode(input)), result: res, kind: ac.kind})
		}
	}
	visible := 0
	for _, b := range blocks {
		visible += b.visible
	}
	out := a.outputTokens(visible, a.hiddenTokens(thinking))

	// Usage: the whole prompt is a.cur; the previous prompt is read from
	// cache, the rest is written to it, and 1–3 tokens are uncached.
	prompt := a.cur
	read := a.last
	if c.cold {
		read = 0
		if a.compactions > 0 || chance(r, 0.7) {
			read = a.p.sys // system prompt and tools cached by earlier sessions
		}
		c.cold = false
	}
	in := min(between(r, 1, 3), prompt-read)
	write := prompt - read - in
	placeholder := between(r, 1, 30)
	mid, rid := msgID(r), requestID(r)
	a.advance(modelTime(out))
	a.called(out)
	for i, b := range blocks {
		last := i == len(blocks)-1
		outTok := placeholder
		var stop any
		if last {
			outTok = out
			stop = "end_turn"
			if b.result != nil {
				stop = "tool_use"
			}
		}
		usage := obj{{"input_tokens", in}, {"cache_creation_input_tokens", write}, {"cache_read_input_tokens", read},
			{"cache_creation", obj{{"ephemeral_5m_input_tokens", write}, {"ephemeral_1h_input_tokens", 0}}},
			{"output_tokens", outTok}, {"service_tier", "standard"}}
		msg := obj{{"model", c.model}, {"id", mid}, {"type", "message"}, {"role", "assistant"},
			{"content", arr{b.content}}, {"stop_reason", stop}, {"stop_sequence", nil}, {"usage", usage}}
		u := uuid4(r)
		o := c.head()
		o = append(o, kv{"message", msg}, kv{"requestId", rid}, kv{"type", "assistant"}, kv{"uuid", u}, kv{"timestamp", isoMillis(a.now)})
		c.lw.write(o)
		c.parent = u
		a.add(b.visible)
		if b.result != nil {
			a.tools++
			c.toolResult(b, u)
		}
		a.advance(400 * time.Millisecond)
	}
}

func (c *claudeWriter) toolResult(b block, assistantUUID string) {
	a := c.a
	ts := a.advance(toolTime(b.kind))
	res := obj{{"tool_use_id", b.content[1].v}, {"type", "tool_result"}, {"content", b.result.content}}
	if b.result.isError {
		res = append(res, kv{"is_error", true})
	}
	u := uuid4(c.r)
	o := c.head()
	o = append(o, kv{"type", "user"}, kv{"message", obj{{"role", "user"}, {"content", arr{res}}}},
		kv{"uuid", u}, kv{"timestamp", isoMillis(ts)}, kv{"toolUseResult", b.result.extra})
	if c.v21 {
		o = append(o, kv{"sourceToolAssistantUUID", assistantUUID})
	}
	c.lw.write(o)
	c.parent = u
	a.add(est(b.result.content))
}

func (c *claudeWriter) target(ac action) string {
	if ac.file != nil {
		return ac.file.path
	}
	return "the code"
}

// tool renders an action as a Claude Code tool call and runs it.
func (c *claudeWriter) tool(ac action) (string, obj, *claudeResult) {
	a, r, ws := c.a, c.r, c.a.ws
	switch ac.kind {
	case kRead:
		f := ac.file
		total := len(ws.text(f))
		input := obj{{"file_path", ws.abs(f.path)}}
		if ac.start != 1 || ac.end != total {
			input = append(input, kv{"offset", ac.start}, kv{"limit", ac.end - ac.start + 1})
		}
		text := ws.slice(f, ac.start, ac.end)
		return "Read", input, &claudeResult{content: numbered(text, ac.start), extra: obj{{"type", "text"},
			{"file", obj{{"filePath", ws.abs(f.path)}, {"content", text}, {"numLines", ac.end - ac.start + 1}, {"startLine", ac.start}, {"totalLines", total}}}}}
	case kGrep:
		out, files := grepOutput(r, ws, ac.pattern, ac.size, true)
		if chance(r, 0.3) {
			abs := make(strs, len(files))
			for i, f := range files {
				abs[i] = ws.abs(f)
			}
			return "Grep", obj{{"pattern", ac.pattern}, {"path", ws.p.root}, {"output_mode", "files_with_matches"}},
				&claudeResult{content: "Found " + strconv.Itoa(len(abs)) + " files\n" + strings.Join(abs, "\n"),
					extra: obj{{"mode", "files_with_matches"}, {"filenames", abs}, {"numFiles", len(abs)}}}
		}
		out = prefixLines(out, ws.p.root+"/")
		return "Grep", obj{{"pattern", ac.pattern}, {"path", ws.p.root}, {"output_mode", "content"}, {"-n", true}},
			&claudeResult{content: out, extra: obj{{"mode", "content"}, {"numFiles", 0}, {"filenames", arr{}}, {"content", out}, {"numLines", strings.Count(out, "\n") + 1}}}
	case kGlob:
		paths := globOutput(r, ws, max(1, ac.size/40), true)
		pat := "**/*" + ws.p.lang.ext()
		if chance(r, 0.5) {
			pat = "**/*" + pick(r, nouns) + "*"
		}
		return "Glob", obj{{"pattern", pat}}, &claudeResult{content: strings.Join(paths, "\n"),
			extra: obj{{"filenames", strs(paths)}, {"durationMs", between(r, 5, 120)}, {"numFiles", len(paths)}, {"truncated", false}}}
	case kTest, kShell:
		var cmd, out, desc string
		failed := false
		if ac.kind == kTest {
			cmd, desc = testCommand(r, ws), "Run the test suite"
			out, failed = testLog(r, ws, ac.size, ac.fail), ac.fail
		} else {
			cmd, out = shellMisc(r, ws, ac.size)
			desc = "Inspect the repository"
		}
		input := obj{{"command", cmd}, {"description", desc}}
		if ac.kind == kTest && chance(r, 0.3) {
			input = append(input, kv{"timeout", 300000})
		}
		if failed {
			return "Bash", input, &claudeResult{content: "Exit code 1\n" + out, isError: true, extra: "Error: Exit code 1\n" + out}
		}
		return "Bash", input, &claudeResult{content: out, extra: obj{{"stdout", out}, {"stderr", ""}, {"interrupted", false}, {"isImage", false}, {"noOutputExpected", false}}}
	case kEdit:
		f := ac.file
		abs := ws.abs(f.path)
		if ac.fail {
			old := ws.coderLine(r)
			input := obj{{"file_path", abs}, {"old_string", old}, {"new_string", ws.coderLine(r)}, {"replace_all", false}}
			msg := "String to replace not found in file.\nString: " + old
			return "Edit", input, &claudeResult{content: "<tool_use_error>" + msg + "</tool_use_error>", isError: true, extra: "Error: " + msg}
		}
		original := strings.Join(ws.text(f), "\n")
		oldS, newS, at := ws.edit(r, f)
		a.noteEdit(f.path)
		input := obj{{"file_path", abs}, {"old_string", oldS}, {"new_string", newS}, {"replace_all", false}}
		return "Edit", input, &claudeResult{content: "The file " + abs + " has been updated successfully.",
			extra: obj{{"filePath", abs}, {"oldString", oldS}, {"newString", newS}, {"originalFile", original},
				{"structuredPatch", arr{hunk(oldS, newS, at)}}, {"userModified", false}, {"replaceAll", false}}}
	case kWrite:
		f := ws.create(r, 200)
		content := a.writeContent(f, ac.size)
		a.noteEdit(f.path)
		abs := ws.abs(f.path)
		return "Write", obj{{"file_path", abs}, {"content", content}}, &claudeResult{content: "File created successfully at: " + abs,
			extra: obj{{"type", "create"}, {"filePath", abs}, {"content", content}, {"structuredPatch", arr{}}, {"originalFile", nil}}}
	default: // kPlan
		todos := arr{}
		for i := range between(r, 2, 6) {
			st := "pending"
			if i == 0 {
				st = "in_progress"
			}
			v := pick(r, verbs)
			n := pick(r, nouns)
			todos = append(todos, obj{{"content", title(v) + " " + n + " handling"}, {"status", st}, {"activeForm", title(gerund(v)) + " " + n + " handling"}})
		}
		return "TodoWrite", obj{{"todos", todos}}, &claudeResult{
			content: "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable",
			extra:   obj{{"oldTodos", arr{}}, {"newTodos", todos}}}
	}
}

// hunk returns a structuredPatch entry for replacing oldS by newS at line at.
func hunk(oldS, newS string, at int) obj {
	var lines strs
	ol, nl := strings.Split(oldS, "\n"), strings.Split(newS, "\n")
	for _, l := range ol {
		lines = append(lines, "-"+l)
	}
	for _, l := range nl {
		lines = append(lines, "+"+l)
	}
	return obj{{"oldStart", at}, {"oldLines", len(ol)}, {"newStart", at}, {"newLines", len(nl)}, {"lines", lines}}
}

func prefixLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// compact writes an auto-compaction: a compact_boundary system line and the
// isCompactSummary user line; the prompt then restarts from the summary.
func (c *claudeWriter) compact() {
	a, r := c.a, c.r
	pre := a.cur
	ts := a.advance(45 * time.Second)
	b := uuid4(r)
	o := obj{{"parentUuid", nil}, {"logicalParentUuid", c.parent}, {"isSidechain", false}, {"userType", "external"},
		{"cwd", c.cwd}, {"sessionId", c.id}, {"version", c.version}, {"gitBranch", c.branch}}
	if c.slug != "" {
		o = append(o, kv{"slug", c.slug})
	}
	o = append(o, kv{"type", "system"}, kv{"subtype", "compact_boundary"}, kv{"content", "Conversation compacted"},
		kv{"isMeta", false}, kv{"timestamp", isoMillis(ts)}, kv{"uuid", b}, kv{"level", "info"},
		kv{"compactMetadata", obj{{"trigger", "auto"}, {"preTokens", pre}}})
	c.lw.write(o)
	c.parent = b
	summary := compactSummary(r, a.ws, c.path)
	u := uuid4(r)
	o = c.head()
	o = append(o, kv{"type", "user"}, kv{"message", obj{{"role", "user"}, {"content", summary}}},
		kv{"isVisibleInTranscriptOnly", true}, kv{"isCompactSummary", true}, kv{"uuid", u}, kv{"timestamp", isoMillis(ts)})
	c.lw.write(o)
	c.parent = u
	a.compactions++
	a.cur = a.p.sys + est(summary)
	a.last = 0
	c.cold = true
}

// promptTooLong writes the synthetic API-error message Claude Code logs
// when a request exceeds the context window.
func (c *claudeWriter) promptTooLong() {
	a, r := c.a, c.r
	ts := a.advance(2 * time.Second)
	o := c.head()
	o = append(o, kv{"type", "assistant"}, kv{"uuid", uuid4(r)}, kv{"timestamp", isoMillis(ts)},
		kv{"message", obj{{"id", uuid4(r)}, {"container", nil}, {"model", "<synthetic>"}, {"role", "assistant"},
			{"stop_reason", "stop_sequence"}, {"stop_sequence", ""}, {"type", "message"},
			{"usage", obj{{"input_tokens", 0}, {"output_tokens", 0}, {"cache_creation_input_tokens", 0}, {"cache_read_input_tokens", 0},
				{"server_tool_use", obj{{"web_search_requests", 0}, {"web_fetch_requests", 0}}}, {"service_tier", nil},
				{"cache_creation", obj{{"ephemeral_1h_input_tokens", 0}, {"ephemeral_5m_input_tokens", 0}}}}},
			{"content", arr{obj{{"type", "text"}, {"text", "Prompt is too long"}}}}}},
		kv{"isApiErrorMessage", true})
	c.lw.write(o)
}

func (c *claudeWriter) turnDuration() {
	u := uuid4(c.r)
	o := c.head()
	o = append(o, kv{"type", "system"}, kv{"subtype", "turn_duration"}, kv{"durationMs", c.a.now.Sub(c.turnAt).Milliseconds()},
		kv{"timestamp", isoMillis(c.a.now)}, kv{"uuid", u}, kv{"isMeta", false})
	c.lw.write(o)
	c.parent = u
}

// claudePath returns the transcript path relative to the output directory.
func claudePath(p *project, id string) string {
	return path.Join("claude-code", "projects", encodeCwd(p.root), id+".jsonl")
}
