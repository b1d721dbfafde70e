package synth

import (
	"fmt"
	"math/rand/v2"
	"path"
	"strconv"
	"strings"
	"time"
)

// Codex CLI: one rollout per session at
// codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl.
//
// Two dialects are generated, as found in real rollouts:
//   - legacy (cli 0.3x–0.4x): a "shell" tool whose arguments carry
//     {"command":["bash","-lc",…]} and whose output is a JSON string
//     {"output","metadata":{exit_code,duration_seconds}}; turn_context
//     before every model call.
//   - unified (cli 0.12x): "exec_command" {"cmd",…} with "Chunk ID / Wall
//     time / …" output headers, exec_command_end events, turn ids.
//
// Both use apply_patch as a custom tool call and update_plan.

const (
	codexWindow   = 272000
	overflowCodex = "Your input exceeds the context window of this model. Please adjust your input and try again."
)

var (
	codexModels       = []string{"gpt-5-codex", "gpt-5"}
	codexModelWeights = []int{65, 35}
	codexLegacyCLI    = []string{"0.39.0", "0.42.0", "0.46.0"}
	codexUnifiedCLI   = []string{"0.121.0", "0.125.0", "0.128.0"}
	codexBaseInstr    = "You are Codex, a coding agent based on GPT-5. You and the user share the same workspace and collaborate to achieve the user's goals.\n\n# General\n\n- When searching for text or files, prefer using `rg` or `rg --files` because `rg` is much faster than alternatives like `grep`.\n- Default to ASCII when editing or creating files.\n- Use the apply_patch tool to edit files.\n\n# Planning\n\nUse update_plan for non-trivial tasks with several steps.\n"
	codexPermissions  = "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. `sandbox_mode` is `workspace-write`: The sandbox permits reading files, and editing files in `cwd` and `writable_roots`. Editing files in other directories requires approval. Network access is restricted.\n</permissions instructions>"
	// Tool mix: sed/cat, rg, rg --files, tests, git/ls, apply_patch update, apply_patch add, update_plan.
	codexMix = [nKinds]int{34, 16, 6, 14, 8, 14, 4, 4}
)

type codexWriter struct {
	a       *agent
	r       *rand.Rand
	lw      *lineWriter
	legacy  bool
	model   string
	effort  string
	cwd     string
	turnID  string
	started time.Time
	total   [5]int // cumulative input, cached, output, reasoning, total
	rlPrim  float64
	rlSec   float64
}

// codexPath returns the rollout path for a session starting at t.
func codexPath(t time.Time, id string) string {
	t = t.UTC()
	return path.Join("codex", "sessions", t.Format("2006"), t.Format("01"), t.Format("02"),
		"rollout-"+t.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
}

// codexSession writes one Codex rollout to lw.
func codexSession(lw *lineWriter, spec sessionSpec, relPath string) FileInfo {
	r := spec.r
	ws := newWorkspace(spec.project)
	legacy := chance(r, 0.45)
	sys := between(r, 8000, 13000)
	if legacy {
		sys = between(r, 2200, 3200)
	}
	p := newPlan(r, codexWindow, sys, false, false, spec.scale)
	c := &codexWriter{
		a: newAgent(r, ws, p, codexMix, spec.start), r: r, lw: lw, legacy: legacy,
		model: codexModels[weighted(r, codexModelWeights)], effort: pick(r, []string{"medium", "high", "low"}),
		cwd: spec.project.root, rlPrim: r.Float64() * 30, rlSec: r.Float64() * 20,
	}
	c.a.noParallel = legacy
	hit := c.run(spec)
	return FileInfo{
		Path: relPath, Format: FormatCodexCLI, RunID: spec.id,
		Turns: c.a.n, ToolCalls: c.a.tools, HitsWindow: hit,
		InputTokens: c.a.in, OutputTokens: c.a.out,
	}
}

func (c *codexWriter) line(typ string, payload obj) {
	c.lw.write(obj{{"timestamp", isoMillis(c.a.now)}, {"type", typ}, {"payload", payload}})
}

func (c *codexWriter) item(payload obj)  { c.line("response_item", payload) }
func (c *codexWriter) event(payload obj) { c.line("event_msg", payload) }

func textMsg(role, kind, text string) obj {
	return obj{{"type", "message"}, {"role", role}, {"content", arr{obj{{"type", kind}, {"text", text}}}}}
}

func (c *codexWriter) run(spec sessionSpec) bool {
	a, r := c.a, c.r
	p := spec.project
	git := obj{{"commit_hash", randChars(r, hexDigits, 40)}, {"branch", p.branch}, {"repository_url", "git@github.com:acme/" + p.name + ".git"}}
	if c.legacy {
		c.line("session_meta", obj{{"id", spec.id}, {"timestamp", isoMillis(a.now)}, {"cwd", c.cwd},
			{"originator", pick(r, []string{"codex_cli_rs", "codex_vscode"})}, {"cli_version", pick(r, codexLegacyCLI)},
			{"instructions", nil}, {"git", git}})
	} else {
		c.line("session_meta", obj{{"id", spec.id}, {"timestamp", isoMillis(a.now)}, {"cwd", c.cwd},
			{"originator", pick(r, []string{"codex-tui", "codex_exec"})}, {"cli_version", pick(r, codexUnifiedCLI)},
			{"source", "cli"}, {"model_provider", "openai"}, {"base_instructions", obj{{"text", codexBaseInstr}}}, {"git", git}})
	}
	for {
		c.startTurn()
		if hit := c.turnLoop(); hit {
			return true
		}
		a.turn++
		if a.turn >= len(a.p.turnEnds) {
			return false
		}
		a.advance(2 * time.Minute)
	}
}

func (c *codexWriter) envContext() string {
	return "<environment_context>\n  <cwd>" + c.cwd + "</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>"
}

func (c *codexWriter) startTurn() {
	a, r := c.a, c.r
	c.turnID = uuid7(r, a.now)
	c.started = a.now
	first := a.turn == 0
	prompt := userPrompt(r, a.ws, !first)
	if c.legacy {
		c.event(obj{{"type", "task_started"}, {"model_context_window", codexWindow}})
		if first {
			env := c.envContext()
			c.item(textMsg("user", "input_text", env))
			a.add(est(env))
		}
		c.item(textMsg("user", "input_text", prompt))
		c.event(obj{{"type", "user_message"}, {"message", prompt}, {"kind", "plain"}})
	} else {
		c.event(obj{{"type", "task_started"}, {"turn_id", c.turnID}, {"started_at", a.now.Unix()}, {"model_context_window", codexWindow}, {"collaboration_mode_kind", "default"}})
		if first {
			env := c.envContext()
			c.item(textMsg("developer", "input_text", codexPermissions))
			c.item(textMsg("user", "input_text", env))
			a.add(est(codexPermissions) + est(env))
		}
		c.item(textMsg("user", "input_text", prompt))
		c.event(obj{{"type", "user_message"}, {"message", prompt}, {"images", arr{}}, {"local_images", arr{}}, {"text_elements", arr{}}})
		c.line("turn_context", obj{{"turn_id", c.turnID}, {"cwd", c.cwd}, {"current_date", a.now.Format("2006-01-02")}, {"timezone", "UTC"},
			{"approval_policy", "on-request"}, {"sandbox_policy", obj{{"type", "workspace-write"}, {"writable_roots", arr{}}, {"network_access", false},
				{"exclude_tmpdir_env_var", false}, {"exclude_slash_tmp", false}}}, {"model", c.model}, {"effort", c.effort}, {"summary", "auto"}})
	}
	a.add(est(prompt))
}

// codexCall is one rendered tool call.
type codexCall struct {
	item    obj // function_call or custom_tool_call
	output  obj // the matching *_output item
	end     obj // exec_command_end / patch_apply_end event, or nil
	visible int // tokens the call adds (name + arguments)
	outTok  int // tokens the output adds
	kind    kind
}

// turnLoop runs model calls until the turn's final answer; it reports an
// overflow.
func (c *codexWriter) turnLoop() bool {
	a, r := c.a, c.r
	for {
		if c.legacy {
			c.line("turn_context", obj{{"cwd", c.cwd}, {"approval_policy", "on-request"}, {"sandbox_policy", obj{{"mode", "workspace-write"}}},
				{"model", c.model}, {"effort", c.effort}, {"summary", "auto"}})
		}
		if a.overflowing() {
			a.advance(1500 * time.Millisecond)
			c.event(obj{{"type", "error"}, {"message", overflowCodex}})
			c.taskComplete(nil)
			return true
		}
		s := a.next()
		title := reasoningTitle(r)
		var msg string
		var calls []codexCall
		visible := 0 // the reasoning summary is billed as reasoning, not carried forward
		if s.final {
			msg = finalAnswer(r, a.ws, a.edited)
		} else {
			if s.preface {
				msg = preface(r, c.target(s.actions[0]))
			}
			for _, ac := range s.actions {
				cc := c.tool(ac)
				calls = append(calls, cc)
				visible += cc.visible
			}
		}
		if msg != "" {
			visible += est(msg)
		}
		hidden := a.hiddenTokens("")
		out := a.outputTokens(visible, hidden)
		usage := c.usage(out, max(0, out-visible))
		a.advance(modelTime(out))
		a.called(out)
		a.add(visible)
		reasoning := obj{{"type", "reasoning"}, {"summary", arr{obj{{"type", "summary_text"}, {"text", title}}}}, {"content", nil},
			{"encrypted_content", "gAAAAAB" + randChars(r, b64url, min(6000, 120+4*hidden))}}
		phase := "commentary"
		if s.final {
			phase = "final_answer"
		}
		if c.legacy {
			c.event(obj{{"type", "agent_reasoning"}, {"text", title}})
			c.event(usage)
			c.item(reasoning)
			if msg != "" {
				c.event(obj{{"type", "agent_message"}, {"message", msg}})
				c.item(textMsg("assistant", "output_text", msg))
			}
		} else {
			c.item(reasoning)
			if msg != "" {
				c.event(obj{{"type", "agent_message"}, {"message", msg}, {"phase", phase}, {"memory_citation", nil}})
				m := textMsg("assistant", "output_text", msg)
				c.item(append(m, kv{"phase", phase}))
			}
		}
		for _, cc := range calls {
			c.item(cc.item)
		}
		if !c.legacy {
			c.event(usage)
		}
		for _, cc := range calls {
			a.advance(toolTime(cc.kind))
			c.item(cc.output)
			if cc.end != nil {
				c.event(cc.end)
			}
			a.add(cc.outTok)
			a.tools++
		}
		if s.final {
			c.taskComplete(msg)
			return false
		}
	}
}

func (c *codexWriter) taskComplete(last any) {
	a := c.a
	if c.legacy {
		c.event(obj{{"type", "task_complete"}, {"last_agent_message", last}})
		return
	}
	c.event(obj{{"type", "task_complete"}, {"turn_id", c.turnID}, {"last_agent_message", last}, {"completed_at", a.now.Unix()},
		{"duration_ms", a.now.Sub(c.started).Milliseconds()}})
}

// usage returns the token_count event for a call producing out tokens of
// which reasoning are reasoning tokens; the prompt is c.a.cur.
func (c *codexWriter) usage(out, reasoning int) obj {
	a := c.a
	in := a.cur
	cached := floor128(a.last)
	if a.last == 0 && chance(c.r, 0.7) {
		cached = floor128(a.p.sys)
	}
	last := [5]int{in, cached, out, reasoning, in + out}
	for i := range c.total {
		c.total[i] += last[i]
	}
	u := func(v [5]int) obj {
		return obj{{"input_tokens", v[0]}, {"cached_input_tokens", v[1]}, {"output_tokens", v[2]}, {"reasoning_output_tokens", v[3]}, {"total_tokens", v[4]}}
	}
	info := obj{{"total_token_usage", u(c.total)}, {"last_token_usage", u(last)}, {"model_context_window", codexWindow}}
	c.rlPrim = min(100, c.rlPrim+c.r.Float64()*0.4)
	c.rlSec = min(100, c.rlSec+c.r.Float64()*0.1)
	var rl any
	if c.legacy {
		rl = obj{{"primary_used_percent", round1(c.rlPrim)}, {"secondary_used_percent", round1(c.rlSec)}, {"primary_to_secondary_ratio_percent", round1(c.rlPrim / 3)},
			{"primary_window_minutes", 299}, {"secondary_window_minutes", 10079}}
	} else {
		rl = obj{{"limit_id", "codex"}, {"limit_name", nil},
			{"primary", obj{{"used_percent", round1(c.rlPrim)}, {"window_minutes", 300}, {"resets_at", a.now.Unix() + 3600}}},
			{"secondary", obj{{"used_percent", round1(c.rlSec)}, {"window_minutes", 10080}, {"resets_at", a.now.Unix() + 86400*3}}},
			{"credits", nil}, {"plan_type", "plus"}, {"rate_limit_reached_type", nil}}
	}
	return obj{{"type", "token_count"}, {"info", info}, {"rate_limits", rl}}
}

func round1(x float64) float64 { return float64(int(x*10)) / 10 }

func (c *codexWriter) target(ac action) string {
	if ac.file != nil {
		return ac.file.path
	}
	return "the repository"
}

// tool renders an action as a Codex tool call with its output.
func (c *codexWriter) tool(ac action) codexCall {
	a, r, ws := c.a, c.r, c.a.ws
	id := callID(r)
	switch ac.kind {
	case kEdit, kWrite:
		var patch, summary string
		exit := 0
		switch {
		case ac.kind == kWrite:
			f := ws.create(r, 200)
			content := a.writeContent(f, ac.size)
			patch = "*** Begin Patch\n*** Add File: " + f.path + "\n+" + strings.ReplaceAll(content, "\n", "\n+") + "\n*** End Patch\n"
			summary = "Success. Updated the following files:\nA " + f.path + "\n"
			a.noteEdit(f.path)
		case ac.fail:
			f := ac.file
			old := ws.coderLine(r)
			patch = "*** Begin Patch\n*** Update File: " + f.path + "\n@@\n-" + old + "\n+" + ws.coderLine(r) + "\n*** End Patch\n"
			summary = "Failed to find expected lines in " + f.path + ":\n" + old
			exit = 1
		default:
			f := ac.file
			oldS, newS, _ := ws.edit(r, f)
			patch = "*** Begin Patch\n*** Update File: " + f.path + "\n@@\n-" + strings.ReplaceAll(oldS, "\n", "\n-") + "\n+" + strings.ReplaceAll(newS, "\n", "\n+") + "\n*** End Patch\n"
			summary = "Success. Updated the following files:\nM " + f.path + "\n"
			a.noteEdit(f.path)
		}
		out := encode(obj{{"output", summary}, {"metadata", obj{{"exit_code", exit}, {"duration_seconds", round1(r.Float64())}}}})
		cc := codexCall{
			item:    obj{{"type", "custom_tool_call"}, {"status", "completed"}, {"call_id", id}, {"name", "apply_patch"}, {"input", patch}},
			output:  obj{{"type", "custom_tool_call_output"}, {"call_id", id}, {"output", out}},
			visible: est("apply_patch") + est(patch), outTok: est(out), kind: ac.kind,
		}
		if !c.legacy {
			cc.end = obj{{"type", "patch_apply_end"}, {"call_id", id}, {"turn_id", c.turnID}, {"stdout", summary}, {"stderr", ""}, {"success", exit == 0}}
		}
		return cc
	case kPlan:
		plan := arr{}
		for i := range between(r, 2, 5) {
			st := "pending"
			if i == 0 {
				st = "in_progress"
			}
			plan = append(plan, obj{{"step", title(pick(r, verbs)) + " the " + pick(r, nouns) + " " + pick(r, []string{"handling", "tests", "service", "schema"})}, {"status", st}})
		}
		args := encode(obj{{"plan", plan}})
		return codexCall{
			item:    obj{{"type", "function_call"}, {"name", "update_plan"}, {"arguments", args}, {"call_id", id}},
			output:  obj{{"type", "function_call_output"}, {"call_id", id}, {"output", "Plan updated"}},
			visible: est("update_plan") + est(args), outTok: est("Plan updated"), kind: kPlan,
		}
	}
	cmd, out, exit := c.command(ac)
	dur := toolTime(ac.kind)
	if c.legacy {
		argv := obj{{"command", strs{"bash", "-lc", cmd}}, {"workdir", c.cwd}}
		if ac.kind == kTest {
			argv = append(argv, kv{"timeout_ms", 120000})
		}
		args := encode(argv)
		output := encode(obj{{"output", out}, {"metadata", obj{{"exit_code", exit}, {"duration_seconds", round1(dur.Seconds() * (0.5 + r.Float64()))}}}})
		return codexCall{
			item:    obj{{"type", "function_call"}, {"name", "shell"}, {"arguments", args}, {"call_id", id}},
			output:  obj{{"type", "function_call_output"}, {"call_id", id}, {"output", output}},
			visible: est("shell") + est(args), outTok: est(output), kind: ac.kind,
		}
	}
	maxOut := 12000
	if len(out) > 40000 {
		maxOut = 24000
	}
	args := encode(obj{{"cmd", cmd}, {"workdir", c.cwd}, {"yield_time_ms", 10000}, {"max_output_tokens", maxOut}})
	wall := dur.Seconds() * (0.5 + r.Float64())
	output := fmt.Sprintf("Chunk ID: %s\nWall time: %.4f seconds\nProcess exited with code %d\nOriginal token count: %d\nOutput:\n%s",
		randChars(r, hexDigits, 6), wall, exit, (len(out)+3)/4, out)
	secs := int(wall)
	return codexCall{
		item:   obj{{"type", "function_call"}, {"name", "exec_command"}, {"arguments", args}, {"call_id", id}},
		output: obj{{"type", "function_call_output"}, {"call_id", id}, {"output", output}},
		end: obj{{"type", "exec_command_end"}, {"call_id", id}, {"process_id", strconv.Itoa(between(r, 1000, 99999))}, {"turn_id", c.turnID},
			{"command", strs{"/bin/bash", "-lc", cmd}}, {"cwd", c.cwd}, {"source", "unified_exec_startup"}, {"stdout", ""}, {"stderr", ""},
			{"aggregated_output", out}, {"exit_code", exit}, {"duration", obj{{"secs", secs}, {"nanos", int((wall - float64(secs)) * 1e9)}}}},
		visible: est("exec_command") + est(args), outTok: est(output), kind: ac.kind,
	}
}

// command returns a shell command for a read-like action, its output and
// exit code.
func (c *codexWriter) command(ac action) (cmd, out string, exit int) {
	r, ws := c.r, c.a.ws
	switch ac.kind {
	case kRead:
		f := ac.file
		if ac.start == 1 && ac.end == len(ws.text(f)) && chance(r, 0.4) {
			return "cat " + f.path, ws.slice(f, 1, ac.end), 0
		}
		return fmt.Sprintf("sed -n '%d,%dp' %s", ac.start, ac.end, f.path), ws.slice(f, ac.start, ac.end), 0
	case kGrep:
		dir := "src"
		if ws.p.lang == langGo {
			dir = "."
		}
		out, _ := grepOutput(r, ws, ac.pattern, ac.size, true)
		return "rg -n \"" + ac.pattern + "\" " + dir, out, 0
	case kGlob:
		paths := globOutput(r, ws, max(1, ac.size/40), false)
		return pick(r, []string{"rg --files | head -n 80", "rg --files src", "find . -name '*" + ws.p.lang.ext() + "' -not -path './node_modules/*'"}), strings.Join(paths, "\n"), 0
	case kTest:
		if ac.fail {
			return testCommand(r, ws), testLog(r, ws, ac.size, true), 1
		}
		return testCommand(r, ws), testLog(r, ws, ac.size, false), 0
	}
	cmd, out = shellMisc(r, ws, ac.size)
	return cmd, out, 0
}
