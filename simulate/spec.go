package simulate

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
)

// Param is one parameter of a catalog policy.
type Param struct {
	Name    string `json:"name"`
	Default string `json:"default"`
	Doc     string `json:"doc"`
}

// Def is one entry of the policy catalog.
type Def struct {
	Name string `json:"name"`
	// Mechanism is what the policy does to the prompt (MechanismNone,
	// …Dtoc, …Masking, …Truncation, …Compaction): the kind of setting a
	// harness would need to run it.
	Mechanism string `json:"mechanism"`
	// Harness names the harness whose own mechanism the policy is (a
	// prefix of its runs' harness), "" for a harness-neutral policy.
	Harness string  `json:"harness,omitempty"`
	Doc     string  `json:"doc"`
	Source  string  `json:"source"` // where the semantics and defaults come from
	Params  []Param `json:"params"`
	// Added names parameters added to the policy after its canonical
	// specs were stored (sim_runs.policy, recommend's configs, goldens):
	// the canonical spec leaves each out while it holds its default, so
	// adding one renames no existing spec.
	Added []string `json:"added_params,omitempty"`
	// Explicit entries are left out of DefaultSpecs: they need a value
	// only the user can give (tracer's model file).
	Explicit bool `json:"explicit,omitempty"`
	// ReplacesContext: the policy replaces the agent's own context
	// management (every mechanism but logged and dtoc), so it is replayed
	// without the agent's manage_context calls (Trace.WithoutContextCalls):
	// a harness running it would not offer the tool.
	ReplacesContext bool `json:"replaces_manage_context"`
	build           func(a *Args) (rules, error)
}

// Mechanisms: what a policy does to the prompt.
const (
	MechanismNone       = "none"       // nothing: the reference
	MechanismLogged     = "logged"     // what the log shows the harness did (as-logged)
	MechanismDtoc       = "dtoc"       // hides and re-shows outputs by key (manage_context)
	MechanismMasking    = "masking"    // replaces old outputs by placeholders
	MechanismTruncation = "truncation" // shortens or drops old outputs
	MechanismCompaction = "compaction" // summarizes the history
)

var catalog []Def

func register(d Def) {
	d.ReplacesContext = replacesContext(d.Mechanism)
	catalog = append(catalog, d)
}

// Catalog returns the policy catalog in listing order.
func Catalog() []Def { return slices.Clone(catalog) }

// Lookup finds a catalog entry by name.
func Lookup(name string) (Def, bool) {
	for _, d := range catalog {
		if d.Name == name {
			return d, true
		}
	}
	return Def{}, false
}

// Args are a policy's parameter values, with its defaults filled in.
type Args struct {
	def  *Def
	vals map[string]string
	errs []error
}

func (a *Args) raw(name string) string {
	v, ok := a.vals[name]
	if !ok {
		a.errs = append(a.errs, fmt.Errorf("%s: parameter %q is not declared", a.def.Name, name))
	}
	return v
}

// Float returns a number parameter.
func (a *Args) Float(name string) float64 {
	s := a.raw(name)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		a.errs = append(a.errs, fmt.Errorf("%s: %s=%q is not a number", a.def.Name, name, s))
	}
	return f
}

// Int returns an integer parameter (accepts 8000, 8k, 1.5M style suffixes? no: plain integers and underscores).
func (a *Args) Int(name string) int64 {
	s := strings.ReplaceAll(a.raw(name), "_", "")
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		a.errs = append(a.errs, fmt.Errorf("%s: %s=%q is not an integer", a.def.Name, name, a.vals[name]))
	}
	return n
}

// Bool returns a true/false parameter.
func (a *Args) Bool(name string) bool {
	s := a.raw(name)
	b, err := strconv.ParseBool(s)
	if err != nil {
		a.errs = append(a.errs, fmt.Errorf("%s: %s=%q is not true or false", a.def.Name, name, s))
	}
	return b
}

// String returns a parameter as given.
func (a *Args) String(name string) string { return a.raw(name) }

// OneOf returns a parameter that must be one of choices.
func (a *Args) OneOf(name string, choices ...string) string {
	s := a.raw(name)
	if !slices.Contains(choices, s) {
		a.errs = append(a.errs, fmt.Errorf("%s: %s=%q must be one of %s", a.def.Name, name, s, strings.Join(choices, ", ")))
	}
	return s
}

// Check records an error unless ok.
func (a *Args) Check(ok bool, format string, args ...any) {
	if !ok {
		a.errs = append(a.errs, fmt.Errorf("%s: "+format, append([]any{a.def.Name}, args...)...))
	}
}

// canonical is "name(p1=v1,p2=v2)" with every declared parameter (an
// Added one only when it differs from its default).
func (a *Args) canonical() string {
	var parts []string
	for _, p := range a.def.Params {
		if slices.Contains(a.def.Added, p.Name) && a.vals[p.Name] == p.Default {
			continue
		}
		parts = append(parts, p.Name+"="+a.vals[p.Name])
	}
	if len(parts) == 0 {
		return a.def.Name
	}
	return a.def.Name + "(" + strings.Join(parts, ",") + ")"
}

// rules is a policy's behaviour; New names it with its canonical spec.
type rules interface {
	Reset(s *Sim)
	Before(t int, s *Sim)
}

// short is "name" or "name(k=v,…)" with the parameters that differ from the defaults.
func (a *Args) short() string {
	var parts []string
	for _, p := range a.def.Params {
		if a.vals[p.Name] != p.Default {
			parts = append(parts, p.Name+"="+a.vals[p.Name])
		}
	}
	if len(parts) == 0 {
		return a.def.Name
	}
	return a.def.Name + "(" + strings.Join(parts, ",") + ")"
}

// named wraps a policy's rules so that Name is its canonical spec.
type named struct {
	rules
	name, short string
	a           *Args // the parameter values it was built with
}

func (n named) args() *Args { return n.a }

func (n named) Name() string { return n.name }

// Short is the spec with only the parameters that differ from their defaults.
func (n named) Short() string { return n.short }

// Short returns p's spec with only the parameters that differ from their
// defaults ("halflife", "halflife(cap=4000)"); Name for other policies.
func Short(p Policy) string {
	if s, ok := p.(interface{ Short() string }); ok {
		return s.Short()
	}
	return p.Name()
}

// namedOverflow is named for policies that handle overflows.
type namedOverflow struct {
	named
	h OverflowHandler
}

func (n namedOverflow) OnOverflow(t int, s *Sim) { n.h.OnOverflow(t, s) }

// New builds a policy from its name and parameter values (missing ones take
// their defaults).
func New(name string, params map[string]string) (Policy, error) {
	d, ok := Lookup(name)
	if !ok {
		names := make([]string, len(catalog))
		for i, d := range catalog {
			names[i] = d.Name
		}
		return nil, fmt.Errorf("unknown policy %q (trajmine policies lists them: %s)", name, strings.Join(names, ", "))
	}
	a := &Args{def: &d, vals: map[string]string{}}
	for _, p := range d.Params {
		a.vals[p.Name] = p.Default
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if _, ok := a.vals[k]; !ok {
			return nil, fmt.Errorf("%s has no parameter %q (it has: %s)", name, k, paramNames(d))
		}
		a.vals[k] = strings.TrimSpace(params[k])
	}
	p, err := d.build(a)
	if err = errors.Join(append(a.errs, err)...); err != nil {
		return nil, err
	}
	n := named{rules: p, name: a.canonical(), short: a.short(), a: a}
	if h, ok := p.(OverflowHandler); ok {
		return namedOverflow{named: n, h: h}, nil
	}
	return n, nil
}

func paramNames(d Def) string {
	if len(d.Params) == 0 {
		return "none"
	}
	var s []string
	for _, p := range d.Params {
		s = append(s, p.Name)
	}
	return strings.Join(s, ", ")
}

// Fresh returns a new instance of p with the same parameters: policies keep
// per-run state, so each goroutine replaying runs needs its own.
func Fresh(p Policy) (Policy, error) { return Parse(p.Name()) }

// Parse builds a policy from a spec: "name" or "name(k=v,k=v)". Values may
// not contain ',' or ')' except inside a ratio list "read:0.6;edit:0.8".
func Parse(spec string) (Policy, error) {
	spec = strings.TrimSpace(spec)
	name, rest, hasArgs := strings.Cut(spec, "(")
	name = strings.TrimSpace(name)
	params := map[string]string{}
	if hasArgs {
		body, ok := strings.CutSuffix(strings.TrimSpace(rest), ")")
		if !ok {
			return nil, fmt.Errorf("policy %q: missing closing parenthesis", spec)
		}
		if strings.TrimSpace(body) != "" {
			for _, kv := range strings.Split(body, ",") {
				k, v, ok := strings.Cut(kv, "=")
				k = strings.TrimSpace(k)
				if !ok || k == "" {
					return nil, fmt.Errorf("policy %q: %q is not key=value", spec, strings.TrimSpace(kv))
				}
				if _, dup := params[k]; dup {
					return nil, fmt.Errorf("policy %q: parameter %q given twice", spec, k)
				}
				params[k] = strings.TrimSpace(v)
			}
		}
	}
	if name == "" {
		return nil, fmt.Errorf("policy %q: empty name", spec)
	}
	return New(name, params)
}

// Values returns the catalog entry a spec names and every parameter's
// value, the spec's where it gives one, else the default: what a config
// snippet for the policy must set (recommend.HarnessConfig).
func Values(spec string) (Def, map[string]string, error) {
	p, err := Parse(spec)
	if err != nil {
		return Def{}, nil, err
	}
	n, ok := p.(interface{ args() *Args })
	if !ok {
		return Def{}, nil, fmt.Errorf("policy %q: no parameters recorded", spec)
	}
	a := n.args()
	return *a.def, maps.Clone(a.vals), nil
}

// fileSpec is one entry of a policy file: a spec string, or a name with params.
type fileSpec struct {
	Policy string         `yaml:"policy" json:"policy"`
	Params map[string]any `yaml:"params" json:"params"`
}

// ParseFile reads a YAML or JSON policy file: a list whose entries are spec
// strings ("halflife(keep=4)") or maps {policy: halflife, params: {keep: 4}},
// or a map {policies: [...]} holding such a list. Errors name the file and
// the entry's line.
func ParseFile(name string, r io.Reader) ([]Policy, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var root yaml.MapSlice
	var list []yaml.RawMessage // entries, decoded one by one for positions
	if err := yaml.Unmarshal(b, &list); err != nil {
		if err2 := yaml.Unmarshal(b, &root); err2 != nil {
			return nil, fmt.Errorf("%s: %s", name, yamlErr(err))
		}
		var wrapped struct {
			Policies []yaml.RawMessage `yaml:"policies"`
		}
		if err := yaml.Unmarshal(b, &wrapped); err != nil || wrapped.Policies == nil {
			return nil, fmt.Errorf("%s: expected a list of policies or a map with a policies list", name)
		}
		list = wrapped.Policies
	}
	lines := entryLines(b)
	var out []Policy
	for i, raw := range list {
		where := name
		if i < len(lines) {
			where = fmt.Sprintf("%s:%d", name, lines[i])
		}
		var s string
		if err := yaml.Unmarshal(raw, &s); err == nil {
			p, err := Parse(s)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			out = append(out, p)
			continue
		}
		var fs fileSpec
		if err := yaml.UnmarshalWithOptions(raw, &fs, yaml.DisallowUnknownField()); err != nil {
			return nil, fmt.Errorf("%s: entry %d: %s", where, i+1, yamlErr(err))
		}
		params := map[string]string{}
		for k, v := range fs.Params {
			params[k] = fmt.Sprint(v)
		}
		p, err := New(fs.Policy, params)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no policies", name)
	}
	return out, nil
}

// entryLines returns the 1-based line of each top-level list entry ("- " at
// the list's indentation, or JSON array elements one per line), best effort.
func entryLines(b []byte) []int {
	var out []int
	indent := -1
	for i, line := range strings.Split(string(b), "\n") {
		t := strings.TrimLeft(line, " ")
		if !strings.HasPrefix(t, "- ") && t != "-" {
			continue
		}
		ind := len(line) - len(t)
		if indent < 0 {
			indent = ind
		}
		if ind == indent {
			out = append(out, i+1)
		}
	}
	return out
}

func yamlErr(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
