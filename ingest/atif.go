package ingest

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// atif reads Harbor's Agent Trajectory Interchange Format (ATIF-v1.x,
// <trial>/agent/trajectory*.json) and Harbor's traces export (per-episode
// SFT records, *.traces.json / .jsonl), one run per trajectory or trial.
//
// A trajectory is one JSON object {schema_version, session_id, agent, steps,
// final_metrics, continued_trajectory_ref?, notes?, extra?,
// subagent_trajectories?}. Steps per trajectory:
//  1. Decode the document; a file that is not JSON is one reject at the
//     line of the syntax error. Each step is decoded on its own: a step that
//     does not decode is rejected (at its line) and the others import.
//  2. Name the run. A continuation file (agent.extra.continuation_index, or
//     *.trajectory.cont-N.json; Harbor's linear_history mode) sitting beside
//     its root trajectory is joined into the root's run (see Continuations
//     below). One without its root beside it is run <root>/cont-N, and a
//     summarization sub-trajectory (agent.extra parent_session_id +
//     summarization_index, or *.trajectory.summarization-N-<part>.json) is
//     <root>/summarization-N-<part>, where <root> is the root trajectory's
//     session id (Harbor names a continuation's session <root>-cont-N); both
//     have parent_run_id set to the run they continue or summarise (for the
//     summarization of a joined continuation: the root's run). Any other
//     trajectory is its session_id (else trajectory_id, else the file name).
//     Embedded subagent_trajectories (ATIF-v1.7) are runs of their own with
//     this run as parent.
//  3. Steps marked is_copied_context repeat context that another file
//     already holds (the history handed to a summariser, or the compacted
//     history a continuation starts from). Each block of them is stored once,
//     as one hand-off event whose text is the copied context: kind compaction
//     with a continuation op in a continuation, kind context_op with a summary
//     op in a summarization sub-trajectory. A continuation or summarization
//     file without copied steps still starts with its hand-off event and op.
//     A continuation's op has tokens_after, the prompt_tokens of its first
//     model call, and, when joined, tokens_before, the last prompt_tokens of
//     the files before it.
//  4. agent.tool_definitions, when logged, → one system event with role
//     tools before the steps (ToolDefinitions; a joined run takes the root's).
//     user → user; system → system, except a context-management step (one
//     whose observation references summarization sub-trajectories, or with
//     extra.context_management) → a compaction event and a compaction op
//     whose tokens_before / tokens_after are the prompt_tokens of the last
//     model call before it and the first one after it in the same file;
//     agent → one model call (RunBuilder.NewCall; llm_call_count 0, a
//     deterministic dispatch, begins none; llm_call_count > 1 is still one
//     call, whose metrics are the sum): reasoning_content → reasoning,
//     message → assistant, tool_calls → tool_call, metrics → the call's usage
//     (prompt_tokens includes cached_tokens, as the spec says), then
//     observation.results → tool_result linked by source_call_id, else by
//     position (terminus-2 logs one terminal output for a batch of
//     keystrokes and omits the id).
//  5. End reason: an exception recorded in notes or extra (e.g. Harbor's
//     AgentTimeoutError) is explicit; terminus-2's confirmed completion (the
//     last two model calls both mark the task complete) is finished. A
//     trajectory continued in a file that is not joined ends unknown with
//     the reference as detail; a joined run ends as its last file does. A
//     plain trajectory (not joined) whose final_metrics count more tokens
//     than its steps stopped inside a step whose call was billed but never
//     recorded: Harbor keeps agent timeouts in the trial's result.json only,
//     so this is interrupted, inferred.
//  6. Run cost is the sum of the steps' cost_usd. Without any step metrics,
//     final_metrics become the run totals (no usage rows); in a joined run
//     those of the last file (Harbor's count the trial so far, including
//     the earlier files).
//
// Every event of a step carries the line where the step starts, in the file
// that holds the step.
//
// Continuations: importing a root trajectory file <stem>.json (one that is
// neither a continuation nor a summarization; Harbor: trajectory.json) also
// reads <stem>.cont-1.json, <stem>.cont-2.json … beside it (f.Path()'s
// directory), in numeric order up to the first number without a file, and
// imports their steps into the same run after the root's, so the run has one
// seq and turn numbering. Each continuation starts with its hand-off event
// and continuation op (steps 3, 5, 6 say what comes from which file). The
// events of a continuation keep their line within its own file, and its
// rejects (line also within its file) have reasons starting with its file
// name. A continuation file that cannot be read or is not an ATIF
// continuation is left out and imports on its own. Importing a continuation
// file whose root (and all continuations numbered before it) sit beside it
// adds nothing, since the root's import holds it. One file is one import:
// the files joined are those on disk when the root is imported, and a
// continuation written after its root was imported is in no run until the
// root is imported again (e.g. into a new database).
//
// Traces (Harbor `traces export`): each record {conversations:[{role,
// content}], agent, model, task, episode, run_id, trial_name, result} is the
// whole prompt of one model call plus its response. Records are grouped into
// one run per trial (trial_name, else run_id and task) and each message is
// stored once: an episode adds the messages beyond the longest prefix it
// shares with the previous episode; when it does not extend it (Harbor reset
// the chat after summarising) a compaction event and op come first.
// Assistant content is split into <think> reasoning, <tool_call> JSON calls
// and text; the user message after calls is their tool_result (linked by
// position: no ids). result is the trial's reward (→ resolved when 0 or 1)
// or its exception (→ explicit end reason). Traces have no usage.
type atif struct{ formatInfo }

var (
	atifVersionRe = regexp.MustCompile(`"schema_version"\s*:\s*"ATIF-v\d`)
	atifEpisodeRe = regexp.MustCompile(`"episode"\s*:\s*"episode-\d+"`)
)

// Detect accepts a JSON object whose top-level schema_version names ATIF
// (Harbor writes it first), or traces:
// a JSON array (or JSONL) whose first record starts with a "conversations"
// key and carries an "episode": "episode-N" (or, when the head ends before
// that key, a *.traces.json(l) name).
func (atif) Detect(name string, head []byte) bool {
	h := bytes.TrimLeft(bytes.TrimPrefix(head, utf8BOM), " \t\r\n")
	if len(h) == 0 {
		return false
	}
	if h[0] == '{' && atifVersionRe.Match(h) {
		return atifTopLevel(h, "schema_version")
	}
	rec := 0
	if h[0] == '[' {
		rec = jsonWS(h, 1)
	}
	firstKey := ""
	jsonEachField(h, rec, func(key []byte, _ int) bool {
		firstKey = string(key)
		return false
	})
	if firstKey != "conversations" {
		return false
	}
	lower := strings.ToLower(name)
	return atifEpisodeRe.Match(h) || strings.HasSuffix(lower, ".traces.json") || strings.HasSuffix(lower, ".traces.jsonl")
}

// atifTopLevel reports whether key is a member of the object that starts b
// (as far as b goes).
func atifTopLevel(b []byte, key string) bool {
	found := false
	jsonEachField(b, 0, func(k []byte, _ int) bool {
		found = string(k) == key
		return !found
	})
	return found
}

// Import reads the whole file: a JSON object with steps is a trajectory, a
// JSON array or JSONL of records with conversations is a traces export. A
// root trajectory also reads the continuation files beside it, and a
// continuation file that its root's import holds imports nothing (see the
// type doc).
func (atif) Import(f *File, r io.Reader) error {
	whole, err := readDocument(f, r)
	if err != nil {
		return err
	}
	data := bytes.TrimPrefix(whole.data, utf8BOM)
	start := jsonWS(data, 0)
	if start >= len(data) {
		return nil
	}
	lines := newLineIndex(data)
	if data[start] == '[' {
		return harborTraces(f, data, lines)
	}
	if data[start] != '{' {
		return f.Reject(1, "expected an ATIF trajectory object or a traces array", data)
	}
	var doc atifDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		if atifIsJSONL(data, start) {
			return harborTraces(f, data, lines)
		}
		err = exactSyntaxErr(err, data)
		return f.Reject(decodeErrLine(err, data, lines), "invalid JSON: "+decodeErrText(err), data)
	}
	if doc.Steps == nil && doc.Conversations != nil {
		return harborTraces(f, data, lines) // one traces record
	}
	p := &atifPart{data: data, lines: lines, start: start, doc: &doc}
	p.decodeAgent()
	p.id = atifIdentify(f.Path(), &doc, &p.agent)
	if p.id.kind == atifContinuation && atifJoined(f.Path()) {
		return nil // imported with the root trajectory beside it
	}
	return atifTrajectory(f, p, nil, 0, 0)
}

// atifIsJSONL reports whether one of the first lines of data (voteLines)
// is a complete traces record (a JSONL export, whose first line may be a
// bad one), as opposed to a broken JSON document.
func atifIsJSONL(data []byte, start int) bool {
	if bytes.IndexByte(data[start:], '\n') < 0 {
		return false
	}
	return anyJSONL(data[start:], voteLines, func(rec *struct {
		Conversations json.RawMessage `json:"conversations"`
	}) bool {
		return rec.Conversations != nil
	})
}

type atifDoc struct {
	SchemaVersion json.RawMessage   `json:"schema_version"`
	SessionID     json.RawMessage   `json:"session_id"`
	TrajectoryID  json.RawMessage   `json:"trajectory_id"`
	Agent         json.RawMessage   `json:"agent"`
	Steps         []json.RawMessage `json:"steps"`
	Notes         json.RawMessage   `json:"notes"`
	FinalMetrics  json.RawMessage   `json:"final_metrics"`
	ContinuedRef  json.RawMessage   `json:"continued_trajectory_ref"`
	Extra         json.RawMessage   `json:"extra"`
	Subagents     []json.RawMessage `json:"subagent_trajectories"`
	Conversations json.RawMessage   `json:"conversations"`
}

type atifAgent struct {
	Name      string          `json:"name"`
	Version   string          `json:"version"`
	ModelName string          `json:"model_name"`
	Extra     json.RawMessage `json:"extra"`
	// ToolDefinitions are the tools the agent's requests carried (OpenAI
	// function-calling format), when logged.
	ToolDefinitions json.RawMessage `json:"tool_definitions"`
}

type atifAgentExtra struct {
	ContinuationIndex  json.RawMessage `json:"continuation_index"`
	ParentSessionID    json.RawMessage `json:"parent_session_id"`
	SummarizationIndex json.RawMessage `json:"summarization_index"`
}

type atifFinal struct {
	Prompt     json.RawMessage `json:"total_prompt_tokens"`
	Completion json.RawMessage `json:"total_completion_tokens"`
	Cached     json.RawMessage `json:"total_cached_tokens"`
	Cost       *float64        `json:"total_cost_usd"`
	Extra      json.RawMessage `json:"extra"`
}

type atifStep struct {
	Timestamp        any              `json:"timestamp"`
	Source           string           `json:"source"`
	ModelName        string           `json:"model_name"`
	Message          json.RawMessage  `json:"message"`
	ReasoningContent json.RawMessage  `json:"reasoning_content"`
	ToolCalls        []atifToolCall   `json:"tool_calls"`
	Observation      *atifObservation `json:"observation"`
	Metrics          *atifMetrics     `json:"metrics"`
	IsCopied         bool             `json:"is_copied_context"`
	LLMCallCount     json.RawMessage  `json:"llm_call_count"`
	Extra            json.RawMessage  `json:"extra"`
}

type atifToolCall struct {
	ID        string          `json:"tool_call_id"`
	Name      string          `json:"function_name"`
	Arguments json.RawMessage `json:"arguments"`
}

type atifObservation struct {
	Results []atifResult `json:"results"`
}

type atifResult struct {
	SourceCallID string          `json:"source_call_id"`
	Content      json.RawMessage `json:"content"`
	Refs         []atifRef       `json:"subagent_trajectory_ref"`
}

type atifRef struct {
	SessionID      string `json:"session_id"`
	TrajectoryID   string `json:"trajectory_id"`
	TrajectoryPath string `json:"trajectory_path"`
}

type atifMetrics struct {
	Prompt     json.RawMessage `json:"prompt_tokens"`
	Completion json.RawMessage `json:"completion_tokens"`
	Cached     json.RawMessage `json:"cached_tokens"`
	Cost       *float64        `json:"cost_usd"`
}

// atifMaxTokens bounds one logged count: larger values are not a real log
// and would overflow the run's sums.
const atifMaxTokens = 1 << 40

// atifCount reads a token count (an integer, or a float with an integral
// value); ok is false when absent or implausible.
func atifCount(raw json.RawMessage) (int64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f < 0 || f > atifMaxTokens || f != math.Trunc(f) {
		return 0, false
	}
	return int64(f), true
}

func atifString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

// atifTrajectory imports one trajectory object. parent is set for an
// embedded sub-agent trajectory, the idx-th (1-based) of its parent, depth
// levels down. A top-level plain trajectory takes the continuation files
// beside it into its run (see the type doc).
func atifTrajectory(f *File, p *atifPart, parent *atifIdentity, depth, idx int) error {
	if p.agentErr != nil {
		if err := p.reject(f, p.lines.line(jsonFieldAt(p.data, p.start, "agent")), "invalid agent: "+decodeErrText(p.agentErr), p.doc.Agent); err != nil {
			return err
		}
	}
	var id atifIdentity
	if parent == nil {
		id = p.id
		if sp, ok := atifSumParent(f.Path(), id); ok {
			id.parent = sp
		}
	} else {
		id.id = atifString(p.doc.TrajectoryID)
		if id.id == "" {
			id.id = atifString(p.doc.SessionID)
		}
		if id.id == "" {
			id.id = parent.id + "/subagent-" + strconv.Itoa(idx)
		}
		id.root, id.parent = id.id, parent.id
	}
	parts := []*atifPart{p}
	if parent == nil && id.kind == atifPlain {
		parts = append(parts, atifContinuations(f.Path())...)
	}
	b, err := f.NewRun(id.id)
	if err != nil {
		return err
	}
	b.Run.Harness = p.agent.Name
	if b.Run.Harness == "" {
		b.Run.Harness = "atif"
	}
	b.Run.ParentRunID = id.parent
	t := &atifRun{f: f, b: b, id: id, part: p, agent: &p.agent}

	if e, ok := ToolDefinitions(p.agent.ToolDefinitions, 1); ok {
		if at := jsonFieldAt(p.data, p.start, "agent"); at >= 0 {
			e.Line = p.lines.line(at)
		}
		if err := b.Add(e); err != nil {
			return err
		}
	}
	var steps []atifParsedStep
	for k, part := range parts {
		if k > 0 {
			// a joined continuation: its hand-off follows the previous
			// file's steps; tokens before are the last prompt so far
			if part.agentErr != nil {
				if err := part.reject(f, part.lines.line(jsonFieldAt(part.data, part.start, "agent")), "invalid agent: "+decodeErrText(part.agentErr), part.doc.Agent); err != nil {
					return err
				}
			}
			if v, ok := t.lastPrompt(steps); ok {
				t.before = &v
			}
			t.id = part.id
			t.id.root = id.id
			t.part, t.agent, t.handoff = part, &part.agent, false
		}
		var first int64
		if steps, first, err = part.steps(f); err != nil {
			return err
		}
		t.all = steps
		if err := t.steps(steps, first); err != nil {
			return err
		}
	}
	last := parts[len(parts)-1]
	t.end(last.doc, steps)
	if err := t.totals(last.doc); err != nil {
		return err
	}
	if err := b.Finish(); err != nil {
		return err
	}

	// embedded sub-agent trajectories (ATIF-v1.7), numbered across the
	// joined files
	if depth >= 8 {
		return nil
	}
	n := 0
	for _, part := range parts {
		if len(part.doc.Subagents) == 0 {
			continue
		}
		var subOffs []int
		if at := jsonFieldAt(part.data, part.start, "subagent_trajectories"); at >= 0 {
			jsonEachElem(part.data, at, func(v int) bool {
				subOffs = append(subOffs, v)
				return true
			})
		}
		for i, raw := range part.doc.Subagents {
			off := part.start
			if i < len(subOffs) {
				off = subOffs[i]
			}
			n++
			var sub atifDoc
			if err := json.Unmarshal(raw, &sub); err != nil || !isJSONObject(raw) {
				if err := part.reject(f, part.lines.line(off), "subagent trajectory: "+explainDecodeErr(err, raw, &atifDoc{}), raw); err != nil {
					return err
				}
				continue
			}
			sp := &atifPart{name: part.name, data: part.data, lines: part.lines, start: off, doc: &sub}
			sp.decodeAgent()
			if err := atifTrajectory(f, sp, &id, depth+1, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// atifRun is the state of one trajectory's import (of the root and its
// continuations when they are joined).
type atifRun struct {
	f        *File
	b        *RunBuilder
	id       atifIdentity // of the file being read
	part     *atifPart    // the file being read
	agent    *atifAgent
	cost     float64
	hasCost  bool
	measured bool  // some step has token metrics
	sumIn    int64 // prompt tokens of the steps' usage
	sumOut   int64
	context  bool   // a context-management step was seen
	handoff  bool   // the file's hand-off event was emitted
	before   *int64 // a joined continuation's tokens before: the last prompt of the files before it
	all      []atifParsedStep
}

// steps emits the events of all steps in order (see the type doc).
func (t *atifRun) steps(steps []atifParsedStep, firstLine int64) error {
	if t.id.kind != atifPlain && (len(steps) == 0 || !steps[0].IsCopied) {
		if err := t.handOff(nil, firstLine); err != nil {
			return err
		}
	}
	for i := 0; i < len(steps); i++ {
		if steps[i].IsCopied {
			j := i
			for j < len(steps) && steps[j].IsCopied {
				j++
			}
			if err := t.handOff(steps[i:j], steps[i].line); err != nil {
				return err
			}
			i = j - 1
			continue
		}
		if err := t.step(steps, i); err != nil {
			return err
		}
	}
	return nil
}

// handOff stores a block of copied steps as one event carrying the op that
// explains it (see the type doc).
func (t *atifRun) handOff(block []atifParsedStep, line int64) error {
	parts := make([]string, 0, len(block))
	var ts *time.Time
	for _, s := range block {
		if ts == nil {
			ts = s.ts
		}
		if text := atifStepText(&s.atifStep); text != "" {
			parts = append(parts, text)
		}
	}
	kind, op := schema.KindContextOp, schema.ContextOp{Op: schema.OpContinuation, Trigger: "auto"}
	switch t.id.kind {
	case atifContinuation:
		kind = schema.KindCompaction
		op.Detail = fmt.Sprintf("continuation %d of %s", t.id.index, t.id.root)
	case atifSummarization:
		op.Op = schema.OpSummary
		op.Detail = fmt.Sprintf("summarization %d %s for %s", t.id.index, t.id.part, t.id.parent)
	default:
		op.Detail = "context copied from another trajectory"
	}
	if len(block) > 0 {
		op.Detail += fmt.Sprintf(": %d copied steps", len(block))
	}
	if t.id.kind == atifContinuation && !t.handoff {
		op.TokensBefore = t.before
		if after, ok := t.nextPrompt(t.all); ok {
			op.TokensAfter = &after
		}
	}
	t.handoff = true
	if err := t.b.Add(schema.Event{Kind: kind, Role: "system", TS: ts, Line: line, Text: strings.Join(parts, "\n\n")}); err != nil {
		return err
	}
	return t.b.Op(op)
}

// nextPrompt returns the prompt_tokens of the first model call in rest.
func (t *atifRun) nextPrompt(rest []atifParsedStep) (int64, bool) {
	for _, s := range rest {
		if s.IsCopied || s.Source != "agent" || s.Metrics == nil {
			continue
		}
		if v, ok := atifCount(s.Metrics.Prompt); ok {
			return v, true
		}
	}
	return 0, false
}

// step emits one non-copied step; steps[i:] is the rest of the trajectory
// (for the tokens after a compaction).
func (t *atifRun) step(steps []atifParsedStep, i int) error {
	s := &steps[i]
	b := t.b
	ev := func(kind schema.EventKind, role, text string) schema.Event {
		return schema.Event{Kind: kind, Role: role, TS: s.ts, Line: s.line, Text: text}
	}
	switch s.Source {
	case "agent":
		return t.agentStep(s)
	case "system", "user":
		op, refs, ok := atifContextOp(&s.atifStep)
		if !ok {
			kind := schema.KindUser
			if s.Source == "system" {
				kind = schema.KindSystem
			}
			return b.Add(ev(kind, s.Source, atifStepText(&s.atifStep)))
		}
		t.context = true
		if err := b.Add(ev(schema.KindCompaction, s.Source, ContentText(s.Message))); err != nil {
			return err
		}
		if before, ok := t.lastPrompt(steps[:i]); ok {
			op.TokensBefore = &before
		}
		if after, ok := t.nextPrompt(steps[i+1:]); ok {
			op.TokensAfter = &after
		}
		op.Detail = strings.TrimSpace(op.Detail + " " + refs)
		return b.Op(op)
	default:
		return t.part.reject(t.f, s.line, fmt.Sprintf("step %d: unknown source %q", s.n, s.Source), nil)
	}
}

func (t *atifRun) lastPrompt(done []atifParsedStep) (int64, bool) {
	for k := len(done) - 1; k >= 0; k-- {
		s := &done[k]
		if s.IsCopied || s.Source != "agent" || s.Metrics == nil {
			continue
		}
		if v, ok := atifCount(s.Metrics.Prompt); ok {
			return v, true
		}
	}
	return 0, false
}

// atifContextOp recognises a context-management step: extra.context_management
// {type}, or an observation referencing summarization sub-trajectories. refs
// lists the referenced trajectories.
func atifContextOp(s *atifStep) (op schema.ContextOp, refs string, ok bool) {
	op = schema.ContextOp{Op: schema.OpCompaction, Trigger: "auto"}
	var paths []string
	summarization := false
	if s.Observation != nil {
		for _, r := range s.Observation.Results {
			for _, ref := range r.Refs {
				paths = append(paths, atifRefName(ref))
				if strings.Contains(ref.TrajectoryPath, "summarization") || strings.Contains(ref.SessionID, "summarization") {
					summarization = true
				}
			}
		}
	}
	if len(paths) > 0 {
		refs = "(" + strings.Join(paths, ", ") + ")"
	}
	var ex struct {
		CM *struct {
			Type     string `json:"type"`
			Boundary string `json:"boundary"`
		} `json:"context_management"`
	}
	if len(s.Extra) > 0 && json.Unmarshal(s.Extra, &ex) == nil && ex.CM != nil {
		switch strings.ToLower(ex.CM.Type) {
		case "summary", "summarization":
			op.Op = schema.OpSummary
		case "truncation", "trim":
			op.Op = schema.OpTruncation
		case "masking", "edit", "mask":
			op.Op = schema.OpMasking
		}
		op.Detail = strings.TrimSpace("context_management " + ex.CM.Type + " " + ex.CM.Boundary)
		return op, refs, true
	}
	if summarization || len(paths) > 0 && strings.Contains(strings.ToLower(ContentText(s.Message)), "summariz") {
		op.Detail = "context summarization and handoff"
		return op, refs, true
	}
	return op, refs, false
}

// atifRefName names a sub-trajectory reference by its path, else its ids.
func atifRefName(ref atifRef) string {
	for _, s := range []string{ref.TrajectoryPath, ref.TrajectoryID, ref.SessionID} {
		if s != "" {
			return s
		}
	}
	return "?"
}

// agentStep emits one agent step: a model call unless llm_call_count is 0.
func (t *atifRun) agentStep(s *atifParsedStep) error {
	b := t.b
	began := false
	if n, ok := atifCount(s.LLMCallCount); !ok || n > 0 {
		b.NewCall()
		began = true
	}
	model := s.ModelName
	if model == "" {
		model = t.agent.ModelName
	}
	b.NoteModel(model)
	ev := func(kind schema.EventKind, text string) schema.Event {
		return schema.Event{Kind: kind, Role: "assistant", TS: s.ts, Line: s.line, Text: text}
	}
	if text := ContentText(s.ReasoningContent); text != "" {
		if err := b.Add(ev(schema.KindReasoning, text)); err != nil {
			return err
		}
	}
	if text := ContentText(s.Message); text != "" {
		if err := b.Add(ev(schema.KindAssistant, text)); err != nil {
			return err
		}
	}
	type callRef struct{ id, name, target string }
	calls2 := make([]callRef, 0, len(s.ToolCalls))
	for _, c := range s.ToolCalls {
		e := ev(schema.KindToolCall, "")
		e.ToolName, e.CallID, e.Args = c.Name, c.ID, jsonString(c.Arguments)
		e.Target = atifTarget(e.Args)
		if e.Target == "" {
			e.Target = Target(e.ToolName, []byte(e.Args))
		}
		calls2 = append(calls2, callRef{c.ID, c.Name, e.Target})
		if err := b.Add(e); err != nil {
			return err
		}
	}
	if m := s.Metrics; m != nil {
		if m.Cost != nil && !math.IsNaN(*m.Cost) && !math.IsInf(*m.Cost, 0) && *m.Cost >= 0 && *m.Cost < 1e9 {
			t.cost += *m.Cost
			t.hasCost = true
		}
		in, okIn := atifCount(m.Prompt)
		out, okOut := atifCount(m.Completion)
		cached, _ := atifCount(m.Cached)
		if (okIn || okOut) && began { // a dispatch's metrics (against the spec) are no call's
			t.measured = true
			t.sumIn += in
			t.sumOut += out
			b.SetUsage(schema.Usage{TS: s.ts, Model: model, InputTokens: in, OutputTokens: out, CacheReadTokens: min(cached, in)})
		}
	}
	if s.Observation == nil {
		return nil
	}
	used := make([]bool, len(calls2))
	for k, r := range s.Observation.Results {
		e := ev(schema.KindToolResult, ContentText(r.Content))
		e.Role = "tool"
		if e.Text == "" && len(r.Refs) > 0 {
			ids := make([]string, 0, len(r.Refs))
			for _, ref := range r.Refs {
				ids = append(ids, atifRefName(ref))
			}
			e.Text = "subagent trajectory: " + strings.Join(ids, ", ")
		}
		link := -1
		if r.SourceCallID != "" {
			for j, c := range calls2 {
				if c.id == r.SourceCallID {
					link = j
					break
				}
			}
			e.CallID = r.SourceCallID
		} else {
			if k < len(calls2) && !used[k] {
				link = k
			} else {
				for j := range calls2 {
					if !used[j] {
						link = j
						break
					}
				}
			}
		}
		if link >= 0 {
			used[link] = true
			c := calls2[link]
			if e.CallID == "" {
				e.CallID = c.id
			}
			e.ToolName, e.Target = c.name, c.target
		}
		if err := b.Add(e); err != nil {
			return err
		}
	}
	return nil
}

// atifTarget reads terminus-2's keystrokes argument as a shell command.
func atifTarget(args string) string {
	if !strings.Contains(args, `"keystrokes"`) {
		return ""
	}
	var a struct {
		Keystrokes string `json:"keystrokes"`
	}
	if json.Unmarshal([]byte(args), &a) != nil {
		return ""
	}
	return NormCommand(a.Keystrokes)
}

// atifStepText renders a step for a hand-off event: message, reasoning, tool
// calls and observation contents.
func atifStepText(s *atifStep) string {
	var parts []string
	if text := ContentText(s.ReasoningContent); text != "" {
		parts = append(parts, text)
	}
	if text := ContentText(s.Message); text != "" {
		parts = append(parts, text)
	}
	for _, c := range s.ToolCalls {
		args := jsonString(c.Arguments)
		if args != "" {
			args = CanonicalJSON([]byte(args))
		}
		parts = append(parts, strings.TrimSpace(c.Name+" "+args))
	}
	if s.Observation != nil {
		for _, r := range s.Observation.Results {
			if text := ContentText(r.Content); text != "" {
				parts = append(parts, text)
			}
		}
	}
	return strings.Join(parts, "\n")
}

var (
	atifCompleteJSONRe = regexp.MustCompile(`"task_complete"\s*:\s*true`)
	atifCompleteXMLRe  = regexp.MustCompile(`<task_complete>\s*true\s*</task_complete>`)
)

// atifMarksComplete reports whether an agent step marks the task complete
// (terminus-2: a mark_task_complete call, or "task_complete": true in a raw
// JSON / XML response).
func atifMarksComplete(s *atifStep) bool {
	for _, c := range s.ToolCalls {
		if c.Name == "mark_task_complete" {
			return true
		}
	}
	text := ContentText(s.Message)
	return atifCompleteJSONRe.MatchString(text) || atifCompleteXMLRe.MatchString(text)
}

// end sets the run's end reason (see the type doc).
func (t *atifRun) end(doc *atifDoc, steps []atifParsedStep) {
	b := t.b
	var fin atifFinal
	if len(doc.FinalMetrics) > 0 {
		_ = json.Unmarshal(doc.FinalMetrics, &fin)
	}
	if reason, detail, ok := atifException(atifString(doc.Notes), doc.Extra, fin.Extra); ok {
		b.SetEnd(reason, detail)
		return
	}
	var agentSteps []*atifParsedStep
	for k := range steps {
		if !steps[k].IsCopied && steps[k].Source == "agent" {
			agentSteps = append(agentSteps, &steps[k])
		}
	}
	if n := len(agentSteps); n >= 2 && atifMarksComplete(&agentSteps[n-1].atifStep) && atifMarksComplete(&agentSteps[n-2].atifStep) {
		b.SetEnd(schema.EndFinished, "task_complete confirmed")
		return
	}
	if ref := atifString(doc.ContinuedRef); ref != "" {
		b.Run.EndReasonDetail = "continued in " + ref
		return
	}
	if t.id.kind != atifPlain || t.context || !t.measured {
		return
	}
	in, okIn := atifCount(fin.Prompt)
	out, okOut := atifCount(fin.Completion)
	if okIn && in > t.sumIn || okOut && out > t.sumOut {
		b.Run.EndReason, b.Run.EndReasonSource = schema.EndInterrupted, schema.SourceInferred
		b.Run.EndReasonDetail = fmt.Sprintf("final_metrics count %d prompt and %d completion tokens that no step records: stopped during a step (agent timeout or cancellation)",
			max(in-t.sumIn, 0), max(out-t.sumOut, 0))
	}
}

// atifException finds an exception recorded in notes or an extra object:
// exception_info {exception_type, exception_message}, exception_type,
// exception, or error.
func atifException(notes string, extras ...json.RawMessage) (schema.EndReason, string, bool) {
	for _, raw := range extras {
		if len(raw) == 0 {
			continue
		}
		var ex struct {
			Info *struct {
				Type    string `json:"exception_type"`
				Message string `json:"exception_message"`
			} `json:"exception_info"`
			Type      string          `json:"exception_type"`
			Exception json.RawMessage `json:"exception"`
			Error     json.RawMessage `json:"error"`
		}
		if json.Unmarshal(raw, &ex) != nil {
			continue
		}
		typ, msg := ex.Type, ""
		if ex.Info != nil {
			typ, msg = ex.Info.Type, ex.Info.Message
		}
		for _, v := range []json.RawMessage{ex.Exception, ex.Error} {
			if typ != "" {
				break
			}
			if s := atifString(v); s != "" {
				typ = s
				continue
			}
			var o struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			}
			if json.Unmarshal(v, &o) == nil && (o.Type != "" || o.Message != "") {
				typ, msg = o.Type, o.Message
				if typ == "" {
					typ = o.Message
				}
			}
		}
		if typ != "" {
			return atifExceptionReason(typ), strings.TrimSpace(typ + ": " + msg), true
		}
	}
	for _, name := range []string{"AgentTimeoutError", "ContextLengthExceededError"} {
		if strings.Contains(notes, name) {
			return atifExceptionReason(name), name, true
		}
	}
	return "", "", false
}

func atifExceptionReason(typ string) schema.EndReason {
	l := strings.ToLower(typ)
	switch {
	case strings.Contains(l, "contextlength") || strings.Contains(l, "context length") || strings.Contains(l, "context window"):
		return schema.EndContextOverflow
	case strings.Contains(l, "timeout") || strings.Contains(l, "timed out") || strings.Contains(l, "cancel"):
		return schema.EndInterrupted
	case strings.Contains(l, "cost") || strings.Contains(l, "budget"):
		return schema.EndCostLimit
	}
	return schema.EndError
}

// totals sets the run cost, and the run totals from final_metrics when no
// step has metrics.
func (t *atifRun) totals(doc *atifDoc) error {
	b := t.b
	if t.hasCost {
		c := t.cost
		b.Run.CostUSD = &c
	}
	if t.measured || len(doc.FinalMetrics) == 0 || string(doc.FinalMetrics) == "null" {
		return nil
	}
	var fin atifFinal
	if json.Unmarshal(doc.FinalMetrics, &fin) != nil {
		return nil
	}
	in, _ := atifCount(fin.Prompt)
	out, _ := atifCount(fin.Completion)
	cached, _ := atifCount(fin.Cached)
	b.Run.InputTokens, b.Run.OutputTokens, b.Run.CacheReadTokens = in, out, min(cached, in)
	if fin.Cost != nil && !t.hasCost && !math.IsNaN(*fin.Cost) && !math.IsInf(*fin.Cost, 0) && *fin.Cost >= 0 && *fin.Cost < 1e9 {
		c := *fin.Cost
		b.Run.CostUSD = &c
	}
	return nil
}

// ---- JSON spans (shared with the inspect-ai importer) ----
