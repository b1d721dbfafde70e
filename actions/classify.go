package actions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"sync"
	"sync/atomic"
)

// Options configure a Classifier. A nil *Options means the defaults only.
type Options struct {
	// Rules are tried before the defaults, in order: typically those of a
	// user's mapping file (LoadRules).
	Rules []Rule
	// NoDefaults leaves the built-in rules out.
	NoDefaults bool
}

// Classifier classifies tool calls by an ordered list of rules.
// It is safe for concurrent use.
type Classifier struct {
	rules []Rule
	// byTool caches, per harness and tool name, the indexes of the rules
	// whose tool and harness globs match (string → []int): the globs
	// depend on those two only, so each pair is matched against them once.
	byTool sync.Map
	cached atomic.Int64 // entries in byTool, at most maxToolCache
}

// maxToolCache bounds byTool (a log with endless distinct tool names must
// not grow it without end; past the bound, pairs are matched every time).
const maxToolCache = 1 << 14

// New returns a classifier trying o.Rules, then the defaults.
func New(o *Options) (*Classifier, error) {
	if o == nil {
		o = &Options{}
	}
	c := &Classifier{}
	for i, r := range o.Rules {
		r.Arg = copyMap(r.Arg)
		if err := r.compile(); err != nil {
			return nil, fmt.Errorf("rule %d (%s): %w", i+1, r.Describe(), err)
		}
		if r.Source == "" {
			r.Source = "user"
		}
		r.fallback = false
		c.rules = append(c.rules, r)
	}
	if !o.NoDefaults {
		d, err := compiledDefaults()
		if err != nil {
			return nil, err
		}
		c.rules = append(c.rules, d...)
	}
	for i := range c.rules {
		c.rules[i].Index = i + 1
	}
	return c, nil
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

var compiledDefaults = sync.OnceValues(func() ([]Rule, error) {
	rules := defaultRules()
	for i := range rules {
		rules[i].Source = SourceDefault
		if err := rules[i].compile(); err != nil {
			return nil, fmt.Errorf("default rule %d (%s): %w", i+1, rules[i].Describe(), err)
		}
	}
	return rules, nil
})

// Defaults returns the built-in rules, in the order they are tried.
func Defaults() []Rule {
	d, err := compiledDefaults()
	if err != nil {
		return nil
	}
	out := make([]Rule, len(d))
	for i, r := range d {
		r.Index = i + 1
		out[i] = r
	}
	return out
}

// Rules returns the classifier's rules in the order they are tried.
func (c *Classifier) Rules() []Rule {
	return append([]Rule(nil), c.rules...)
}

// Classify returns the class of one tool call and the rule that decided it
// (Rule{} with Class Other when none did). harness is the run's harness, tool
// the tool name and args its JSON arguments (schema.Event.Args).
//
//  1. Rules are tried in order. A rule without a command pattern decides the
//     call as soon as its tool, harness and arg conditions hold.
//  2. A call whose arguments hold a shell command line (command, cmd,
//     commands or keystrokes: a string, an argv array or a list of lines) is
//     split into simple commands (pipelines, &&, ;, newlines, bash -c …;
//     wrappers like sudo, env, timeout and uv run dropped; here-document
//     bodies skipped). Each rule with a command pattern claims the simple
//     commands it matches that no earlier rule claimed.
//  3. The call takes the class of its most significant claimed command:
//     submit, then test, edit, execute, context, search, read, other.
//     Bookkeeping commands (cd, echo, export, sleep, …) claimed only by the
//     default "any other command" rule do not count, nor do later pipeline
//     stages unless they submit, test, edit or are an explicit execute
//     (grep x | head is a search, find | xargs rm an edit).
func (c *Classifier) Classify(harness, tool, args string) (Class, Rule) {
	k := call{harness: strings.ToLower(harness), names: toolNames(tool), rawArgs: args}
	var claims []*Rule
	claimed := 0
	for _, i := range c.candidates(harness, tool, &k) {
		r := &c.rules[i]
		if !k.matchArgs(r.args) {
			continue
		}
		if r.cmd == nil {
			if claimed > 0 {
				continue
			}
			return r.Class, *r
		}
		segs := k.segments()
		if len(segs) == 0 {
			continue
		}
		if claims == nil {
			claims = make([]*Rule, len(segs))
		}
		for j, s := range segs {
			if claims[j] == nil && r.cmd.MatchString(s.text) {
				claims[j] = r
				claimed++
			}
		}
		if claimed == len(segs) {
			break
		}
	}
	if claimed == 0 {
		return Other, Rule{}
	}
	segs := k.segments()
	best, bestSig, first := -1, -1, -1
	for j, s := range segs {
		r := claims[j]
		if r == nil {
			continue
		}
		if first < 0 {
			first = j
		}
		if r.fallback && s.trivial {
			continue
		}
		if s.piped && (r.fallback || r.Class != Submit && r.Class != Test && r.Class != Edit && r.Class != Execute) {
			continue
		}
		if sig := significance[r.Class]; sig > bestSig {
			best, bestSig = j, sig
		}
	}
	if best < 0 {
		best = first
	}
	return claims[best].Class, *claims[best]
}

// candidates returns the indexes, in order, of the rules whose tool and
// harness globs match k's names and harness (cached per harness and tool).
func (c *Classifier) candidates(harness, tool string, k *call) []int {
	key := harness + "\x00" + tool
	if v, ok := c.byTool.Load(key); ok {
		return v.([]int)
	}
	idx := []int{}
	for i := range c.rules {
		r := &c.rules[i]
		if matchGlobs(r.tools, k.names...) && matchGlobs(r.harnesses, k.harness) {
			idx = append(idx, i)
		}
	}
	if c.cached.Load() < maxToolCache {
		if _, loaded := c.byTool.LoadOrStore(key, idx); !loaded {
			c.cached.Add(1)
		}
	}
	return idx
}

// Commands returns the simple commands a call's arguments hold, as the
// command patterns of rules see them: "cd /repo && python -m pytest -x 2>&1 |
// tail" gives "cd /repo", "python -m pytest -x" and "tail".
func Commands(args string) []string {
	k := call{rawArgs: args}
	var out []string
	for _, s := range k.segments() {
		out = append(out, s.text)
	}
	return out
}

// toolNames returns the lower-cased tool name and, for an MCP tool
// (mcp__server__name), its bare name.
func toolNames(tool string) []string {
	t := strings.ToLower(strings.TrimSpace(tool))
	if strings.HasPrefix(t, "mcp__") {
		if i := strings.LastIndex(t, "__"); i > len("mcp__")-2 && i+2 < len(t) {
			return []string{t, t[i+2:]}
		}
	}
	return []string{t}
}

// call is one tool call being classified; arguments and commands are parsed
// on first use.
type call struct {
	harness string
	names   []string
	rawArgs string

	parsed bool
	args   map[string]any
	split  bool
	segs   []segment
}

func (k *call) argMap() map[string]any {
	if !k.parsed {
		k.parsed = true
		d := json.NewDecoder(strings.NewReader(k.rawArgs))
		d.UseNumber()
		var m map[string]any
		if d.Decode(&m) == nil {
			k.args = m
		}
	}
	return k.args
}

func (k *call) matchArgs(ms []argMatch) bool {
	if len(ms) == 0 {
		return true
	}
	m := k.argMap()
	for _, a := range ms {
		v, ok := m[a.key]
		if !ok || v == nil {
			return false
		}
		if !a.re.MatchString(argString(v)) {
			return false
		}
	}
	return true
}

// argString renders an argument value: a string as it is, anything else as
// compact JSON.
func argString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (k *call) segments() []segment {
	if !k.split {
		k.split = true
		if text := commandText(k.argMap()); text != "" {
			k.segs = splitCommand(text)
		}
	}
	return k.segs
}

// commandKeys are the argument names that hold a shell command line.
var commandKeys = []string{"command", "cmd", "commands", "keystrokes"}

// commandText returns the shell command line in a call's arguments: a string,
// an argv array (["bash", "-lc", "…"] gives the script), or for "commands" a
// list of command lines.
func commandText(m map[string]any) string {
	for _, key := range commandKeys {
		switch v := m[key].(type) {
		case string:
			if strings.TrimSpace(v) != "" {
				return v
			}
		case []any:
			var strs []string
			for _, a := range v {
				if s, ok := a.(string); ok {
					strs = append(strs, s)
				}
			}
			if len(strs) == 0 {
				continue
			}
			if key == "commands" {
				return strings.Join(strs, "\n")
			}
			return argvText(strs)
		}
	}
	return ""
}

// argvText turns an argv array into a command line, quoting words that need it.
func argvText(argv []string) string {
	if len(argv) >= 3 && shells[path.Base(argv[0])] && strings.HasPrefix(argv[1], "-") && strings.Contains(argv[1], "c") {
		return argv[2]
	}
	q := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`;&|<>()*?[]{}#~!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
