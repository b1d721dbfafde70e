package mining

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Arc is one allowed directly-follows step of a Model.
type Arc struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Model is a process model as a set of allowed directly-follows steps:
// ▶ → a allows a case to start with a, z → ■ allows it to end with z, a → b
// allows b right after a. Conform replays cases on it.
type Model struct {
	Arcs []Arc `json:"arcs"` // sorted by From then To (▶ first, ■ last), no duplicates
}

// NewModel returns the model with these arcs, sorted and de-duplicated.
func NewModel(arcs []Arc) *Model {
	m := &Model{Arcs: slices.Clone(arcs)}
	m.normalize()
	return m
}

func (m *Model) normalize() {
	slices.SortFunc(m.Arcs, func(x, y Arc) int { return cmpEdge(x.From, x.To, y.From, y.To) })
	m.Arcs = slices.Compact(m.Arcs)
}

// Allows reports whether the model has the arc from → to.
func (m *Model) Allows(from, to string) bool {
	_, ok := slices.BinarySearchFunc(m.Arcs, Arc{from, to}, func(x, y Arc) int { return cmpEdge(x.From, x.To, y.From, y.To) })
	return ok
}

// SyntaxError is a problem in a model file, at a line.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// maxModelLine bounds one line of a model file.
const maxModelLine = 1 << 20

// ParseModel reads a model in the model text format; name is the file name
// used in errors ("model.txt:3: …"), which are *SyntaxError values.
//
// The format, one statement per line:
//
//	# a comment, to the end of the line (outside quotes); blank lines are ignored
//	start read search          # ▶ → read, ▶ → search: cases may start with these
//	read -> edit -> test       # read → edit, edit → test
//	test -> edit
//	end test submit            # test → ■, submit → ■: cases may end with these
//	"a name with spaces" -> "Bash:test"
//
// A name is a run of characters other than white space, '"' and '#', or a
// double-quoted Go string literal (for names with white space, quotes, # or
// equal to "->"). start and end are keywords only as the first word of a line
// not followed by "->" ("start -> a" is an arc from an activity named start).
// ▶ and ■ may be written directly: "▶ -> a" is "start a", "z -> ■" is
// "end z". The model needs at least one start and one end.
func ParseModel(name string, r io.Reader) (*Model, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxModelLine)
	m := &Model{}
	line := 0
	fail := func(format string, args ...any) error {
		return &SyntaxError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	for sc.Scan() {
		line++
		toks, err := modelTokens(sc.Text())
		if err != nil {
			return nil, fail("%s", err)
		}
		if len(toks) == 0 {
			continue
		}
		if kw := toks[0]; !kw.quoted && (kw.s == "start" || kw.s == "end") && (len(toks) < 2 || !toks[1].arrow()) {
			if len(toks) < 2 {
				return nil, fail("%s needs at least one activity", kw.s)
			}
			for _, t := range toks[1:] {
				if t.arrow() {
					return nil, fail("unexpected \"->\" in a %s line (want: %s ACTIVITY...)", kw.s, kw.s)
				}
				if err := checkName(t.s); err != nil {
					return nil, fail("%s", err)
				}
				if kw.s == "start" {
					if t.s == Start || t.s == End {
						return nil, fail("start %s: not an activity", t.s)
					}
					m.Arcs = append(m.Arcs, Arc{Start, t.s})
				} else {
					if t.s == Start || t.s == End {
						return nil, fail("end %s: not an activity", t.s)
					}
					m.Arcs = append(m.Arcs, Arc{t.s, End})
				}
			}
			continue
		}
		if len(toks) == 1 {
			return nil, fail("single activity %s (want A -> B, start A or end A)", quoteName(toks[0].s))
		}
		for i, t := range toks {
			if i%2 == 0 {
				if t.arrow() {
					return nil, fail("expected an activity, got \"->\"")
				}
				if err := checkName(t.s); err != nil {
					return nil, fail("%s", err)
				}
			} else if !t.arrow() {
				if len(toks) == 2 {
					return nil, fail("expected \"->\" between activities, got %s", quoteName(t.s))
				}
				return nil, fail("expected \"->\" after %s, got %s", quoteName(toks[i-1].s), quoteName(t.s))
			}
		}
		if toks[len(toks)-1].arrow() {
			return nil, fail("\"->\" without an activity after it")
		}
		for i := 0; i+2 < len(toks); i += 2 {
			from, to := toks[i].s, toks[i+2].s
			switch {
			case from == End:
				return nil, fail("%s cannot start an arc", End)
			case to == Start:
				return nil, fail("%s cannot end an arc", Start)
			case from == Start && to == End:
				return nil, fail("%s -> %s: an empty case is not a step", Start, End)
			}
			m.Arcs = append(m.Arcs, Arc{from, to})
		}
	}
	if err := sc.Err(); err != nil {
		line++
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fail("line longer than %d bytes", maxModelLine)
		}
		return nil, fmt.Errorf("read model %s: %w", name, err)
	}
	hasStart, hasEnd := false, false
	for _, a := range m.Arcs {
		hasStart = hasStart || a.From == Start
		hasEnd = hasEnd || a.To == End
	}
	line = max(line, 1)
	if !hasStart {
		return nil, fail("model has no start activity (add a line: start ACTIVITY)")
	}
	if !hasEnd {
		return nil, fail("model has no end activity (add a line: end ACTIVITY)")
	}
	m.normalize()
	return m, nil
}

type modelToken struct {
	s      string
	quoted bool
}

func (t modelToken) arrow() bool { return !t.quoted && t.s == "->" }

// modelTokens splits one line into names and arrows.
func modelTokens(line string) ([]modelToken, error) {
	var toks []modelToken
	i := 0
	for i < len(line) {
		r, size := utf8.DecodeRuneInString(line[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
		case r == '#':
			return toks, nil
		case r == '"':
			j := i + 1
			for j < len(line) && line[j] != '"' {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(line) {
				return nil, fmt.Errorf("unterminated quoted name")
			}
			s, err := strconv.Unquote(line[i : j+1])
			if err != nil {
				return nil, fmt.Errorf("invalid quoted name %s", line[i:j+1])
			}
			toks = append(toks, modelToken{s: s, quoted: true})
			i = j + 1
			if i < len(line) {
				if r, _ := utf8.DecodeRuneInString(line[i:]); !unicode.IsSpace(r) && r != '#' {
					return nil, fmt.Errorf("quoted name followed by %q without a space", r)
				}
			}
		default:
			j := i
			for j < len(line) {
				r, size := utf8.DecodeRuneInString(line[j:])
				if unicode.IsSpace(r) || r == '#' || r == '"' {
					break
				}
				j += size
			}
			toks = append(toks, modelToken{s: line[i:j]})
			i = j
		}
	}
	return toks, nil
}

func checkName(s string) error {
	if s == "" {
		return fmt.Errorf("empty activity name")
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("activity name %q is not valid UTF-8", s)
	}
	return nil
}

// quoteName returns s as written in the model format and the text outputs:
// bare when it is a plain word, else a Go-quoted string.
func quoteName(s string) string {
	if s == "" || s == "->" || s == "start" || s == "end" || !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if unicode.IsSpace(r) || r == '"' || r == '#' || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// WriteText writes m in the model format, canonically: the start line, the
// arcs between activities one per line (sorted), the end line. ParseModel
// reads it back to the same model.
func (m *Model) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	var starts, ends []string
	for _, a := range m.Arcs {
		switch {
		case a.From == Start && a.To != End:
			starts = append(starts, quoteName(a.To))
		case a.To == End && a.From != Start:
			ends = append(ends, quoteName(a.From))
		}
	}
	if len(starts) > 0 {
		fmt.Fprintf(bw, "start %s\n", strings.Join(starts, " "))
	}
	for _, a := range m.Arcs {
		if a.From != Start && a.To != End {
			fmt.Fprintf(bw, "%s -> %s\n", quoteName(a.From), quoteName(a.To))
		}
	}
	if len(ends) > 0 {
		fmt.Fprintf(bw, "end %s\n", strings.Join(ends, " "))
	}
	return bw.Flush()
}
