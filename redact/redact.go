package redact

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/rs/zerolog"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// Marker is what a secret found by rule id is replaced with.
func Marker(rule string) string { return "[REDACTED:" + rule + "]" }

// Redactor redacts text with gitleaks' default rules and counts the
// secrets it replaced. The zero value is not usable: use New. Its methods
// are safe for concurrent use; a nil *Redactor redacts nothing.
type Redactor struct {
	det *detectors
	n   atomic.Int64
}

var (
	defaultOnce sync.Once
	defaultDet  *detectors
	defaultErr  error
)

// detector compiles gitleaks' default configuration once per process.
func detector() (*detectors, error) {
	defaultOnce.Do(func() {
		// gitleaks logs (to stderr) from inside detection; trajmine's
		// stderr is its own
		logging.Logger = logging.Logger.Level(zerolog.Disabled)
		v := viper.New()
		v.SetConfigType("toml")
		if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
			defaultErr = fmt.Errorf("redact: read gitleaks rules: %w", err)
			return
		}
		var vc config.ViperConfig
		if err := v.Unmarshal(&vc); err != nil {
			defaultErr = fmt.Errorf("redact: read gitleaks rules: %w", err)
			return
		}
		cfg, err := vc.Translate()
		if err != nil {
			defaultErr = fmt.Errorf("redact: compile gitleaks rules: %w", err)
			return
		}
		defaultDet, defaultErr = newDetectors(cfg)
	})
	return defaultDet, defaultErr
}

// New returns a Redactor with gitleaks' default rules (compiled on the
// first call, then shared).
func New() (*Redactor, error) {
	d, err := detector()
	if err != nil {
		return nil, err
	}
	return &Redactor{det: d}, nil
}

// Count is how many secrets r has replaced so far.
func (r *Redactor) Count() int {
	if r == nil {
		return 0
	}
	return int(r.n.Load())
}

// String is Text without the count: s with its secrets replaced.
func (r *Redactor) String(s string) string {
	out, _ := r.Text(s)
	return out
}

// Text returns s with every secret replaced by Marker(rule) and the
// number replaced, which is added to r's count. A nil r returns s, 0.
func (r *Redactor) Text(s string) (string, int) {
	if r == nil || len(s) < minSecret {
		return s, 0
	}
	out, n := redact(r.det, s)
	if n > 0 {
		r.n.Add(int64(n))
	}
	return out, n
}

// Text is New().Text(s): s with its secrets replaced, and how many.
func Text(s string) (string, int) {
	r, err := New()
	if err != nil {
		panic(err) // the embedded rules compile (TestRulesCompile)
	}
	return r.Text(s)
}

// minSecret is the length under which no rule matches (the shortest
// secrets gitleaks' rules accept are longer).
const minSecret = 8

type span struct {
	start, end int
	rule       string
}

func redact(d *detectors, s string) (string, int) {
	fs := d.find(s) // prefilters on the rules' keywords
	if strings.Contains(s, `\"`) {
		// JSON-escaped text (tool-call arguments): rules that end a secret
		// at a quote (anthropic-api-key: ["\s;'`] or \n, \r) miss one
		// followed by \"; the text with \" as ` "` (same length) ends
		// it, and the secrets found are looked for in s as text
		fs = append(fs, d.find(strings.ReplaceAll(s, `\"`, ` "`))...)
	}
	urls := urlPasswords(s)
	if len(fs) == 0 && len(urls) == 0 {
		return s, 0
	}
	// one rule per secret, whatever the detector's (map) order: a
	// provider's rule over the generic one, then the first by id
	type secret struct{ text, rule string }
	var secrets []secret
	at := map[string]int{}
	for _, f := range fs {
		t := strings.TrimSpace(f.Secret)
		if len(t) < 4 {
			continue
		}
		i, ok := at[t]
		if !ok {
			at[t] = len(secrets)
			secrets = append(secrets, secret{t, f.RuleID})
			continue
		}
		if betterRule(f.RuleID, secrets[i].rule) {
			secrets[i].rule = f.RuleID
		}
	}
	// longest first, so that a secret inside a longer one (a key within
	// the private-key block) is part of the longer span
	slices.SortFunc(secrets, func(a, b secret) int {
		return cmp.Or(cmp.Compare(len(b.text), len(a.text)), cmp.Compare(a.text, b.text))
	})
	var spans []span
	for _, sc := range secrets {
		for off := 0; ; {
			i := strings.Index(s[off:], sc.text)
			if i < 0 {
				break
			}
			sp := span{off + i, off + i + len(sc.text), sc.rule}
			off = sp.end
			if !slices.ContainsFunc(spans, func(o span) bool { return overlap(sp, o) }) {
				spans = append(spans, sp)
			}
		}
	}
	for _, u := range urls {
		spans = mergeSpan(spans, u)
	}
	if len(spans) == 0 {
		return s, 0
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp.start])
		b.WriteString(Marker(sp.rule))
		last = sp.end
	}
	b.WriteString(s[last:])
	return b.String(), len(spans)
}

func overlap(a, b span) bool { return a.start < b.end && b.start < a.end }

// mergeSpan adds u (a URL password) to spans, which do not overlap: the
// spans u overlaps and u become their union, one span named by the
// longest of them (the earlier, a rule of gitleaks', on a tie), so that a
// token gitleaks names (https://x-access-token:ghp_…@github.com) keeps its
// name and no part of a password around a secret stays shown.
func mergeSpan(spans []span, u span) []span {
	m := u
	name := u
	out := spans[:0]
	for _, o := range spans {
		if !overlap(o, u) {
			out = append(out, o)
			continue
		}
		m.start, m.end = min(m.start, o.start), max(m.end, o.end)
		if o.end-o.start >= name.end-name.start {
			name = o
		}
	}
	m.rule = name.rule
	return append(out, m)
}

// betterRule reports whether rule a names a secret better than rule b: a
// provider's rule over gitleaks' generic ones, then the first by id.
func betterRule(a, b string) bool {
	ga, gb := strings.HasPrefix(a, "generic"), strings.HasPrefix(b, "generic")
	if ga != gb {
		return gb
	}
	return a < b
}

// maxBlock is how far Head reads past n for a private-key block that
// starts before n (an RSA 4096-bit PEM block is about 3.3 KB).
const maxBlock = 16 << 10

const beginMark = "-----BEGIN"

// Head returns the first n bytes of s (cut at a rune boundary) redacted,
// and how many secrets it replaced: what a preview of s needs, at the cost
// of n bytes instead of all of s. A secret that starts in the head and
// ends past it is redacted when it ends within the head, or when it is a
// private-key block ending within maxBlock: the head is then read to the
// block's end. A nil r returns the head as it is. Head does not add to
// r's count: a caller that shows part of the head counts what it shows
// (Add, Markers).
func (r *Redactor) Head(s string, n int) (string, int) {
	if len(s) > n {
		h := cutBytes(s, n)
		if strings.Contains(cutBytes(s, n+len(beginMark)), beginMark) {
			// a key block: the rule needs its END line
			h = cutBytes(s, len(h)+maxBlock)
		}
		s = h
	}
	if r == nil || len(s) < minSecret {
		return s, 0
	}
	return redact(r.det, s)
}

// Add adds n to r's count (what a caller shows of Head's result).
func (r *Redactor) Add(n int) {
	if r != nil {
		r.n.Add(int64(n))
	}
}

// Markers counts the markers in s, one cut off at its end included (a
// preview cut inside "[REDACTED:rule]" still hides a secret there).
func Markers(s string) int {
	const open = "[REDACTED:"
	n := strings.Count(s, open)
	if i := strings.LastIndexByte(s, '['); i >= 0 {
		tail := strings.TrimRight(s[i:], "…")
		if len(tail) < len(open) && strings.HasPrefix(open, tail) && len(tail) > 1 {
			n++
		}
	}
	return n
}

// cutBytes is s's first n bytes at most, not splitting a rune.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
