package simulate

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// The learned TRACER policy (the catalog's "tracer"): at each compression
// event — the tracer-* baselines' trigger, prompt ≥ trigger × window — every
// tool result not yet compressed, except the newest keep, gets a retention
// ratio in [0, 1] from a Retainer, and a fixed compressor applies it.
// Package tracer trains the Retainer offline (a two-layer MLP with a Beta
// head, REINFORCE); the catalog entry reads the trained weights from a
// RetentionModel file and uses the Beta mean.
//
// At an event at call t each candidate's features use only what is known
// at t (FeatureNames): its tool name and action class, its size, its age in
// calls, the uses of it the provenance model (package counterfactual) saw at
// calls before t, its rank and token share within the event, the prompt's
// share of the window, the run's query (the first user message's terms,
// hashed), and the kind of its call's target (TargetNames: a file, a
// directory, a glob, a URL, a command line or query, none).

// Compressors a learned policy applies a ratio with.
const (
	// CompressTruncate keeps round(r × chars) characters, half from the
	// head and half from the tail, plus the tracer baselines' marker.
	CompressTruncate = "truncate"
	// CompressHead keeps the first round(r × chars) characters (the
	// tracer-* baselines' compressor).
	CompressHead = "head"
	// CompressSummary replaces the output by a summary stand-in of
	// ceil(r × tokens) + marker tokens (one summarizer call of the output's
	// tokens in, the stand-in out); a summary keeps no evidence offsets, so
	// any later content use of a summarized output is a re-invocation.
	CompressSummary = "summary"
)

// Feature layout (FeatureNames). Tool names and query terms are hashed
// (FNV-1a) into fixed buckets.
const (
	toolBuckets  = 32
	queryBuckets = 16
)

// FeatureNames names the features of a candidate, in order.
var FeatureNames = func() []string {
	f := []string{"bias"}
	for _, c := range ClassNames {
		f = append(f, "class="+c)
	}
	for b := range toolBuckets {
		f = append(f, fmt.Sprintf("tool#%d", b))
	}
	f = append(f, "log_tokens", "log_age", "log_content_uses", "log_target_uses", "window_share", "event_rank", "event_token_share")
	for b := range queryBuckets {
		f = append(f, fmt.Sprintf("query#%d", b))
	}
	for _, k := range TargetNames {
		f = append(f, "target="+k)
	}
	return f
}()

// FeatureDim is len(FeatureNames).
var FeatureDim = len(FeatureNames)

const (
	fClass      = 1
	fTool       = fClass + len(ClassNames)
	fTokens     = fTool + toolBuckets
	fAge        = fTokens + 1
	fContent    = fTokens + 2
	fTarget     = fTokens + 3
	fWindow     = fTokens + 4
	fRank       = fTokens + 5
	fTokenShare = fTokens + 6
	fQuery      = fTokens + 7
	fTargetKind = fQuery + queryBuckets
)

// Candidate is one tool output at a compression event.
type Candidate struct {
	Item int32
	// X are its features (FeatureNames); the slice is the policy's buffer,
	// valid until the next event: copy it to keep it.
	X []float64
	// Ratio is the retention ratio the Retainer chose, in [0, 1].
	Ratio float64
	// Mode, Head and Tail are set after the compressor ran: the output's
	// rendering and, when Truncated, the characters kept at each end.
	Mode       Mode
	Head, Tail int32
}

// Event is one compression event.
type Event struct {
	Call   int
	Prompt int64 // the prompt when the event fired
	Cands  []Candidate
}

// Retainer chooses the retention ratios of an event's candidates.
type Retainer interface {
	Retain(tr *Trace, ev *Event)
}

// Applied is implemented by Retainers that want to see an event after
// its compressor ran (package tracer records decisions this way).
type Applied interface {
	Applied(tr *Trace, ev *Event)
}

// LearnedOptions configures NewLearned.
type LearnedOptions struct {
	Trigger    float64 // compression event when the prompt reaches this share of the window (0 means 0.5)
	Keep       int     // newest tool results left whole at an event
	Compressor string  // CompressTruncate (default), CompressHead or CompressSummary
	Name       string  // the policy's Name (default "tracer(retainer)")
}

// NewLearned is the learned policy with ratios from r.
func NewLearned(r Retainer, o *LearnedOptions) (Policy, error) {
	var oo LearnedOptions
	if o != nil {
		oo = *o
	}
	if oo.Trigger == 0 {
		oo.Trigger = 0.5
	}
	if oo.Compressor == "" {
		oo.Compressor = CompressTruncate
	}
	if oo.Name == "" {
		oo.Name = "tracer(retainer)"
	}
	if oo.Trigger < 0 || oo.Trigger > 1 || oo.Keep < 0 {
		return nil, fmt.Errorf("learned policy: trigger must be in [0,1] and keep ≥ 0")
	}
	switch oo.Compressor {
	case CompressTruncate, CompressHead, CompressSummary:
	default:
		return nil, fmt.Errorf("learned policy: unknown compressor %q", oo.Compressor)
	}
	return &learnedPolicy{learned: learned{r: r, trigger: oo.Trigger, keep: oo.Keep, comp: oo.Compressor}, name: oo.Name}, nil
}

type learnedPolicy struct {
	learned
	name string
}

func (p *learnedPolicy) Name() string { return p.name }

// learned is the policy's rules (see the file comment).
type learned struct {
	r       Retainer
	trigger float64
	keep    int
	comp    string

	results         []int32
	next            arrivals
	done, use       int
	content, target []int32 // per item: uses seen at calls before the current one
	query           [queryBuckets]float64
	ev              Event
	xbuf            []float64
}

func (p *learned) Reset(s *Sim) {
	p.results, p.next, p.done, p.use = p.results[:0], 0, 0, 0
	p.content = resize(p.content, len(s.Tr.Items))
	p.target = resize(p.target, len(s.Tr.Items))
	p.query = QueryFeatures(s.Tr.Query)
}

func (p *learned) Before(t int, s *Sim) {
	tr := s.Tr
	for _, i := range p.next.upTo(tr, t) {
		if tr.Items[i].Kind == ItemToolResult {
			p.results = append(p.results, i)
		}
	}
	// uses at calls before t are known now; those at t are not
	for ; p.use < len(tr.Uses) && int(tr.Uses[p.use].Call) < t; p.use++ {
		u := &tr.Uses[p.use]
		if u.Content {
			p.content[u.Item]++
		} else {
			p.target[u.Item]++
		}
	}
	if s.WindowTokens <= 0 || float64(s.Prompt()) < p.trigger*float64(s.WindowTokens) {
		return
	}
	end := len(p.results) - p.keep
	if end <= p.done {
		return
	}
	batch := p.results[p.done:end]
	p.done = end
	m := len(batch)
	p.xbuf = resize(p.xbuf, m*FeatureDim)
	p.ev.Call, p.ev.Prompt = t, s.Prompt()
	p.ev.Cands = p.ev.Cands[:0]
	var total float64
	for _, i := range batch {
		total += float64(tr.Items[i].Tokens)
	}
	share := float64(s.Prompt()) / float64(s.WindowTokens)
	for k, i := range batch {
		it := &tr.Items[i]
		x := p.xbuf[k*FeatureDim : (k+1)*FeatureDim]
		x[0] = 1
		x[fClass+int(min(it.Class, uint8(len(ClassNames)-1)))] = 1
		x[fTool+bucket(it.Tool, toolBuckets)] = 1
		x[fTokens] = math.Log1p(float64(it.Tokens)) / 10
		x[fAge] = math.Log1p(float64(max(t-int(it.Since), 0))) / 5
		x[fContent] = math.Log1p(float64(p.content[i]))
		x[fTarget] = math.Log1p(float64(p.target[i]))
		x[fWindow] = share
		if m > 1 {
			x[fRank] = float64(m-1-k) / float64(m-1) // 0 newest, 1 oldest
		}
		if total > 0 {
			x[fTokenShare] = float64(it.Tokens) / total
		}
		copy(x[fQuery:], p.query[:])
		x[fTargetKind+int(min(it.Target, uint8(len(TargetNames)-1)))] = 1
		p.ev.Cands = append(p.ev.Cands, Candidate{Item: i, X: x, Ratio: 1})
	}
	p.r.Retain(tr, &p.ev)
	for k := range p.ev.Cands {
		c := &p.ev.Cands[k]
		c.Ratio = min(max(c.Ratio, 0), 1)
		p.apply(s, c.Item, c.Ratio)
		c.Mode, c.Head, c.Tail = s.mode[c.Item], s.head[c.Item], s.tail[c.Item]
	}
	if a, ok := p.r.(Applied); ok {
		a.Applied(tr, &p.ev)
	}
}

// apply renders item i at ratio r with the policy's compressor.
func (p *learned) apply(s *Sim, i int32, r float64) {
	it := &s.Tr.Items[i]
	markTok, markChr := ceilDiv4(len(tracerMarker)), int32(len(tracerMarker))
	switch p.comp {
	case CompressSummary:
		if r >= 1 {
			return
		}
		tok := int32(math.Ceil(r*float64(it.Tokens))) + markTok
		if tok >= it.Tokens {
			return
		}
		s.SetPlaceholder(i, tok, 4*tok)
		s.SummarizerCall(int64(it.Tokens), int64(tok))
	default:
		keep := int32(math.Round(r * float64(it.Chars)))
		head := keep
		if p.comp == CompressTruncate {
			head = keep / 2
		}
		s.Truncate(i, keep, head, markTok, markChr)
	}
}

// Lost reports whether content use u of an output rendered as c (after its
// event) loses its evidence: the engine's rule for a predicted
// re-invocation.
func (c *Candidate) Lost(tr *Trace, u *Use) bool {
	if !u.Content {
		return false
	}
	switch c.Mode {
	case Full:
		return false
	case Truncated:
		full := tr.Items[c.Item].Chars
		for _, off := range u.Offsets {
			if off >= c.Head && off < full-c.Tail {
				return true
			}
		}
		return false
	}
	return true
}

// bucket is FNV-1a(s) mod n.
func bucket(s string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(s))
	return int(h.Sum32() % uint32(n))
}

// QueryFeatures hashes the lower-cased letter-or-digit terms (≥ 3
// characters) of a run's query into buckets and scales the counts to unit
// length (all zero without terms).
func QueryFeatures(q string) [queryBuckets]float64 {
	var v [queryBuckets]float64
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) >= 3 {
			v[bucket(w, queryBuckets)]++
		}
	}
	var n float64
	for _, x := range v {
		n += x * x
	}
	if n > 0 {
		n = math.Sqrt(n)
		for k := range v {
			v[k] /= n
		}
	}
	return v
}

// RetentionModel is a trained retention policy as package tracer writes
// it: a two-layer MLP, h = tanh(W1·x + B1), o = W2·h + B2, giving a Beta
// distribution α = softplus(o₀) + 1, β = softplus(o₁) + 1 over the ratio;
// the policy uses its mean α / (α + β).
type RetentionModel struct {
	Format     string    `json:"format"`   // RetentionFormat
	Features   []string  `json:"features"` // FeatureNames at training time
	Hidden     int       `json:"hidden"`
	W1         []float64 `json:"w1"` // Hidden × len(Features), row-major
	B1         []float64 `json:"b1"` // Hidden
	W2         []float64 `json:"w2"` // 2 × Hidden, row-major
	B2         []float64 `json:"b2"` // 2
	Trigger    float64   `json:"trigger"`
	Keep       int       `json:"keep"`
	Compressor string    `json:"compressor"`
}

// RetentionFormat names the model file format: /2 added the target-kind
// features (target=…), /1 had none.
const RetentionFormat = "trajmine-tracer/2"

// retentionFormats are the formats Upgrade reads.
var retentionFormats = []string{"trajmine-tracer/1", RetentionFormat}

// Upgrade maps a model read from a file onto this build's features by
// name: a feature this build has and the file lacks (a /1 file's
// target=…) gets zero weights, so the model gives the ratios it gave when
// it was trained. A feature the file has and this build lacks, or a format
// it does not know, is an error naming what to do.
func (m *RetentionModel) Upgrade() error {
	if !slices.Contains(retentionFormats, m.Format) {
		return fmt.Errorf("format %q, want %q (or an earlier %s): retrain with trajmine train tracer", m.Format, RetentionFormat, strings.Join(retentionFormats[:len(retentionFormats)-1], ", "))
	}
	if slices.Equal(m.Features, FeatureNames) {
		m.Format = RetentionFormat
		return nil
	}
	d, h := len(m.Features), m.Hidden
	if h < 1 || len(m.W1) != h*d {
		return fmt.Errorf("weights do not match hidden=%d and %d features", h, d)
	}
	col := make(map[string]int, FeatureDim)
	for k, f := range FeatureNames {
		col[f] = k
	}
	w1 := make([]float64, h*FeatureDim)
	for k, f := range m.Features {
		c, ok := col[f]
		if !ok {
			return fmt.Errorf("feature %q is not in this build (%s): retrain with trajmine train tracer", f, RetentionFormat)
		}
		for j := range h {
			w1[j*FeatureDim+c] = m.W1[j*d+k]
		}
	}
	m.W1, m.Features, m.Format = w1, slices.Clone(FeatureNames), RetentionFormat
	return nil
}

// Validate checks the model's shape against the current features.
func (m *RetentionModel) Validate() error {
	if m.Format != RetentionFormat {
		return fmt.Errorf("format %q, want %q", m.Format, RetentionFormat)
	}
	if len(m.Features) != FeatureDim {
		return fmt.Errorf("%d features, this build has %d", len(m.Features), FeatureDim)
	}
	for k, f := range m.Features {
		if f != FeatureNames[k] {
			return fmt.Errorf("feature %d is %q, this build has %q", k, f, FeatureNames[k])
		}
	}
	d, h := FeatureDim, m.Hidden
	if h < 1 || len(m.W1) != h*d || len(m.B1) != h || len(m.W2) != 2*h || len(m.B2) != 2 {
		return fmt.Errorf("weights do not match hidden=%d and %d features", h, d)
	}
	for _, w := range [][]float64{m.W1, m.B1, m.W2, m.B2} {
		for _, v := range w {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("weights are not finite")
			}
		}
	}
	return nil
}

// Softplus is log(1 + eˣ), computed stably.
func Softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}

// Beta returns the Beta parameters for features x; h (len Hidden) receives
// the hidden layer and o (len 2) the raw outputs.
func (m *RetentionModel) Beta(x, h, o []float64) (alpha, beta float64) {
	d := len(m.Features)
	// features are mostly zero (one-hot class and tool, hashed terms): walk the others
	var nzBuf [64]int
	nz := nzBuf[:0]
	for k, xk := range x {
		if xk != 0 {
			nz = append(nz, k)
		}
	}
	for j := range m.Hidden {
		v := m.B1[j]
		row := m.W1[j*d : (j+1)*d]
		for _, k := range nz {
			v += row[k] * x[k]
		}
		h[j] = math.Tanh(v)
	}
	for c := range 2 {
		v := m.B2[c]
		row := m.W2[c*m.Hidden : (c+1)*m.Hidden]
		for j, hj := range h {
			v += row[j] * hj
		}
		o[c] = v
	}
	return Softplus(o[0]) + 1, Softplus(o[1]) + 1
}

// Mean is a Retainer giving every candidate its Beta mean.
type Mean struct {
	M    *RetentionModel
	h, o []float64
}

// Retain sets each candidate's ratio to the model's mean.
func (r *Mean) Retain(_ *Trace, ev *Event) {
	if len(r.h) != r.M.Hidden {
		r.h, r.o = make([]float64, r.M.Hidden), make([]float64, 2)
	}
	for k := range ev.Cands {
		a, b := r.M.Beta(ev.Cands[k].X, r.h, r.o)
		ev.Cands[k].Ratio = a / (a + b)
	}
}

// constRetainer gives every candidate the same ratio (the untrained start).
type constRetainer float64

func (c constRetainer) Retain(_ *Trace, ev *Event) {
	for k := range ev.Cands {
		ev.Cands[k].Ratio = float64(c)
	}
}

// models caches loaded model files by path, size and modification time:
// Fresh rebuilds a policy per goroutine, and a file is read once.
var models sync.Map // modelKey → *RetentionModel

type modelKey struct {
	path  string
	size  int64
	mtime int64
}

// LoadRetentionModel reads and validates a model file.
func LoadRetentionModel(path string) (*RetentionModel, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	key := modelKey{abs, fi.Size(), fi.ModTime().UnixNano()}
	if m, ok := models.Load(key); ok {
		return m.(*RetentionModel), nil
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	m := &RetentionModel{}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	if err := m.Upgrade(); err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	models.Store(key, m)
	return m, nil
}

// newLearnedRules builds the catalog's tracer entry.
func newLearnedRules(a *Args) (rules, error) {
	path := a.String("model")
	if path == "" {
		return &learned{r: constRetainer(0.5), trigger: 0.5, keep: 1, comp: CompressTruncate}, nil
	}
	m, err := LoadRetentionModel(path)
	if err != nil {
		return nil, err
	}
	comp := m.Compressor
	if comp == "" {
		comp = CompressTruncate
	}
	return &learned{r: &Mean{M: m}, trigger: m.Trigger, keep: m.Keep, comp: comp}, nil
}

func init() {
	register(Def{Name: "tracer", Mechanism: MechanismTruncation, build: newLearnedRules, Explicit: true,
		Doc: "TRACER's learned per-tool retention: at each compression event (prompt ≥ the model's trigger × window) every tool result not yet " +
			"compressed, except the newest keep, gets the ratio a trained model (trajmine train tracer) gives its features — tool, class, size, age, " +
			"uses so far, rank and share in the event, window share, the run's query, its call's target kind — applied by the model's compressor (truncate: head + tail; " +
			"head; summary). Without a model every ratio is 0.5 (the untrained start). Not in the default set: name it with its model file.",
		Source: "TRACER seed paper (query-conditioned REINFORCE policy, Beta head, deterministic mean at evaluation); features and trigger ours",
		Params: []Param{{"model", "", "model file written by trajmine train tracer (empty: every ratio 0.5)"}}})
}
