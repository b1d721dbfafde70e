package synth

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// OpenAI chat messages: one run per line of openai/runs.jsonl:
//
//	{"run_id", "model", "window_tokens", "messages":[…], "usage":[…], "outcome":{"resolved","end_reason"}}
//
// usage has one entry per assistant message, in order.

const (
	openaiWindow = 128000
	openaiPath   = "openai/runs.jsonl"
	pDTOC        = 1.0 / 3
)

var (
	openaiModels       = []string{"gpt-4.1", "gpt-4o", "gpt-4.1-mini", "deepseek-chat", "gpt-4o-mini"}
	openaiModelWeights = []int{35, 25, 15, 15, 10}
	// Tool mix: read_file, grep, -, run_tests, -, edit_file, edit_file (create), -.
	openaiMix = [nKinds]int{40, 18, 0, 20, 0, 18, 4, 0}
)

// dtocEnvelope is the DTOC wrapper around every tool result.
func dtocEnvelope(key, result string) string {
	return encode(obj{{"tool_key", key}, {"tool_result", result}, {"estimated_tokens", (utf8.RuneCountInString(result) + 3) / 4}})
}

// dtocStub is what a disabled tool result costs in later prompts: the
// envelope with its result replaced by "[disabled]".
func dtocStub(key, result string) string {
	return encode(obj{{"tool_key", key}, {"tool_result", "[disabled]"}, {"estimated_tokens", (utf8.RuneCountInString(result) + 3) / 4}})
}

// oitem is the token bookkeeping for one message.
type oitem struct {
	tok      int
	stub     int // tokens when disabled (DTOC)
	key      string
	tool     string
	call     int // model call that produced it
	disabled bool
	est4     int      // DTOC estimated_tokens of the result: ceil(runes/4)
	file     *srcFile // the file a read or edit acted on, else nil
}

type openaiWriter struct {
	a          *agent
	r          *rand.Rand
	dtoc       bool
	msgs       arr
	items      []oitem
	usage      arr
	changed    int // first item whose contribution changed since the last call; -1 none
	keys       int
	manages    int
	lastManage int

	// planted reuse (Options.PlantReuse; see reuse.go), nil without
	plant *reusePlant

	// planted behaviour (profiled runs only; see profiled.go)
	prof     *Profile
	credit   float64
	pending  []reEnable
	disables int
	enables  int
}

// openaiRun generates one run and returns its JSON line. A non-nil prof
// makes it a DTOC run of that behaviour profile, logged under prof.Model.
func openaiRun(spec sessionSpec, prof *Profile, reuse bool) (obj, FileInfo, *openaiWriter) {
	r := spec.r
	ws := newWorkspace(spec.project)
	dtoc := chance(r, pDTOC)
	model := openaiModels[weighted(r, openaiModelWeights)]
	if prof != nil {
		dtoc, model = true, prof.Model
	}
	p := newPlan(r, openaiWindow, between(r, 900, 1500), false, dtoc, spec.scale)
	if dtoc {
		p.calls = max(p.calls, 8)
	}
	if prof != nil {
		p.calls = max(p.calls, profiledMinCalls)
	}
	p.turnEnds = []int{p.calls}
	w := &openaiWriter{a: newAgent(r, ws, p, openaiMix, spec.start), r: r, dtoc: dtoc, changed: -1, prof: prof}
	if prof != nil {
		w.credit = r.Float64()
	}
	if reuse {
		w.plant = newReusePlant(r)
	}
	outcome := w.run()
	line := obj{{"run_id", spec.id}, {"model", model}, {"window_tokens", openaiWindow}, {"messages", w.msgs}, {"usage", w.usage}, {"outcome", outcome}}
	fi := FileInfo{
		Path: openaiPath, Format: FormatOpenAIMessages, RunID: spec.id,
		Turns: w.a.n, ToolCalls: w.a.tools, DTOC: dtoc, HitsWindow: outcome[1].v == "context_overflow",
		InputTokens: w.a.in, OutputTokens: w.a.out,
	}
	if prof != nil {
		fi.Profile = prof.Name
	}
	return line, fi, w
}

func (w *openaiWriter) systemPrompt() string {
	s := "You are an autonomous software engineering agent working in the repository at " + w.a.ws.p.root + ".\n" +
		"Use the tools to inspect and change the code. Run the tests before you finish. " +
		"Keep changes minimal and explain what you changed in your final message.\n\n" +
		"Tools: read_file(path, start_line?, end_line?), grep(pattern, path), run_tests(command), edit_file(path, old_str, new_str)."
	if w.dtoc {
		s += "\n\nContext management: every tool result is returned as a JSON object {\"tool_key\", \"tool_result\", \"estimated_tokens\"}. " +
			"Call manage_context with {\"enable\": [keys], \"disable\": [keys]} to remove tool results you no longer need from your context, " +
			"or to bring back a result you disabled earlier. Disabled results cost almost nothing."
	}
	return s
}

func (w *openaiWriter) push(m obj, it oitem) {
	w.msgs = append(w.msgs, m)
	w.items = append(w.items, it)
	w.a.add(it.tok)
}

func (w *openaiWriter) run() obj {
	a, r := w.a, w.r
	sys := w.systemPrompt()
	w.push(obj{{"role", "system"}, {"content", sys}}, oitem{tok: est(sys)})
	task := userPrompt(r, a.ws, false)
	w.push(obj{{"role", "user"}, {"content", task}}, oitem{tok: est(task)})
	for {
		if a.overflowing() {
			return obj{{"resolved", false}, {"end_reason", "context_overflow"},
				{"error", "This model's maximum context length is " + strconv.Itoa(openaiWindow) + " tokens. However, your messages resulted in " + strconv.Itoa(a.cur) + " tokens. Please reduce the length of the messages."}}
		}
		if w.prof != nil {
			if w.profiledManage() {
				continue
			}
		} else if w.dtoc && w.shouldManage() {
			w.manage()
			continue
		}
		s := a.next()
		if s.final {
			if !w.dtoc && chance(r, 0.05) {
				return obj{{"resolved", false}, {"end_reason", "step_limit"}}
			}
			text := finalAnswer(r, a.ws, a.edited)
			tok := est(text)
			w.call(a.outputTokens(tok, a.hiddenTokens("")))
			w.push(obj{{"role", "assistant"}, {"content", text}}, oitem{tok: tok, call: a.n})
			return obj{{"resolved", chance(r, 0.6)}, {"end_reason", "finished"}}
		}
		var content any
		tok := 0
		if s.preface {
			t := preface(r, "the code")
			if s.actions[0].file != nil {
				t = preface(r, s.actions[0].file.path)
			}
			content, tok = t, est(t)
		}
		if w.plant != nil {
			if m := w.plant.mention(a.n); m != "" {
				if t, ok := content.(string); ok {
					m = t + " " + m
				}
				content, tok = m, est(m)
			}
		}
		type result struct {
			id, name, out string
			file          *srcFile
		}
		var calls arr
		var results []result
		for _, ac := range s.actions {
			name, args, out := w.tool(ac)
			id := callID(r)
			calls = append(calls, obj{{"id", id}, {"type", "function"}, {"function", obj{{"name", name}, {"arguments", args}}}})
			results = append(results, result{id, name, out, ac.file})
			tok += est(name) + est(args)
		}
		if w.plant != nil {
			for _, x := range w.plant.extra(a.n) {
				id := callID(r)
				calls = append(calls, obj{{"id", id}, {"type", "function"}, {"function", obj{{"name", x.name}, {"arguments", x.args}}}})
				results = append(results, result{id, x.name, x.out, nil})
				tok += est(x.name) + est(x.args)
			}
		}
		w.call(a.outputTokens(tok, a.hiddenTokens("")))
		w.push(obj{{"role", "assistant"}, {"content", content}, {"tool_calls", calls}}, oitem{tok: tok, call: a.n})
		for _, res := range results {
			w.toolMessage(res.id, res.name, res.out)
			w.items[len(w.items)-1].file = res.file
		}
	}
}

// call records a model call with the current prompt and appends its usage.
func (w *openaiWriter) call(out int) {
	a := w.a
	cached := 0
	if a.last > 0 {
		prefix := a.last
		if w.changed >= 0 {
			prefix = a.p.sys
			for _, it := range w.items[:w.changed] {
				prefix += it.contrib()
			}
		}
		if cached = floor128(min(prefix, a.last)); cached < 1024 {
			cached = 0
		}
	}
	w.changed = -1
	w.usage = append(w.usage, obj{{"prompt_tokens", a.cur}, {"completion_tokens", out}, {"total_tokens", a.cur + out},
		{"prompt_tokens_details", obj{{"cached_tokens", cached}}}})
	a.called(out)
}

func (it oitem) contrib() int {
	if it.disabled {
		return it.stub
	}
	return it.tok
}

// toolMessage appends a tool result (wrapped in the DTOC envelope for DTOC runs).
func (w *openaiWriter) toolMessage(id, name, out string) {
	w.a.tools++
	it := oitem{tool: name, call: w.a.n}
	content := out
	if w.dtoc {
		w.keys++
		it.key = name + "_" + strconv.Itoa(w.keys)
		it.est4 = (utf8.RuneCountInString(out) + 3) / 4
		content = dtocEnvelope(it.key, out)
		it.stub = est(dtocStub(it.key, out))
	}
	it.tok = est(content)
	w.push(obj{{"role", "tool"}, {"tool_call_id", id}, {"content", content}}, it)
}

// candidates returns enabled tool results older than the last two calls that
// are worth disabling, biggest first.
func (w *openaiWriter) candidates() []int {
	var idx []int
	for i, it := range w.items {
		if it.key != "" && !it.disabled && it.tool != "manage_context" && it.call <= w.a.n-2 && it.tok >= 600 {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(x, y int) int { return cmp.Compare(w.items[y].tok, w.items[x].tok) })
	return idx
}

func (w *openaiWriter) shouldManage() bool {
	a, r := w.a, w.r
	if len(w.candidates()) == 0 {
		return false
	}
	if w.manages == 0 && (a.n+1 >= a.p.turnEnds[0] || a.n >= a.p.calls/2 || a.budget() < 20000) {
		return true // every DTOC run manages its context at least once
	}
	if a.n-w.lastManage < 3 {
		return false
	}
	if a.cur > a.p.window*35/100 {
		return chance(r, 0.6)
	}
	return chance(r, 0.1)
}

// manage makes a manage_context call: disable the biggest old outputs and
// now and then re-enable one disabled earlier.
func (w *openaiWriter) manage() {
	a, r := w.a, w.r
	cands := w.candidates()
	var disable, enable strs
	var off, on []int
	for _, i := range cands[:between(r, 1, min(4, len(cands)))] {
		disable = append(disable, w.items[i].key)
		off = append(off, i)
	}
	if chance(r, 0.25) {
		for i := len(w.items) - 1; i >= 0; i-- {
			if it := w.items[i]; it.disabled && it.tool == "read_file" {
				enable = append(enable, it.key)
				on = append(on, i)
				break
			}
		}
	}
	if enable == nil {
		enable = strs{}
	}
	id := w.manageCall(enable, disable, len(on) > 0, "Dropping old tool outputs I no longer need to keep the context small.",
		"I need the earlier file contents again; re-enabling them and dropping outputs I'm done with.")
	freed := 0
	for _, i := range off {
		freed += w.items[i].tok - w.items[i].stub
	}
	res := "Disabled " + strings.Join(disable, ", ") + " (" + strconv.Itoa(freed) + " tokens freed)."
	if len(enable) > 0 {
		res += " Enabled " + strings.Join(enable, ", ") + "."
	}
	w.toolMessage(id, "manage_context", res)
	for _, i := range off {
		w.setDisabled(i, true)
	}
	for _, i := range on {
		w.setDisabled(i, false)
	}
	w.manages++
	w.lastManage = a.n
}

// manageCall writes the assistant's manage_context call enabling and
// disabling the keys given; half the time its text says why (drop, or again
// when it re-enables). It returns the call's id.
func (w *openaiWriter) manageCall(enable, disable strs, reenables bool, drop, again string) string {
	a, r := w.a, w.r
	args := encode(obj{{"enable", enable}, {"disable", disable}})
	var content any
	tok := est("manage_context") + est(args)
	if chance(r, 0.5) {
		t := drop
		if reenables {
			t = again
		}
		content, tok = t, tok+est(t)
	}
	id := callID(r)
	w.call(a.outputTokens(tok, a.hiddenTokens("")))
	w.push(obj{{"role", "assistant"}, {"content", content}, {"tool_calls", arr{obj{{"id", id}, {"type", "function"},
		{"function", obj{{"name", "manage_context"}, {"arguments", args}}}}}}}, oitem{tok: tok, call: a.n})
	return id
}

func (w *openaiWriter) setDisabled(i int, off bool) {
	it := &w.items[i]
	if it.disabled == off {
		return
	}
	if off {
		w.a.cur -= it.tok - it.stub
	} else {
		w.a.cur += it.tok - it.stub
	}
	it.disabled = off
	if w.changed < 0 || i < w.changed {
		w.changed = i
	}
}

// tool renders an action as an OpenAI function call; it returns the tool
// name, the arguments JSON and the tool's output.
func (w *openaiWriter) tool(ac action) (name, args, out string) {
	a, r, ws := w.a, w.r, w.a.ws
	switch ac.kind {
	case kRead:
		f := ac.file
		o := obj{{"path", f.path}}
		if ac.start != 1 || ac.end != len(ws.text(f)) {
			o = append(o, kv{"start_line", ac.start}, kv{"end_line", ac.end})
		}
		return "read_file", encode(o), ws.slice(f, ac.start, ac.end)
	case kGrep, kGlob:
		out, _ := grepOutput(r, ws, ac.pattern, ac.size, true)
		return "grep", encode(obj{{"pattern", ac.pattern}, {"path", "."}}), out
	case kTest, kShell:
		cmd := testCommand(r, ws)
		log := testLog(r, ws, ac.size, ac.fail)
		if ac.fail {
			log += "\n[exit code 1]"
		}
		return "run_tests", encode(obj{{"command", cmd}}), log
	case kWrite:
		f := ws.create(r, 200)
		content := a.writeContent(f, ac.size)
		a.noteEdit(f.path)
		return "edit_file", encode(obj{{"path", f.path}, {"old_str", ""}, {"new_str", content}}), "Created " + f.path + " (" + strconv.Itoa(len(f.lines)) + " lines)."
	default: // kEdit, kPlan
		f := ac.file
		if f == nil {
			f = ws.pickFile(r, false)
		}
		if ac.fail {
			old := ws.coderLine(r)
			return "edit_file", encode(obj{{"path", f.path}, {"old_str", old}, {"new_str", ws.coderLine(r)}}), "Error: old_str not found in " + f.path + "."
		}
		oldS, newS, at := ws.edit(r, f)
		a.noteEdit(f.path)
		return "edit_file", encode(obj{{"path", f.path}, {"old_str", oldS}, {"new_str", newS}}),
			"Edited " + f.path + ": replaced " + strconv.Itoa(strings.Count(oldS, "\n")+1) + " line(s) at line " + strconv.Itoa(at) + " with " + strconv.Itoa(strings.Count(newS, "\n")+1) + "."
	}
}
