package simulate

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// digits is the number of decimal digits of n ≥ 0.
func digits(n int64) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

// ceilDiv4 is the chars/4 token estimate of a placeholder text of n characters.
func ceilDiv4(n int) int32 { return int32((n + 3) / 4) }

// ---------------------------------------------------------------- keep-all

type keepAll struct{}

func (keepAll) Reset(*Sim)            {}
func (keepAll) Before(int, *Sim)      {}
func newKeepAll(*Args) (rules, error) { return keepAll{}, nil }

// ---------------------------------------------------------------- provider truncation

// truncate drops the oldest non-head items until the prompt fits (OpenAI
// Responses truncation "auto"; the drop order is unspecified upstream, so the
// survey's stand-in): the system items and the first user item stay, a tool
// call goes with its result, nothing is inserted. Dropped items stay dropped
// (with the full history resent each time, the dropped set only grows).
type truncate struct{ next int32 }

func (p *truncate) Reset(*Sim)       { p.next = 0 }
func (p *truncate) Before(int, *Sim) {}
func (p *truncate) OnOverflow(t int, s *Sim) {
	reserve := s.Output(t)
	items := s.Tr.Items
	// a result whose call was dropped goes too, even once the prompt fits
	orphan := func(i int32) bool {
		it := &items[i]
		return it.Kind == ItemToolResult && it.Call >= 0 && s.Mode(it.Call) == Dropped
	}
	for int(p.next) < len(items) && s.Admitted(p.next) && (s.Prompt()+reserve > s.WindowTokens || orphan(p.next)) {
		i := p.next
		p.next++
		if items[i].Head || s.Mode(i) == Dropped {
			continue
		}
		s.Drop(i)
	}
}

func newTruncate(*Args) (rules, error) { return &truncate{}, nil }

// ---------------------------------------------------------------- DTOC

type dtocMode uint8

const (
	dtocLogged dtocMode = iota
	dtocDisableOnly
	dtocTracking
	dtocOracle
)

// dtoc replays DTOC's manage_context visibility (see the Def docs).
type dtoc struct {
	mode        dtocMode
	placeholder int32
	envelope    int32
	// tracking: the envelope added to a result the log shows without one,
	// the mean logged envelope of the run when it has any, else envelope
	add  int32
	next int // next logged op
	// oracle: the call each result was last needed at, the results to hide
	// at the next call unless needed again, the next use
	usedAt               []int32
	pending, nextPending []int32
	use                  int
}

func (p *dtoc) Reset(s *Sim) {
	p.next, p.use = 0, 0
	if p.mode == dtocTracking {
		var sum, n int64
		for i := range s.Tr.Items {
			if it := &s.Tr.Items[i]; it.Kind == ItemToolResult && it.Envelope > 0 {
				sum, n = sum+int64(it.Envelope), n+1
			}
		}
		p.add = p.envelope
		if n > 0 {
			p.add = int32((sum + n/2) / n) // rounded mean
		}
	}
	if p.mode != dtocOracle {
		return
	}
	p.usedAt = resize(p.usedAt, len(s.Tr.Items))
	for i := range p.usedAt {
		p.usedAt[i] = -1
	}
	p.pending, p.nextPending = p.pending[:0], p.nextPending[:0]
}

func (p *dtoc) Before(t int, s *Sim) {
	switch p.mode {
	case dtocTracking:
		// every new tool result carries its envelope
		for j := p.next; j < len(s.Tr.Admit); j++ {
			i := s.Tr.Admit[j]
			if int(s.Tr.Items[i].Since) > t {
				break
			}
			p.next = j + 1
			// a result the log shows in its envelope has it in its tokens already
			if it := &s.Tr.Items[i]; it.Kind == ItemToolResult && p.add > 0 && it.Envelope == 0 {
				s.set(i, Full, it.Tokens+p.add, it.Chars)
			}
		}
	case dtocLogged, dtocDisableOnly:
		ops := s.Tr.Ops
		for ; p.next < len(ops) && int(ops[p.next].From) <= t; p.next++ {
			op := ops[p.next]
			if !s.Admitted(op.Item) {
				continue
			}
			if op.Visible {
				if p.mode == dtocLogged {
					s.Restore(op.Item)
				} else {
					s.MarkLogged(op.Item, false) // the log shows it again; here it stays hidden
				}
			} else {
				s.SetPlaceholder(op.Item, p.placeholder, p.placeholder*4)
				s.MarkLogged(op.Item, true)
			}
		}
	case dtocOracle:
		// a result is visible at its arrival call and at each call that
		// uses it, a placeholder otherwise: changes happen only at those
		// calls and the call after, so only they are visited
		hide := p.pending
		p.pending = p.nextPending[:0]
		for ; p.next < len(s.Tr.Admit); p.next++ {
			i := s.Tr.Admit[p.next]
			if int(s.Tr.Items[i].Since) > t {
				break
			}
			if s.Tr.Items[i].Kind == ItemToolResult && s.Admitted(i) {
				p.usedAt[i] = int32(t)
				p.pending = append(p.pending, i)
			}
		}
		for ; p.use < len(s.Tr.Uses) && int(s.Tr.Uses[p.use].Call) <= t; p.use++ {
			u := &s.Tr.Uses[p.use]
			if int(u.Call) < t || !s.Admitted(u.Item) || p.usedAt[u.Item] == int32(t) {
				continue
			}
			p.usedAt[u.Item] = int32(t)
			s.Restore(u.Item)
			p.pending = append(p.pending, u.Item)
		}
		for _, i := range hide {
			if p.usedAt[i] != int32(t) && s.Admitted(i) && s.Tr.Items[i].Tokens > p.placeholder {
				s.SetPlaceholder(i, p.placeholder, p.placeholder*4)
			}
		}
		p.nextPending = hide
	}
}

func newDTOC(mode dtocMode) func(a *Args) (rules, error) {
	return func(a *Args) (rules, error) {
		p := &dtoc{mode: mode}
		if mode == dtocTracking {
			p.envelope = int32(a.Int("envelope"))
			a.Check(p.envelope >= 0, "envelope must be ≥ 0")
			return p, nil
		}
		p.placeholder = int32(a.Int("placeholder"))
		a.Check(p.placeholder >= 0, "placeholder must be ≥ 0")
		return p, nil
	}
}

// ---------------------------------------------------------------- half-life truncation

// halflife is Lewis's half-life truncation (see its Def doc).
type halflife struct {
	activate   float64
	keep       int
	capChars   int32
	floorChars int32
	stall      bool
	stallTok   int64

	active  bool
	results []int32 // tool results in admission order
	next    arrivals
	stallI  int
}

const halflifeMarker = "\n[... N characters omitted ...]\n"

func (p *halflife) Reset(*Sim) {
	p.active, p.results, p.next, p.stallI = false, p.results[:0], 0, 0
}

// capFor is the character cap of the result of age a (1 = newest); -1 = whole.
func (p *halflife) capFor(age int) int32 {
	if age <= p.keep {
		return -1
	}
	tier := 0
	for x := (age - 1) / p.keep; x > 1; x >>= 1 {
		tier++
	}
	c := int64(p.capChars) >> tier
	return int32(max(c, int64(p.floorChars)))
}

func (p *halflife) apply(s *Sim, j int) {
	i := p.results[j]
	c := p.capFor(len(p.results) - j)
	if c < 0 {
		s.Restore(i)
		return
	}
	s.Truncate(i, c, c/2, ceilDiv4(len(halflifeMarker)), int32(len(halflifeMarker)))
}

func (p *halflife) Before(t int, s *Sim) {
	l0 := len(p.results)
	for _, i := range p.next.upTo(s.Tr, t) {
		if s.Tr.Items[i].Kind == ItemToolResult {
			p.results = append(p.results, i)
		}
	}
	if p.stall {
		for ; p.stallI < len(s.Tr.Stalls) && int(s.Tr.Stalls[p.stallI]) <= t; p.stallI++ {
			if int(s.Tr.Stalls[p.stallI]) == t {
				s.Inject(p.stallTok)
			}
		}
	}
	if !p.active {
		if s.WindowTokens <= 0 || float64(s.FullPrompt()) < p.activate*float64(s.WindowTokens) {
			return
		}
		p.active = true
		for j := range p.results {
			p.apply(s, j)
		}
		return
	}
	// only results whose age crossed a tier boundary change: age keep·2^k → keep·2^k+1
	l1 := len(p.results)
	if l1 == l0 {
		return
	}
	for b := p.keep; b < l1; b *= 2 {
		for j := max(0, l0-b); j < l1-b; j++ {
			p.apply(s, j)
		}
	}
}

func newHalflife(a *Args) (rules, error) {
	p := &halflife{activate: a.Float("activate"), keep: int(a.Int("keep")), capChars: int32(a.Int("cap")),
		floorChars: int32(a.Int("floor")), stall: a.Bool("stall"), stallTok: a.Int("stall_tokens")}
	a.Check(p.activate >= 0 && p.activate <= 1, "activate must be in [0,1]")
	a.Check(p.keep >= 1, "keep must be ≥ 1")
	a.Check(p.capChars > 0, "cap must be > 0")
	a.Check(p.floorChars >= 0 && p.floorChars <= p.capChars, "floor must be in [0, cap]")
	return p, nil
}

// ---------------------------------------------------------------- observation masking

// mask keeps the newest n observations (tool results) and replaces older
// ones by the harness's placeholder (see its Def doc).
type mask struct {
	n       int
	polling int
	style   string
	events  bool

	results []int32
	next    arrivals
	masked  int // results[:masked] are masked
	items   int // admitted items (unit=events)
}

func (p *mask) Reset(*Sim) { p.results, p.next, p.masked, p.items = p.results[:0], 0, 0, 0 }

func (p *mask) placeholder(s *Sim, i int32) (int32, int32) {
	if p.style == "openhands" {
		const txt = "<MASKED>"
		return ceilDiv4(len(txt)), int32(len(txt))
	}
	// "Old environment output: ({lines} lines omitted)", measured without building it
	n := len("Old environment output: ( lines omitted)") + digits(int64(s.Tr.Items[i].Lines))
	return ceilDiv4(n), int32(n)
}

func (p *mask) Before(t int, s *Sim) {
	for _, i := range p.next.upTo(s.Tr, t) {
		p.items++
		if s.Tr.Items[i].Kind == ItemToolResult {
			p.results = append(p.results, i)
		}
	}
	// the cut point moves only when the count reaches a multiple of
	// polling (SWE-agent's LastNObservations): with polling 1 at every
	// new observation, else between n and n+polling−1 stay verbatim and
	// the masked prefix (and the prompt cache before it) changes every
	// polling observations
	var cut int
	if p.events {
		// OpenHands: an observation older than the last n events
		cut = p.items/p.polling*p.polling - p.n
	} else {
		// SWE-agent counts the task message as observation 0 and never
		// masks it: obs[1 : ⌊(1+results)/polling⌋·polling − n]
		cut = (1+len(p.results))/p.polling*p.polling - p.n - 1
	}
	for p.masked < len(p.results) {
		i := p.results[p.masked]
		var old bool
		if p.events {
			old = int(i) < cut
		} else {
			old = p.masked < cut
		}
		if !old {
			break
		}
		tok, chr := p.placeholder(s, i)
		if tok < s.Tr.Items[i].Tokens {
			s.SetPlaceholder(i, tok, chr)
		}
		p.masked++
	}
}

func newMask(a *Args) (rules, error) {
	p := &mask{n: int(a.Int("n")), polling: int(a.Int("polling")), style: a.OneOf("style", "swe-agent", "openhands"), events: a.OneOf("unit", "observations", "events") == "events"}
	a.Check(p.n >= 0, "n must be ≥ 0")
	a.Check(p.polling >= 1, "polling must be ≥ 1")
	p.polling = max(p.polling, 1)
	return p, nil
}

// ---------------------------------------------------------------- Anthropic clear_tool_uses

type clearToolUses struct {
	trigger     int64
	keep        int
	atLeast     int64
	exclude     map[string]bool
	inputs      bool
	placeholder int32

	results []int32
	next    arrivals
	cleared int   // results[:cleared] decided
	cand    int   // results[:cand] are candidates (all but the newest keep)
	candTok int64 // tokens clearing results[cleared:cand] would free
}

func (p *clearToolUses) Reset(*Sim) {
	p.results, p.next, p.cleared, p.cand, p.candTok = p.results[:0], 0, 0, 0, 0
}

func (p *clearToolUses) Before(t int, s *Sim) {
	for _, i := range p.next.upTo(s.Tr, t) {
		if it := &s.Tr.Items[i]; it.Kind == ItemToolResult && !p.exclude[it.Tool] {
			p.results = append(p.results, i)
		}
	}
	// the trigger reads the full history's input tokens (the client resends all)
	if s.FullPrompt() <= p.trigger {
		return
	}
	ncand := len(p.results) - p.keep
	if ncand <= 0 {
		return
	}
	// clear_at_least: a clearing happens only when the candidates not
	// cleared yet would free that many tokens (their tokens less the
	// placeholders, and their calls' inputs with clear_tool_inputs), so
	// the cleared set, and the cached prefix with it, changes in batches
	for ; p.cand < ncand; p.cand++ {
		p.candTok += p.frees(s, p.results[p.cand])
	}
	if p.candTok < p.atLeast {
		return
	}
	p.candTok = 0
	for ; p.cleared < ncand; p.cleared++ {
		i := p.results[p.cleared]
		if p.placeholder < s.Tr.Items[i].Tokens {
			s.SetPlaceholder(i, p.placeholder, p.placeholder*4)
		}
		if c := s.Tr.Items[i].Call; p.inputs && c >= 0 && s.Admitted(c) && s.Mode(c) == Full {
			s.Drop(c)
		}
	}
}

// frees is what clearing result i would take off the prompt.
func (p *clearToolUses) frees(s *Sim, i int32) int64 {
	it := &s.Tr.Items[i]
	f := max(int64(it.Tokens)-int64(p.placeholder), 0)
	if c := it.Call; p.inputs && c >= 0 && s.Admitted(c) && s.Mode(c) == Full {
		f += int64(s.Tr.Items[c].Tokens)
	}
	return f
}

func newClearToolUses(a *Args) (rules, error) {
	p := &clearToolUses{trigger: a.Int("trigger"), keep: int(a.Int("keep")), atLeast: a.Int("clear_at_least"),
		inputs: a.Bool("clear_tool_inputs"), placeholder: int32(a.Int("placeholder")), exclude: map[string]bool{}}
	for _, t := range strings.Split(a.String("exclude_tools"), ";") {
		if t = strings.TrimSpace(t); t != "" {
			p.exclude[t] = true
		}
	}
	a.Check(p.keep >= 0, "keep must be ≥ 0")
	return p, nil
}

// ---------------------------------------------------------------- Gemini CLI tool-output masking

type geminiMask struct {
	protect, prune int64
	latest         bool
	placeholder    int32
	placeChars     int32

	results []int32
	next    arrivals
}

func (p *geminiMask) Reset(*Sim) { p.results, p.next = p.results[:0], 0 }

func (p *geminiMask) Before(t int, s *Sim) {
	for _, i := range p.next.upTo(s.Tr, t) {
		if s.Tr.Items[i].Kind == ItemToolResult {
			p.results = append(p.results, i)
		}
	}
	// newest → oldest: skip the latest turn's outputs, protect the newest
	// `protect` tool tokens, the rest (unmasked) is prunable
	var protected, prunable int64
	j := len(p.results) - 1
	if p.latest {
		for j >= 0 && int(s.Tr.Items[p.results[j]].Since) == t {
			j--
		}
	}
	for ; j >= 0; j-- {
		i := p.results[j]
		if s.Mode(i) != Full {
			break // everything older is masked already
		}
		tok := int64(s.Tr.Items[i].Tokens)
		if protected+tok <= p.protect {
			protected += tok
			continue
		}
		break
	}
	first := j // results[:first+1] are prunable or masked
	for k := first; k >= 0; k-- {
		i := p.results[k]
		if s.Mode(i) != Full {
			break
		}
		prunable += int64(s.Tr.Items[i].Tokens)
	}
	if prunable < p.prune {
		return
	}
	for k := first; k >= 0; k-- {
		i := p.results[k]
		if s.Mode(i) != Full {
			break
		}
		if p.placeholder < s.Tr.Items[i].Tokens {
			s.SetPlaceholder(i, p.placeholder, p.placeChars)
		}
	}
}

func newGeminiMask(a *Args) (rules, error) {
	p := &geminiMask{protect: a.Int("protect"), prune: a.Int("prune"), latest: a.Bool("protect_latest_turn")}
	preview := a.Int("preview")
	// "<tool_output_masked>\n{head}\n... [TRUNCATED] ...\n{tail}\n\nOutput too large. Full output available at: {path}\n</tool_output_masked>"
	const wrapper = len("<tool_output_masked>\n\n... [TRUNCATED] ...\n\n\nOutput too large. Full output available at: \n</tool_output_masked>") + 60 // a 60-char temp path
	p.placeChars = int32(preview) + int32(wrapper)
	p.placeholder = ceilDiv4(int(p.placeChars))
	a.Check(p.protect >= 0 && p.prune >= 0 && preview >= 0, "protect, prune and preview must be ≥ 0")
	return p, nil
}

// ---------------------------------------------------------------- TRACER baselines

type tracerKind uint8

const (
	tracerUniform tracerKind = iota
	tracerRecency
	tracerProportional
	tracerToolType
)

// tracer applies retention ratios by truncation at compression events (see the Def docs).
type tracer struct {
	kind    tracerKind
	r       float64
	trigger float64
	keep    int
	ratios  [len(ClassNames)]float64

	results []int32
	next    arrivals
	done    int // results[:done] compressed
	batch   []int32
	ratio   []float64
}

const tracerMarker = "\n[... truncated ...]"

func (p *tracer) Reset(*Sim) { p.results, p.next, p.done = p.results[:0], 0, 0 }

func (p *tracer) Before(t int, s *Sim) {
	for _, i := range p.next.upTo(s.Tr, t) {
		if s.Tr.Items[i].Kind == ItemToolResult {
			p.results = append(p.results, i)
		}
	}
	if s.WindowTokens <= 0 || float64(s.Prompt()) < p.trigger*float64(s.WindowTokens) {
		return
	}
	end := len(p.results) - p.keep
	if end <= p.done {
		return
	}
	p.batch = append(p.batch[:0], p.results[p.done:end]...)
	p.done = end
	p.ratio = p.ratio[:0]
	m := len(p.batch)
	switch p.kind {
	case tracerUniform:
		for range p.batch {
			p.ratio = append(p.ratio, p.r)
		}
	case tracerRecency:
		// linear in recency within the event, newest 2r (≤ 1) down to 0, mean r
		for k := range p.batch {
			rank := m - k // 1 = newest
			p.ratio = append(p.ratio, min(1, 2*p.r*float64(m-rank+1)/float64(m+1)))
		}
	case tracerProportional:
		// water-filling: one token cap c for every output of the event with Σ min(T, c) = r·Σ T
		var total float64
		sizes := make([]float64, m)
		for k, i := range p.batch {
			sizes[k] = float64(s.Tr.Items[i].Tokens)
			total += sizes[k]
		}
		c := waterLevel(sizes, p.r*total)
		for _, sz := range sizes {
			if sz <= 0 {
				p.ratio = append(p.ratio, 1)
				continue
			}
			p.ratio = append(p.ratio, min(1, c/sz))
		}
	case tracerToolType:
		for _, i := range p.batch {
			p.ratio = append(p.ratio, p.ratios[s.Tr.Items[i].Class])
		}
	}
	for k, i := range p.batch {
		it := &s.Tr.Items[i]
		keep := int32(math.Round(p.ratio[k] * float64(it.Chars)))
		s.Truncate(i, keep, keep, ceilDiv4(len(tracerMarker)), int32(len(tracerMarker)))
	}
}

// waterLevel returns c with Σ min(x, c) = budget (x ≥ 0, 0 ≤ budget ≤ Σ x).
func waterLevel(xs []float64, budget float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	var below float64
	for k, x := range s {
		rest := float64(len(s) - k)
		if below+x*rest >= budget {
			return (budget - below) / rest
		}
		below += x
	}
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1]
}

func newTracer(kind tracerKind) func(a *Args) (rules, error) {
	return func(a *Args) (rules, error) {
		p := &tracer{kind: kind, trigger: a.Float("trigger"), keep: int(a.Int("keep"))}
		a.Check(p.trigger >= 0 && p.trigger <= 1, "trigger must be in [0,1]")
		a.Check(p.keep >= 0, "keep must be ≥ 0")
		if kind == tracerToolType {
			for k := range p.ratios {
				p.ratios[k] = 0.5
			}
			for _, kv := range strings.Split(a.String("ratios"), ";") {
				if kv = strings.TrimSpace(kv); kv == "" {
					continue
				}
				c, v, ok := strings.Cut(kv, ":")
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				code := -1
				for ci, n := range ClassNames {
					if n == strings.TrimSpace(c) {
						code = ci
					}
				}
				if !ok || err != nil || code < 0 || f < 0 || f > 1 {
					a.Check(false, "ratios entry %q must be class:ratio with a class of %s and a ratio in [0,1]", kv, strings.Join(ClassNames[:], ", "))
					continue
				}
				p.ratios[code] = f
			}
			return p, nil
		}
		p.r = a.Float("r")
		a.Check(p.r >= 0 && p.r <= 1, "r must be in [0,1]")
		return p, nil
	}
}
