package redact

import (
	"fmt"
	"maps"
	"strings"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/report"
)

// genericRule is gitleaks' generic key = value rule. Its keywords (key,
// token, api, auth, access, …) occur in most source code and logs, and its
// regular expression has no literal prefix, so Go's regexp runs it at
// about 1–2 MB/s over the whole of any text holding one of them: over 90 %
// of the time redaction takes on such text (BENCHMARKS.md). It is run on
// the text's generic windows instead, which find exactly the same
// secrets (genericWindows; FuzzGenericWindows checks it against the
// whole text).
const genericRule = "generic-api-key"

// detectors are gitleaks' default rules split in two: every rule but
// genericRule, run on the whole text, and genericRule alone, run on the
// generic windows.
type detectors struct {
	rest, generic *detect.Detector
	keywords      []string // genericRule's, lower case
}

// newDetectors splits cfg's rules (see detectors).
func newDetectors(cfg config.Config) (*detectors, error) {
	g, ok := cfg.Rules[genericRule]
	if !ok || len(g.Keywords) == 0 {
		return nil, fmt.Errorf("redact: gitleaks' rules have no %s rule with keywords", genericRule)
	}
	for id, r := range cfg.Rules {
		for _, req := range r.RequiredRules {
			if req.RuleID == genericRule {
				return nil, fmt.Errorf("redact: gitleaks' rule %s requires %s", id, genericRule)
			}
		}
	}
	rest, gen := cfg, cfg
	rest.Rules, rest.Keywords = maps.Clone(cfg.Rules), map[string]struct{}{}
	delete(rest.Rules, genericRule)
	for _, r := range rest.Rules {
		for _, k := range r.Keywords {
			rest.Keywords[strings.ToLower(k)] = struct{}{}
		}
	}
	gen.Rules, gen.Keywords = map[string]config.Rule{genericRule: g}, map[string]struct{}{}
	d := &detectors{}
	for _, k := range g.Keywords {
		k = strings.ToLower(k)
		gen.Keywords[k] = struct{}{}
		d.keywords = append(d.keywords, k)
	}
	d.rest, d.generic = detect.NewDetector(rest), detect.NewDetector(gen)
	// a "gitleaks:allow" comment marks a false positive in a repository
	// gitleaks scans; in a log it is text like any other (and the line
	// gitleaks would look for it in differs in a window)
	d.rest.IgnoreGitleaksAllow, d.generic.IgnoreGitleaksAllow = true, true
	return d, nil
}

// find returns gitleaks' findings in s: every rule's but genericRule's
// over s, genericRule's over each generic window of s.
func (d *detectors) find(s string) []report.Finding {
	fs := d.rest.DetectString(s)
	for _, w := range genericWindows(s, d.keywords) {
		fs = append(fs, d.generic.DetectString(w)...)
	}
	return fs
}

// maxBlankLines is how many lines may stand between a keyword and its
// secret in a match of genericRule: its regular expression
//
//	(?i)[\w.-]{0,50}?(?:access|auth|…|token)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}(secret)(?:[\x60'"\s;]|\\[nr]|$)
//
// crosses a newline only in [\s'"]{0,3} and [\x60'"\s=]{0,5}: 8 at most.
const maxBlankLines = 8

// genericWindows returns the parts of s where genericRule can match:
//
//  1. A match holds one of the rule's keywords (case-insensitively:
//     every alternative of the keyword group is one, or holds one) on
//     its first line, since nothing before the keyword crosses a newline.
//     A keyword line is a line that holds a keyword in lower case.
//  2. From its keyword line a match runs over at most maxBlankLines
//     lines holding only the characters between the keyword's word and
//     the secret (whitespace, quotes, backquotes and the operators' = : >
//     | ? ,), and ends on the line after them, at its end at the latest
//     (the secret and what follows it hold no newline but the last).
//  3. So every match lies in a window: a keyword line, the blank lines
//     after it (up to maxBlankLines), and the next line, each window
//     whole lines with their newlines and the newline before the first.
//     Windows that touch are
//     joined, so no match crosses from one to the next, and the rule's
//     leftmost matches in a window are the ones it finds there in s (it
//     has no \b, and $ is not multi-line: a window's end is s's end or
//     follows a newline, where no secret ends).
//
// (?i) also folds 'ſ' (U+017F) to 's' and 'K' (U+212A) to 'k', which
// strings.ToLower and gitleaks' keyword prefilter do not: a line that
// holds a keyword only so is no keyword line, and when s has one, s is
// returned whole (gitleaks then runs the rule over s when another line
// holds a keyword, as it would).
//
// A finding's line (report.Finding.Line), which one of the rule's
// allowlists looks at (a line with "--mount=type=secret," or a JavaScript
// import is no secret's), is the same in a window but in one case: for a
// match on the last line of a text that does not end in a newline,
// gitleaks takes the line to be all of the text up to the match's end, so
// an import anywhere before it allowlists it in s; in its window the line
// is its own. The windows then find it, and redact more than gitleaks
// would, never less: the allowlist's expressions are not anchored, so
// what the window's line matches, the longer line matches too.
// ("gitleaks:allow", which gitleaks also looks for in the line, is
// ignored: newDetectors.)
//
// Text with no keyword in lower case has no window, as gitleaks' own
// prefilter runs no rule on it; text that is all one window is s.
func genericWindows(s string, keywords []string) []string {
	if !hasKeyword(s, keywords) {
		return nil
	}
	if strings.ContainsRune(s, 'ſ') || strings.ContainsRune(s, '\u212A') {
		return []string{s}
	}
	var out []string
	start, end := -1, -1 // the current window, as byte offsets
	blank := 0           // blank lines since the last keyword line
	tail := false        // the line after the blank lines is still to be taken
	for off := 0; off < len(s); {
		n := strings.IndexByte(s[off:], '\n')
		next := len(s)
		if n >= 0 {
			next = off + n + 1
		}
		line := s[off:next]
		switch {
		case hasKeyword(line, keywords):
			if start < 0 {
				start = max(off-1, 0) // with the newline before
			}
			end, blank, tail = next, 0, true
		case tail && blankLine(line) && blank < maxBlankLines:
			end = next
			blank++
		case tail:
			end, tail = next, false
		default:
			if start >= 0 {
				out = append(out, s[start:end])
				start = -1
			}
		}
		off = next
	}
	if start >= 0 {
		out = append(out, s[start:end])
	}
	if len(out) == 1 && len(out[0]) == len(s) {
		return []string{s}
	}
	return out
}

// hasKeyword reports whether s holds one of keywords (lower case) in
// lower case.
func hasKeyword(s string, keywords []string) bool {
	low := strings.ToLower(s)
	for _, k := range keywords {
		if strings.Contains(low, k) {
			return true
		}
	}
	return false
}

// blankLine reports whether line (its newline included) holds only what
// genericRule's match may hold between a keyword's line and its secret's:
// whitespace, quotes, backquotes and the characters of its operators.
func blankLine(line string) bool {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ', '\t', '\n', '\r', '\f', '\v', '\'', '"', '`', '=', ':', '>', '|', '?', ',':
		default:
			return false
		}
	}
	return true
}
