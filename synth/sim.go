package synth

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"
	"unicode/utf8"
)

// est is the token estimate used for all usage numbers: ceil(chars/3.6),
// where chars counts Unicode code points.
func est(s string) int {
	n := utf8.RuneCountInString(s)
	return (10*n + 35) / 36
}

// charsFor is the inverse of est: about how many characters make tok tokens.
func charsFor(tok int) int { return tok * 36 / 10 }

// floor128 rounds down to a multiple of 128, the granularity of OpenAI's
// prompt cache.
func floor128(n int) int { return n / 128 * 128 }

// kind is a format-neutral tool action; each format maps it to its own
// tools (Read, sed -n, read_file, …).
type kind int

const (
	kRead kind = iota
	kGrep
	kGlob
	kTest
	kShell
	kEdit
	kWrite
	kPlan
	nKinds
)

func (k kind) readOnly() bool { return k == kRead || k == kGrep || k == kGlob }

// action is one planned tool call.
type action struct {
	kind       kind
	file       *srcFile
	start, end int // 1-based inclusive line range for kRead
	size       int // desired output size in characters
	fail       bool
	pattern    string
}

// step is what the model does in one call: tool calls, or a final answer.
type step struct {
	final    bool
	thinking bool
	preface  bool
	actions  []action
}

// plan fixes a session's shape before it is generated.
type plan struct {
	calls    int   // planned successful model calls
	turnEnds []int // call number (1-based) that ends each user turn
	overflow bool  // grow until the window is exceeded
	compact  bool  // Claude Code: grow into auto-compaction
	window   int
	sys      int // fixed prompt overhead (system prompt, tool schemas)
}

// Probabilities of the session shapes.
const (
	pOverflow = 0.17 // of non-DTOC sessions; DTOC runs manage their context and never overflow
	pCompact  = 0.20 // of Claude Code sessions that do not overflow
)

// newPlan draws a plan. compactable marks formats with auto-compaction;
// noOverflow disables overflow (DTOC runs); the drawn calls are multiplied
// by scale (Options.Calls), the draws unchanged.
func newPlan(r *rand.Rand, window, sys int, compactable, noOverflow bool, scale float64) plan {
	p := plan{window: window, sys: sys}
	switch {
	case !noOverflow && chance(r, pOverflow):
		p.overflow = true
		p.calls = logNormalInt(r, 60, 0.5, 25, 140)
	case compactable && chance(r, pCompact):
		p.compact = true
		p.calls = between(r, 70, 150)
	default:
		// Long-tailed: median 22 (DefaultCalls), mean ~30, a few near 150.
		p.calls = logNormalInt(r, DefaultCalls, 0.8, 5, 150)
	}
	if scale != 1 {
		p.calls = max(1, int(math.Round(float64(p.calls)*scale)))
	}
	turns := 1
	if !p.overflow {
		switch x := r.Float64(); {
		case x < 0.12 && p.calls >= 12:
			turns = 3
		case x < 0.32 && p.calls >= 8:
			turns = 2
		}
	}
	for i := 1; i < turns; i++ {
		p.turnEnds = append(p.turnEnds, between(r, 3, p.calls-3))
	}
	slices.Sort(p.turnEnds)
	p.turnEnds = slices.Compact(append(p.turnEnds, p.calls))
	return p
}

// agent is the format-neutral state of a session being generated: the
// workspace, the token meter and the counters that end up in FileInfo.
type agent struct {
	r     *rand.Rand
	ws    *workspace
	p     plan
	mix   [nKinds]int // tool mix weights for the format
	now   time.Time
	turn  int // index into p.turnEnds
	cur   int // prompt tokens the next model call will have
	last  int // prompt tokens of the previous model call (0 before the first)
	n     int // successful model calls so far
	tools int
	in    int64
	out   int64

	noParallel  bool // the harness runs one tool call per model call
	compactAt   int  // Claude Code auto-compaction threshold (prompt tokens)
	compactions int
	read        []*srcFile
	edited      []string
}

func newAgent(r *rand.Rand, ws *workspace, p plan, mix [nKinds]int, start time.Time) *agent {
	a := &agent{r: r, ws: ws, p: p, mix: mix, now: start, cur: p.sys}
	a.compactAt = p.window - 33000 + between(r, -4000, 4000)
	return a
}

// advance moves the clock by about d.
func (a *agent) advance(d time.Duration) time.Time {
	a.now = a.now.Add(jitter(a.r, d, 0.6) + time.Millisecond*time.Duration(a.r.IntN(997)))
	return a.now
}

// add accounts for tok tokens added to the context since the last call.
func (a *agent) add(tok int) { a.cur += tok }

// called records a successful model call with prompt tokens a.cur.
func (a *agent) called(out int) {
	a.n++
	a.in += int64(a.cur)
	a.out += int64(out)
	a.last = a.cur
}

// overflowing reports whether the next call's prompt exceeds the window.
func (a *agent) overflowing() bool { return a.cur > a.p.window }

// outputTokens returns the completion tokens of a call whose visible output
// estimates to visible tokens, plus hidden reasoning.
func (a *agent) outputTokens(visible, hidden int) int {
	return clamp(visible+hidden, 20, 1500)
}

// hiddenTokens draws reasoning/thinking tokens that are billed as output but
// not visible in the log.
func (a *agent) hiddenTokens(thinking string) int {
	h := logNormalInt(a.r, 50, 0.9, 0, 600)
	if thinking != "" {
		h += est(thinking) * between(a.r, 2, 5)
	}
	return h
}

// goal returns the prompt size the session is steering toward and the call
// number by which it should get there; ok is false for free-running sessions.
func (a *agent) goal() (tokens, at int, ok bool) {
	switch {
	case a.p.overflow:
		return a.p.window + 1000, a.p.calls, true
	case a.p.compact && a.compactions == 0:
		return a.compactAt + 1000, a.p.calls / 2, true
	}
	return 0, 0, false
}

// budget returns how many characters of tool output this call may add, or
// -1 when there is no limit (overflowing sessions).
func (a *agent) budget() int {
	switch {
	case a.p.overflow:
		return -1
	case a.p.compact:
		return max(0, charsFor(a.p.window-8000-a.cur)/2)
	}
	// Half of the room left below 80% of the window: rendered outputs can
	// be larger than requested (line numbers, JSON escaping, whole lines).
	return max(0, charsFor(a.p.window*8/10-a.cur)/2)
}

// next decides what the next model call does.
func (a *agent) next() step {
	var s step
	s.thinking = chance(a.r, 0.15)
	budget := a.budget()
	if !a.p.overflow && (a.n+1 >= a.p.turnEnds[a.turn] || (budget >= 0 && budget < 1500)) {
		if budget >= 0 && budget < 1500 {
			// Out of room: wrap up and drop any remaining user turns.
			a.p.turnEnds = append(a.p.turnEnds[:a.turn], a.n+1)
		}
		s.final = true
		return s
	}
	s.preface = chance(a.r, 0.55)

	steer := 0
	if goal, at, ok := a.goal(); ok {
		need := (goal - a.cur) / max(1, at-a.n)
		steer = charsFor(max(0, need))
	}
	par := 1
	switch {
	case a.noParallel:
	case steer > 110000:
		par = min(4, 1+steer/55000)
	case chance(a.r, 0.14):
		par = between(a.r, 2, 4)
	}
	steerEach, limit := steer/par, -1
	if budget >= 0 {
		limit = budget / par
	}
	picked := map[*srcFile]bool{}
	for range par {
		k := kind(weighted(a.r, a.mix[:]))
		switch {
		case par > 1 && !k.readOnly():
			k = kRead // parallel calls are read-only
		case a.n == 0 && (k == kEdit || k == kWrite):
			k = kRead // the first call explores
		}
		if steerEach > 6000 && k != kRead && k != kTest {
			// Growing fast: big file reads and test logs.
			k = kRead
			if par == 1 && chance(a.r, 0.4) {
				k = kTest
			}
		}
		ac := a.action(k, steerEach, limit, picked)
		if ac.file != nil {
			picked[ac.file] = true
		}
		s.actions = append(s.actions, ac)
	}
	return s
}

// action fills in one tool call of kind k. steer is the output size the
// session wants (0 for none), limit the most it may produce (-1 for none).
func (a *agent) action(k kind, steer, limit int, picked map[*srcFile]bool) action {
	r := a.r
	ac := action{kind: k}
	size := 0
	switch k {
	case kRead:
		ac.file = a.pickRead(steer)
		for i := 0; i < 8 && picked[ac.file]; i++ {
			ac.file = pick(r, a.ws.files)
		}
		whole := a.ws.chars(ac.file)
		size = whole
		if chance(r, 0.3) && steer == 0 {
			size = logNormalInt(r, 3000, 0.8, 300, 20000)
		}
	case kGrep:
		size = logNormalInt(r, 900, 1.1, 60, 40000)
		ac.pattern = a.pattern()
	case kGlob:
		size = 40 * logNormalInt(r, 12, 0.8, 1, 60)
	case kTest:
		size = logNormalInt(r, 2500, 1.2, 300, 60000)
		if chance(r, 0.08) {
			size = between(r, 20000, 60000)
		}
		ac.fail = chance(r, 0.35)
	case kShell:
		size = logNormalInt(r, 700, 0.9, 80, 8000)
	case kEdit:
		ac.file = a.pickEdit()
		ac.fail = chance(r, 0.05)
	case kWrite:
		size = logNormalInt(r, 1800, 0.6, 300, 4000)
	}
	if steer > size && (k == kRead || k == kTest || k == kGrep) {
		size = int(float64(steer) * logNormal(r, 1, 0.25))
	}
	size = min(size, 60000)
	if limit >= 0 && size > limit {
		size = max(limit, 200)
	}
	ac.size = size
	if k == kRead {
		if steer > 0 && size > a.ws.size(ac.file) {
			// Steering wants more than this file has: take the biggest of a few.
			for range 6 {
				if f := pick(r, a.ws.files); a.ws.size(f) > a.ws.size(ac.file) {
					ac.file = f
				}
			}
		}
		ac.start, ac.end = a.ws.lineRange(r, ac.file, size, limit)
		a.read = append(a.read, ac.file)
	}
	return ac
}

// pickRead chooses a file to read: often one read before (re-reads are a
// large share of real context growth), else any file.
func (a *agent) pickRead(steer int) *srcFile {
	if len(a.read) > 0 && chance(a.r, 0.3) {
		return a.read[len(a.read)-1-a.r.IntN(min(len(a.read), 6))]
	}
	if steer > 15000 {
		var best *srcFile
		for range 8 {
			if f := pick(a.r, a.ws.files); best == nil || a.ws.size(f) > a.ws.size(best) {
				best = f
			}
		}
		return best
	}
	return pick(a.r, a.ws.files)
}

// pickEdit prefers a file that was read recently.
func (a *agent) pickEdit() *srcFile {
	if len(a.read) > 0 && chance(a.r, 0.75) {
		return a.read[len(a.read)-1-a.r.IntN(min(len(a.read), 4))]
	}
	return a.ws.pickFile(a.r, false)
}

func (a *agent) pattern() string {
	c := &coder{r: a.r, l: a.ws.p.lang}
	switch a.ws.p.lang {
	case langPython:
		return c.snake()
	case langGo:
		return c.pascal()
	}
	return c.camel()
}

// writeContent returns the text of a new file of about size characters.
func (a *agent) writeContent(f *srcFile, size int) string {
	lines := a.ws.text(f)
	n, chars := 0, 0
	for n < len(lines) && chars+len(lines[n])+1 <= size {
		chars += len(lines[n]) + 1
		n++
	}
	f.lines = lines[:max(n, 1)]
	f.nLines = len(f.lines)
	return a.ws.slice(f, 1, len(f.lines))
}

// noteEdit records a changed path for the final summary.
func (a *agent) noteEdit(p string) {
	if !slices.Contains(a.edited, p) {
		a.edited = append(a.edited, p)
	}
}

// toolTime returns how long an action takes to run.
func toolTime(k kind) time.Duration {
	switch k {
	case kTest:
		return 18 * time.Second
	case kShell:
		return 900 * time.Millisecond
	case kGrep, kGlob:
		return 250 * time.Millisecond
	}
	return 60 * time.Millisecond
}

// modelTime returns the latency of a model call producing out tokens.
func modelTime(out int) time.Duration {
	return 1200*time.Millisecond + time.Duration(out)*18*time.Millisecond
}
