package compare

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// Run is one run as compare sees it (a root run: a sub-agent's run is
// part of its parent's task).
type Run struct {
	ID      string     `json:"run_id"`
	Task    string     `json:"task_id"` // "": cannot be paired
	Model   string     `json:"model"`   // model family
	Raw     string     `json:"model_raw,omitempty"`
	Harness string     `json:"harness"`
	Path    string     `json:"source_path"`
	Started *time.Time `json:"started_at,omitempty"`
	// Tags are the tags trajmine ingest --tag gave the run's file.
	Tags map[string]string `json:"tags,omitempty"`
	// ManageContext: the run calls manage_context (DTOC's tool), or its
	// log holds DTOC disable/enable ops. Compactions and Maskings count
	// its logged compaction (and summary) and masking ops.
	ManageContext bool `json:"manage_context"`
	Compactions   int  `json:"compactions"`
	Maskings      int  `json:"maskings"`

	Resolved *bool    `json:"resolved"` // nil: no outcome
	Input    int64    `json:"input_tokens"`
	Output   int64    `json:"output_tokens"`
	Cached   int64    `json:"cache_read_tokens"`
	Steps    int64    `json:"steps"`      // model calls
	Duration *float64 `json:"duration_s"` // ended − started, seconds; nil untimed
	Cost     *float64 `json:"cost_usd"`   // with prompt caching (diagnose.RunCost); nil unknown
}

// The --by keys.
const (
	ByModel         = "model"
	ByHarness       = "harness"
	ByManageContext = "manage-context"
	byTag           = "tag:"
)

// The groups ByManageContext makes.
const (
	GroupOn  = "on"  // runs that call manage_context
	GroupOff = "off" // the others
)

// Term is one condition of a Filter: Key is model, harness, path, since,
// until or tag:NAME.
type Term struct {
	Key, Value string
	at         time.Time // since, until
}

// Filter selects runs: every term must hold.
type Filter struct {
	Terms []Term
}

// Group is one explicit group: its name and filter.
type Group struct {
	Name   string
	Filter Filter
}

// ParseGroup parses NAME=FILTER (trajmine compare --group): FILTER is
// terms separated by commas, each model=PATTERN, harness=PATTERN,
// path=GLOB, since=DATE, until=DATE or tag:KEY=VALUE; a term without "="
// is a path glob. Patterns and globs are path.Match patterns (*, ?, [..]);
// model= matches the model family or the model as logged, case folded;
// a path glob matches a run whose source path, or one of its folders,
// it matches (so runs/dtoc-on is every run under that folder); DATE is
// 2006-01-02 or an RFC 3339 time, since ≤ start < until (a run with no
// logged start matches neither).
func ParseGroup(s string) (Group, error) {
	name, f, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Group{}, fmt.Errorf("group %q: want NAME=FILTER (e.g. on=tag:dtoc=on or off=runs/off)", s)
	}
	if strings.ContainsAny(name, ",:") {
		return Group{}, fmt.Errorf("group %q: the name %q may not hold ',' or ':'", s, name)
	}
	flt, err := ParseFilter(f)
	if err != nil {
		return Group{}, fmt.Errorf("group %s: %w", name, err)
	}
	return Group{Name: name, Filter: flt}, nil
}

// ParseFilter parses a FILTER of ParseGroup.
func ParseFilter(s string) (Filter, error) {
	var f Filter
	for i, raw := range strings.Split(s, ",") {
		t := strings.TrimSpace(raw)
		if t == "" {
			return Filter{}, fmt.Errorf("term %d is empty", i+1)
		}
		k, v, ok := strings.Cut(t, "=")
		if !ok {
			k, v = "path", t
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		term := Term{Key: k, Value: v}
		switch {
		case k == "model" || k == "harness" || k == "path":
			if v == "" {
				return Filter{}, fmt.Errorf("term %q: empty %s", t, k)
			}
			if _, err := path.Match(strings.ToLower(v), ""); err != nil {
				return Filter{}, fmt.Errorf("term %q: bad pattern: %w", t, err)
			}
		case k == "since" || k == "until":
			at, err := parseDate(v)
			if err != nil {
				return Filter{}, fmt.Errorf("term %q: %w", t, err)
			}
			term.at = at
		case strings.HasPrefix(k, byTag):
			if strings.TrimPrefix(k, byTag) == "" {
				return Filter{}, fmt.Errorf("term %q: tag:KEY=VALUE needs a key", t)
			}
		default:
			return Filter{}, fmt.Errorf("term %q: unknown key %q (model, harness, path, since, until, tag:KEY)", t, k)
		}
		f.Terms = append(f.Terms, term)
	}
	return f, nil
}

// parseDate parses 2006-01-02 (UTC midnight) or an RFC 3339 time.
func parseDate(v string) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", v); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither a date (2006-01-02) nor an RFC 3339 time", v)
	}
	return t, nil
}

// Match reports whether r passes every term of f.
func (f Filter) Match(r *Run) bool {
	for _, t := range f.Terms {
		if !t.match(r) {
			return false
		}
	}
	return true
}

func (t Term) match(r *Run) bool {
	switch t.Key {
	case "model":
		p := strings.ToLower(t.Value)
		return globMatch(p, strings.ToLower(r.Model)) || globMatch(p, strings.ToLower(r.Raw))
	case "harness":
		return globMatch(strings.ToLower(t.Value), strings.ToLower(r.Harness))
	case "path":
		return pathMatch(t.Value, r.Path)
	case "since":
		return r.Started != nil && !r.Started.Before(t.at)
	case "until":
		return r.Started != nil && r.Started.Before(t.at)
	}
	v, ok := r.Tags[strings.TrimPrefix(t.Key, byTag)]
	return ok && v == t.Value
}

// globMatch is path.Match, false on a bad pattern.
func globMatch(pattern, s string) bool {
	ok, err := path.Match(pattern, s)
	return err == nil && ok
}

// pathMatch reports whether glob matches p (slash-separated) or one of
// its folders.
func pathMatch(glob, p string) bool {
	glob = strings.TrimSuffix(glob, "/")
	p = strings.ReplaceAll(p, "\\", "/")
	for q := p; q != "" && q != "." && q != "/"; q = path.Dir(q) {
		if globMatch(glob, q) {
			return true
		}
		if path.Dir(q) == q {
			break
		}
	}
	return false
}

// Grouping says how runs are put into groups: By (model, harness,
// manage-context or tag:KEY), or the explicit Groups.
type Grouping struct {
	By     string
	Groups []Group
}

// ParseBy checks a --by value.
func ParseBy(s string) error {
	switch {
	case s == ByModel, s == ByHarness, s == ByManageContext:
		return nil
	case strings.HasPrefix(s, byTag) && strings.TrimPrefix(s, byTag) != "":
		return nil
	}
	return fmt.Errorf("%q: want model, harness, manage-context or tag:KEY", s)
}

// Assignment is which group each run is in.
type Assignment struct {
	Names []string // the groups, in order
	Of    []int    // per run: its group's index in Names, -1 none
	// Left counts the runs in no group; Overlap the runs that matched
	// more than one explicit group (each is counted in the first).
	Left, Overlap int
}

// Assign puts each run into its group. By model, harness or tag the
// groups are the values found, sorted (a run without the tag is in none);
// by manage-context "off" then "on"; explicit groups in their order.
func (g Grouping) Assign(runs []Run) Assignment {
	a := Assignment{Of: make([]int, len(runs))}
	if len(g.Groups) > 0 {
		for _, gr := range g.Groups {
			a.Names = append(a.Names, gr.Name)
		}
		for i := range runs {
			a.Of[i] = -1
			for k, gr := range g.Groups {
				if !gr.Filter.Match(&runs[i]) {
					continue
				}
				if a.Of[i] >= 0 {
					a.Overlap++
					break
				}
				a.Of[i] = k
			}
			if a.Of[i] < 0 {
				a.Left++
			}
		}
		return a
	}
	key := func(r *Run) (string, bool) {
		switch {
		case g.By == ByModel:
			return r.Model, true
		case g.By == ByHarness:
			return r.Harness, true
		case g.By == ByManageContext:
			if r.ManageContext {
				return GroupOn, true
			}
			return GroupOff, true
		}
		v, ok := r.Tags[strings.TrimPrefix(g.By, byTag)]
		return v, ok
	}
	idx := map[string]int{}
	if g.By == ByManageContext {
		a.Names = []string{GroupOff, GroupOn}
	} else {
		for i := range runs {
			if k, ok := key(&runs[i]); ok && !slices.Contains(a.Names, k) {
				a.Names = append(a.Names, k)
			}
		}
		slices.Sort(a.Names)
	}
	for i, n := range a.Names {
		idx[n] = i
	}
	for i := range runs {
		a.Of[i] = -1
		if k, ok := key(&runs[i]); ok {
			a.Of[i] = idx[k]
		} else {
			a.Left++
		}
	}
	return a
}

// referenceNames are group names taken for the reference, in this order,
// when Options.Reference is not given.
var referenceNames = []string{"off", "no", "false", "0", "none", "without", "baseline", "control", "before"}

// reference is the index of the reference group among names: want when
// given (an error when no group has that name), else the first of
// referenceNames found (case folded), else 0.
func reference(names []string, want string) (int, error) {
	if want != "" {
		if i := slices.Index(names, want); i >= 0 {
			return i, nil
		}
		return 0, fmt.Errorf("--reference %q: no such group (groups: %s)", want, strings.Join(names, ", "))
	}
	for _, r := range referenceNames {
		for i, n := range names {
			if strings.EqualFold(n, r) {
				return i, nil
			}
		}
	}
	return 0, nil
}
