package counterfactual

import (
	"cmp"
	"encoding/json"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/trajmine/trajmine/schema"
)

// UseKind says how a later step used a tool output.
type UseKind uint8

// Use kinds.
const (
	// UseContent: distinctive words of the output reappear in a later
	// assistant text, reasoning or tool-call args.
	UseContent UseKind = iota + 1
	// UseTarget: a later tool call acts on the same target (file path,
	// command, URL) as the output's call.
	UseTarget
	// UseEnable: a later manage_context call (DTOC) lists the output's tool
	// key in its "enable" argument: the log shows the agent asking for the
	// output again.
	UseEnable
)

// String returns "content" or "target".
func (k UseKind) String() string {
	switch k {
	case UseContent:
		return "content"
	case UseTarget:
		return "target"
	case UseEnable:
		return "enable"
	}
	return "unknown"
}

// MarshalText encodes k as its String.
func (k UseKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Use is one use of a tool output by a later model output.
type Use struct {
	Output int     `json:"output"` // index in events of the tool_result event that was used
	Event  int     `json:"event"`  // index in events of the event that used it
	Call   int64   `json:"call"`   // model call that made the use (= events[Event].Turn): its prompt needed the output
	Kind   UseKind `json:"kind"`
	// Offsets are, for content uses, the byte offsets in events[Output].Text
	// of the evidence words' first occurrences there, ascending, at most
	// MaxEvidence.
	Offsets []int32 `json:"offsets,omitempty"`
	// Evidence are, for content uses, the evidence words, in the order of
	// Offsets: events[Output].Text[Offsets[i]:][:len(Evidence[i])] == Evidence[i].
	Evidence []string `json:"evidence,omitempty"`
}

// UsesVersion numbers what Uses answers. Bump it with any change that
// changes some use (which output, which call, its kind): trajmine ingest
// stores the uses of runs that disable outputs (tables uses_runs and
// output_uses) with this number, and readers trust only rows of their own
// version. TestUsesVersion pins the uses of the ingest fixtures to it.
const UsesVersion = 2

// MinEvidence is the fewest distinct evidence words of a late content use:
// one made by a call after the first call that saw the output (Uses, step
// 3). A single word an output shares with a message written calls later
// is often a coincidence (a status code, a common identifier, a file name
// met elsewhere): on the outputs the logs' own compactions dropped, no
// such use was followed by a re-read (BENCHMARKS.md, issue 29). A use at
// the output's first call (the agent picking a file from a listing) needs
// one word.
const MinEvidence = 2

// MaxEvidence is the most evidence words a content use keeps: those with
// the smallest offsets in the output.
const MaxEvidence = 8

// MaxScan is how many bytes of a tool output's text are scanned for words;
// the rest of a longer output is ignored (a word crossing the limit is
// dropped too). User, system and model texts are scanned in full.
const MaxScan = 256 << 10

// common is the state of a word that a user or system event contained.
const common = -1

// agent is the state of a word the agent has already used: its own
// message now holds it, so later mentions need no output (until a later
// output contains it again).
const agent = -2

// own is the state of a word whose first appearance in the run is the
// agent's own (an assistant text, reasoning or tool-call arguments): the
// agent wrote it before any tool output held it, so no output is ever
// credited with it, even one that echoes it back.
const own = -3

// wordState is where a word came from so far.
type wordState struct {
	tok string // the word (its own copy, never a slice of an event text)
	out int32  // latest tool_result containing it, or common, agent, own
	off int32  // byte offset of its first occurrence in events[out].Text
}

// hit is one evidence word of a content use being built.
type hit struct {
	off int32
	tok int32 // index in walker.states
}

// walker holds the state of one Uses pass.
type walker struct {
	events []schema.Event
	index  *wordTable // word → index in states
	states []wordState
	used   []int32 // words the current using event hit

	// content uses of the using event being scanned: per output touched,
	// a sorted buffer of at most MaxEvidence hits
	cur    int32   // index of the using event + 1
	stamp  []int32 // per event index: cur when slot is valid
	slot   []int32 // per event index: index in active
	active []int32 // outputs touched by the current using event
	hits   []hit   // MaxEvidence per active output
	counts []uint8 // hits held per active output

	uses []Use

	arena []byte // word copies; a full chunk is left to the strings in it

	// words of the arguments of the call that produced the output being
	// scanned: block[k] == blockAt for each (the output does not take them)
	block   []int32
	blockAt int32

	// outputs whose text is logged more than once in the run (re-reads):
	// the (word, offset) sequence of their first scan, replayed for the
	// later copies instead of scanning them again
	repeats map[int32]*wordSeq // by event index
}

// wordSeq is the words of an output text in order: state indices and byte
// offsets.
type wordSeq struct {
	k, off []int32
	done   bool // recorded (the text was scanned once)
}

// reuseMin is the shortest output text whose repeats are replayed rather
// than scanned again (shorter ones cost little to scan); reuse turns the
// replay off (tests compare both ways).
var (
	reuseMin = 512
	reuse    = true
)

// echoRule and summaryRule turn two rules of Uses on (steps 2 and 3); tests
// turn them off to measure what they change.
var (
	echoRule    = true
	summaryRule = true
	minEvidence = MinEvidence
)

// walkers holds walkers between runs: their tables and buffers are reused
// (the word arena and the uses returned are not).
var walkers = sync.Pool{New: func() any { return &walker{index: newWordTable(0)} }}

// release clears what w must not keep (the run's events, the returned uses,
// the arena the uses' evidence points into) and pools it.
func (w *walker) release() {
	clear(w.states) // word strings point into the arena
	w.events, w.states, w.uses, w.arena, w.repeats = nil, w.states[:0], nil, nil, nil
	w.used, w.active, w.hits, w.counts = w.used[:0], w.active[:0], w.hits[:0], w.counts[:0]
	w.cur = 0
	w.block, w.blockAt = w.block[:0], 0
	walkers.Put(w)
}

// arenaChunk is the size of the walker's word arena chunks.
const arenaChunk = 64 << 10

// Uses returns every use of every tool output in one run's events (seq
// order), sorted by (Call, Output, Event, Kind). It is deterministic and
// pure, and its work is linear in the run's total text size.
//
// The events are walked once, in order (context_op and error events are
// skipped, a compaction only passes its words to the agent; an output can
// only be used by events after it):
//
//  1. Every word of a user or system event's Text (Words) becomes common:
//     the task gives it, so no output is needed for it, now or later.
//  2. Every word of a tool_result's Text (its first MaxScan bytes) that is
//     not common gets that output as its state, with the byte offset of its
//     first occurrence there. A later output containing the word takes
//     over: a re-read logged in the run shifts attribution to the newer
//     output, so a simulator predicts nothing where the log itself re-read.
//     The output's target is the Target of the tool_call that produced it:
//     the preceding tool_call with the same CallID, else with the same
//     ToolKey, else the nearest preceding tool_call (with no tool_call
//     before it, the result's own Target).
//     A word whose first appearance in the run is the agent's own (step 3)
//     is never taken over: an output that echoes what the agent wrote is
//     not its source. Nor is a word of the arguments of the output's own
//     call (a line number in `sed -n '388,400p'`, a grep pattern): the
//     agent held it when it made the call.
//     A compaction's summary (its Text) is the model's own text: every
//     word of it that an output held passes to the agent (step 3), so
//     mentions after the compaction are uses of no output.
//  3. An assistant, reasoning or tool_call event e of call t = e.Turn makes
//     a content use of output o when its Text (Words) or Args (ArgWords)
//     holds a word whose state is o and events[o].Turn ≤ t (o was in call
//     t's prompt: an output with turn t is visible to call t). There is one
//     Use per (o, e); its evidence is the distinct such words with the
//     smallest first offsets in o, at most MaxEvidence, ascending. A late
//     use (events[o].Turn < t) needs at least MinEvidence such words. A word
//     so used (in a use made or dropped for too few words) passes to the agent: the using message holds it from then on,
//     so later mentions of it are not uses of o (until a later output
//     contains it again, step 2). A word met here for the first time in
//     the run is the agent's own (every word is attributed to its first
//     appearance anywhere in the run).
//  4. A tool_call e of call t with a non-empty Target makes a target use of
//     o, the latest output so far whose target (step 2) equals e.Target and
//     whose turn is ≤ t, unless e is the call that produced o.
//  5. A manage_context tool_call e (DTOC; name manage_context or
//     *__manage_context) makes an enable use of o, the latest output so far
//     whose ToolKey is listed in e's "enable" argument: an explicit
//     re-enable is an observed use.
func Uses(events []schema.Event) []Use {
	w := walkers.Get().(*walker)
	defer w.release()
	w.events = events
	w.index.reset(sizeHint(events))
	w.stamp = slices.Grow(w.stamp[:0], len(events))[:len(events)]
	clear(w.stamp)
	w.slot = slices.Grow(w.slot[:0], len(events))[:len(events)]
	prod := producers(events)
	w.findRepeats()
	byTarget := map[string][]int32{} // target → outputs with that target, in order
	byKey := map[string]int32{}      // tool key → latest output with it
	// words only matter to a later assistant, reasoning or tool_call
	// event: after the last one, texts are not scanned
	last := len(events) - 1
	for last >= 0 && !usesWords(events[last].Kind) {
		last--
	}
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case schema.KindSystem, schema.KindUser:
			if i < last {
				w.common(e.Text)
			}
		case schema.KindCompaction:
			if i < last && summaryRule {
				w.summary(e.Text)
			}
		case schema.KindToolResult:
			if i < last {
				w.blockArgs(prod[i])
				w.output(int32(i), capText(e.Text))
			}
			if t := outputTarget(events, prod, i); t != "" {
				byTarget[t] = append(byTarget[t], int32(i))
			}
			if e.ToolKey != "" {
				byKey[e.ToolKey] = int32(i)
			}
		case schema.KindAssistant, schema.KindReasoning, schema.KindToolCall:
			w.content(int32(i))
			if e.Kind == schema.KindToolCall && isManageContext(e.ToolName) {
				for _, k := range enableKeys(e.Args) {
					if o, ok := byKey[k]; ok {
						w.uses = append(w.uses, Use{Output: int(o), Event: i, Call: e.Turn, Kind: UseEnable})
					}
				}
			}
			if e.Kind == schema.KindToolCall && e.Target != "" {
				outs := byTarget[e.Target]
				for k := len(outs) - 1; k >= 0; k-- {
					if o := outs[k]; events[o].Turn <= e.Turn {
						if prod[o] != int32(i) {
							w.uses = append(w.uses, Use{Output: int(o), Event: i, Call: e.Turn, Kind: UseTarget})
						}
						break
					}
				}
			}
		}
	}
	slices.SortFunc(w.uses, func(a, b Use) int {
		return cmp.Or(cmp.Compare(a.Call, b.Call), cmp.Compare(a.Output, b.Output),
			cmp.Compare(a.Event, b.Event), cmp.Compare(a.Kind, b.Kind))
	})
	return w.uses
}

// usesWords reports whether events of kind k can make content uses.
func usesWords(k schema.EventKind) bool {
	return k == schema.KindAssistant || k == schema.KindReasoning || k == schema.KindToolCall
}

// sizeHint guesses the number of distinct words of a run: one per 64 bytes
// of input text, at most 1<<16.
func sizeHint(events []schema.Event) int {
	n := 0
	for i := range events {
		switch events[i].Kind {
		case schema.KindSystem, schema.KindUser, schema.KindToolResult:
			n += min(len(events[i].Text), MaxScan)
		}
	}
	return min(n/64, 1<<16)
}

// common marks every word of s as common.
func (w *walker) common(s string) {
	scan(s, false, func(_ int, tok string) bool {
		h := w.index.hash(tok)
		if k, ok := w.index.find(tok, h, w.states); ok {
			w.states[k].out = common
		} else {
			w.add(tok, h, common, 0)
		}
		return true
	})
}

// findRepeats notes the tool-result texts (of at least reuseMin bytes, as
// scanned) that the run logs more than once: w.repeats[i] is, for every
// copy i of such a text, the sequence its first scan records and later
// copies replay. Only texts whose length another such text shares are
// hashed (a text of a length met once cannot repeat), each once, and a
// repeat is confirmed by comparing the texts, so a hash collision never
// merges two texts.
func (w *walker) findRepeats() {
	if !reuse {
		return
	}
	var lens map[int]int32 // scanned length → texts with it
	for i := range w.events {
		if s, ok := w.reusable(i); ok {
			if lens == nil {
				lens = map[int]int32{}
			}
			lens[len(s)]++
		}
	}
	var first map[uint64][]int32 // hash → first copy of each text with it
	for i := range w.events {
		s, ok := w.reusable(i)
		if !ok || lens[len(s)] < 2 {
			continue
		}
		if first == nil {
			first = map[uint64][]int32{}
		}
		h := maphash.String(textSeed, s)
		var of int32 = -1
		for _, f := range first[h] {
			if capText(w.events[f].Text) == s {
				of = f
				break
			}
		}
		if of < 0 {
			first[h] = append(first[h], int32(i))
			continue
		}
		if w.repeats == nil {
			w.repeats = map[int32]*wordSeq{}
		}
		seq := w.repeats[of]
		if seq == nil {
			seq = &wordSeq{}
			w.repeats[of] = seq
		}
		w.repeats[int32(i)] = seq
	}
}

// textSeed seeds the hash of findRepeats.
var textSeed = maphash.MakeSeed()

// reusable returns event i's text as scanned when it is a tool result whose
// repeats findRepeats looks for (at least reuseMin bytes).
func (w *walker) reusable(i int) (string, bool) {
	e := &w.events[i]
	if e.Kind != schema.KindToolResult || len(e.Text) < reuseMin {
		return "", false
	}
	return capText(e.Text), true
}

// output makes output o the state of every non-common word of s. A text
// logged before in the run replays the words its first scan recorded:
// the same words at the same offsets, under the same rule, so the same
// states.
func (w *walker) output(o int32, s string) {
	var seq *wordSeq
	if w.repeats != nil {
		seq = w.repeats[o]
	}
	if seq != nil && seq.done {
		for i, k := range seq.k {
			if st := &w.states[k]; overridable(st.out) && st.out != o && !w.blocked(k) {
				st.out, st.off = o, seq.off[i]
			}
		}
		return
	}
	scan(s, false, func(off int, tok string) bool {
		h := w.index.hash(tok)
		k, ok := w.index.find(tok, h, w.states)
		if ok {
			if st := &w.states[k]; overridable(st.out) && st.out != o && !w.blocked(k) {
				st.out, st.off = o, int32(off)
			}
		} else {
			k = int32(len(w.states))
			w.add(tok, h, o, int32(off))
		}
		if seq != nil {
			seq.k, seq.off = append(seq.k, k), append(seq.off, int32(off))
		}
		return true
	})
	if seq != nil {
		seq.done = true
	}
}

// blockArgs notes the words of the arguments of tool call p (when p ≥ 0
// and echoRule): the output scanned next does not take them over (Uses,
// step 2).
func (w *walker) blockArgs(p int32) {
	w.blockAt++
	if p < 0 || !echoRule || w.events[p].Args == "" {
		return
	}
	scan(w.events[p].Args, true, func(_ int, tok string) bool {
		if k, ok := w.index.find(tok, w.index.hash(tok), w.states); ok {
			if n := int(k) + 1; len(w.block) < n {
				old := len(w.block)
				w.block = slices.Grow(w.block, n-old)[:n]
				clear(w.block[old:])
			}
			w.block[k] = w.blockAt
		}
		return true
	})
}

// blocked reports whether word k is one blockArgs noted for the current
// output.
func (w *walker) blocked(k int32) bool {
	return int(k) < len(w.block) && w.block[k] == w.blockAt
}

// summary passes every word of a compaction's summary that an output or
// the agent holds to the agent (Uses, step 2): the summary is the model's
// own text, so later mentions of its words need no output.
func (w *walker) summary(s string) {
	scan(s, false, func(_ int, tok string) bool {
		if k, ok := w.index.find(tok, w.index.hash(tok), w.states); ok && overridable(w.states[k].out) {
			w.states[k].out = agent
		}
		return true
	})
}

// overridable reports whether a later output containing a word in state
// out takes it over: a word of an output or one the agent took from an
// output, not a common word nor one the agent wrote first.
func overridable(out int32) bool { return out >= 0 || out == agent }

// add records a word met for the first time, copying it so that the
// state never keeps an event text alive (into the walker's arena: one
// allocation per 64 KiB of words, not one per word).
func (w *walker) add(tok string, h uint64, out, off int32) {
	if len(w.arena)+len(tok) > cap(w.arena) {
		w.arena = make([]byte, 0, max(arenaChunk, len(tok)))
	}
	at := len(w.arena)
	w.arena = append(w.arena, tok...)
	tok = unsafe.String(&w.arena[at], len(tok))
	w.index.insert(h, int32(len(w.states)))
	w.states = append(w.states, wordState{tok: tok, out: out, off: off})
}

// content appends the content uses made by event i.
func (w *walker) content(i int32) {
	e := &w.events[i]
	w.cur = i + 1
	w.active, w.hits, w.counts = w.active[:0], w.hits[:0], w.counts[:0]
	look := func(_ int, tok string) bool {
		h := w.index.hash(tok)
		k, ok := w.index.find(tok, h, w.states)
		if !ok {
			w.add(tok, h, own, 0) // first appearance: the agent's own
			return true
		}
		st := &w.states[k]
		if st.out < 0 || w.events[st.out].Turn > e.Turn {
			return true
		}
		w.hit(st.out, hit{off: st.off, tok: k})
		w.used = append(w.used, k)
		return true
	}
	w.used = w.used[:0]
	scan(e.Text, false, look)
	scan(e.Args, true, look)
	for _, k := range w.used {
		w.states[k].out = agent
	}
	if len(w.active) == 0 {
		return
	}
	slices.Sort(w.active)
	for _, o := range w.active {
		s := w.slot[o]
		if int(w.counts[s]) < minEvidence && w.events[o].Turn < e.Turn {
			continue // a late use on one word: see MinEvidence
		}
		hs := w.hits[s*MaxEvidence : s*MaxEvidence+int32(w.counts[s])]
		u := Use{Output: int(o), Event: int(i), Call: e.Turn, Kind: UseContent,
			Offsets: make([]int32, len(hs)), Evidence: make([]string, len(hs))}
		for j, h := range hs {
			u.Offsets[j], u.Evidence[j] = h.off, w.states[h.tok].tok
		}
		w.uses = append(w.uses, u)
	}
}

// hit adds h to the evidence of output o for the current using event,
// keeping the MaxEvidence distinct hits of smallest offset, ascending. Each
// offset is the start of exactly one word, so equal offsets are duplicates.
func (w *walker) hit(o int32, h hit) {
	if w.stamp[o] != w.cur {
		w.stamp[o] = w.cur
		w.slot[o] = int32(len(w.active))
		w.active = append(w.active, o)
		w.counts = append(w.counts, 0)
		w.hits = append(w.hits, make([]hit, MaxEvidence)...)
	}
	s := w.slot[o]
	buf := w.hits[s*MaxEvidence : (s+1)*MaxEvidence]
	n := int(w.counts[s])
	p := n
	for p > 0 && buf[p-1].off >= h.off {
		if buf[p-1].off == h.off {
			return
		}
		p--
	}
	if p == MaxEvidence {
		return
	}
	if n < MaxEvidence {
		n++
	}
	copy(buf[p+1:n], buf[p:n-1])
	buf[p] = h
	w.counts[s] = uint8(n)
}

// capText returns the first MaxScan bytes of s, less any word run that the
// limit would cut.
func capText(s string) string {
	if len(s) <= MaxScan {
		return s
	}
	cut := MaxScan
	for cut > 0 && class[s[cut]]&clTok != 0 && class[s[cut-1]]&clTok != 0 {
		cut--
	}
	return s[:cut]
}

// producers returns, per event index, the index of the tool_call that
// produced it when it is a tool_result (-1 otherwise or when none precedes
// it): the latest preceding tool_call with the same CallID, else with the
// same ToolKey, else the nearest preceding tool_call.
func producers(events []schema.Event) []int32 {
	prod := make([]int32, len(events))
	byCall, byKey := map[string]int32{}, map[string]int32{}
	last := int32(-1)
	for i := range events {
		e := &events[i]
		prod[i] = -1
		switch e.Kind {
		case schema.KindToolCall:
			if e.CallID != "" {
				byCall[e.CallID] = int32(i)
			}
			if e.ToolKey != "" {
				byKey[e.ToolKey] = int32(i)
			}
			last = int32(i)
		case schema.KindToolResult:
			p := last
			if c, ok := byCall[e.CallID]; ok && e.CallID != "" {
				p = c
			} else if k, ok := byKey[e.ToolKey]; ok && e.ToolKey != "" {
				p = k
			}
			prod[i] = p
		}
	}
	return prod
}

// outputTarget is the target of output o: its producing call's Target, or
// its own when no call produced it.
func outputTarget(events []schema.Event, prod []int32, o int) string {
	if p := prod[o]; p >= 0 {
		return events[p].Target
	}
	return events[o].Target
}

// isManageContext reports whether a tool is DTOC's manage_context (also
// under an MCP prefix, server__manage_context).
func isManageContext(name string) bool {
	return name == "manage_context" || strings.HasSuffix(name, "__manage_context")
}

// enableKeys returns the tool keys of a manage_context call's "enable"
// argument (strings or numbers), in order, each once.
func enableKeys(args string) []string {
	var a struct {
		Enable []json.RawMessage `json:"enable"`
	}
	if json.Unmarshal([]byte(args), &a) != nil {
		return nil
	}
	var keys []string
	for _, raw := range a.Enable {
		var k string
		if json.Unmarshal(raw, &k) != nil {
			var n json.Number
			if json.Unmarshal(raw, &n) != nil {
				continue
			}
			k = n.String()
		}
		if k != "" && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}
