package synth

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Word lists for identifiers and prose. They are small on purpose: the text
// has to look like code and logs, not be meaningful.
var (
	nouns = []string{
		"account", "invoice", "order", "session", "token", "cache", "config", "request",
		"response", "handler", "router", "parser", "record", "event", "queue", "worker",
		"job", "payment", "customer", "report", "metric", "schema", "migration", "client",
		"buffer", "stream", "batch", "index", "query", "result", "ledger", "policy",
		"profile", "item", "cart", "price", "tenant", "webhook", "retry", "limit",
		"window", "span", "trace", "shard", "snapshot", "user", "team", "member",
		"message", "channel", "upload", "export", "template", "setting", "permission", "audit",
	}
	verbs = []string{
		"get", "set", "load", "save", "parse", "build", "create", "update",
		"delete", "fetch", "handle", "validate", "normalize", "compute", "render", "resolve",
		"apply", "merge", "sync", "flush", "encode", "decode", "register", "dispatch",
		"process", "reset", "emit", "collect", "filter", "sort", "refresh", "schedule",
	}
	adjectives = []string{
		"pending", "active", "stale", "default", "cached", "raw", "next", "last",
		"max", "min", "total", "new", "old", "partial", "remote", "local",
	}
	projectNames = []string{
		"billing-service", "orbit-cli", "tinyhttp", "ledger-api", "atlas-web", "kiln",
		"harbor-sync", "quill", "metrics-gateway", "pantry", "relay", "sprout-admin",
		"docket", "waypoint", "beacon-ui", "lumen",
	}
	users    = []string{"dev", "alex", "sam", "jkim", "mrivera", "priya", "tom"}
	branches = []string{"main", "main", "develop", "fix/retry-backoff", "feat/team-permissions", "refactor/cache-layer", "chore/deps"}
	pyStd    = []string{"os", "json", "time", "re", "datetime", "itertools", "functools", "dataclasses"}
	goStd    = []string{"context", "errors", "fmt", "io", "net/http", "sort", "strings", "sync", "time"}
	tsLibs   = []string{"zod", "express", "@prisma/client", "date-fns", "lodash", "axios"}
	errTypes = []string{"ValueError", "KeyError", "RuntimeError", "TypeError", "LookupError"}
)

type lang int

const (
	langPython lang = iota
	langGo
	langTS
)

func (l lang) ext() string {
	switch l {
	case langGo:
		return ".go"
	case langTS:
		return ".ts"
	}
	return ".py"
}

// project is a repository several sessions may work in.
type project struct {
	name   string
	lang   lang
	seed   uint64
	root   string // absolute working directory
	home   string // the user's home directory
	branch string
	module string // Go module path / Python package / npm scope
	// pristine caches generated file text by file seed. Sessions share it:
	// edits replace a file's slice, they never write into a cached one.
	pristine map[uint64][]string
}

// newProjects draws the pool of projects for a corpus.
func newProjects(r *rand.Rand, n int) []*project {
	names := append([]string(nil), projectNames...)
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	ps := make([]*project, n)
	for i := range ps {
		name := names[i%len(names)]
		user := pick(r, users)
		home, root := "/home/"+user, "/home/"+user+"/src/"+name
		if chance(r, 0.4) {
			home, root = "/Users/"+user, "/Users/"+user+"/code/"+name
		}
		l := lang(r.IntN(3))
		mod := strings.ReplaceAll(name, "-", "_")
		if l == langGo {
			mod = "github.com/" + user + "/" + name
		}
		ps[i] = &project{name: name, lang: l, seed: r.Uint64(), root: root, home: home, branch: pick(r, branches), module: mod, pristine: map[uint64][]string{}}
	}
	return ps
}

// srcFile is one file of a workspace. Its text is generated on first use
// from its own seed, then mutated by edits, so re-reads see the same text.
type srcFile struct {
	path   string // relative to the project root
	seed   uint64
	nLines int
	test   bool
	lines  []string
}

// workspace is the state of a project during one session.
type workspace struct {
	p      *project
	files  []*srcFile
	byPath map[string]*srcFile
}

func newWorkspace(p *project) *workspace {
	r := newRand(p.seed, streamProject)
	w := &workspace{p: p, byPath: map[string]*srcFile{}}
	n := between(r, 18, 45)
	for tries := 0; len(w.files) < n && tries < 500; tries++ {
		f := &srcFile{seed: r.Uint64()}
		f.path, f.test = w.newPath(r)
		if w.byPath[f.path] != nil {
			continue
		}
		f.nLines = logNormalInt(r, 110, 0.9, 12, 1500)
		w.add(f)
	}
	// A few big files so that some reads are 20–60k characters.
	for i, big := 0, between(r, 1, 3); i < big; i++ {
		f := w.files[r.IntN(len(w.files))]
		f.nLines = between(r, 550, 1500)
	}
	return w
}

func (w *workspace) add(f *srcFile) {
	w.files = append(w.files, f)
	w.byPath[f.path] = f
}

// newPath returns a plausible path for the project's language.
func (w *workspace) newPath(r *rand.Rand) (string, bool) {
	n, m := pick(r, nouns), pick(r, nouns)
	test := chance(r, 0.25)
	switch w.p.lang {
	case langGo:
		dir := pick(r, []string{"internal/", "internal/", "pkg/", "cmd/" + w.p.name + "/"})
		if dir == "cmd/"+w.p.name+"/" {
			return dir + "main.go", false
		}
		if test {
			return dir + n + "/" + m + "_test.go", true
		}
		return dir + n + "/" + m + ".go", false
	case langTS:
		if test {
			return "src/" + n + "/" + m + ".test.ts", true
		}
		return "src/" + n + "/" + pick(r, []string{m + "Service", m + "Repository", m, m + "Controller", "utils"}) + ".ts", false
	}
	if test {
		return "tests/test_" + n + "_" + m + ".py", true
	}
	return "src/" + w.p.module + "/" + pick(r, []string{"", "services/", "api/", "models/"}) + n + "_" + m + ".py", false
}

// text returns the current lines of f.
func (w *workspace) text(f *srcFile) []string {
	if f.lines == nil {
		if f.lines = w.p.pristine[f.seed]; f.lines == nil {
			c := &coder{r: newRand(f.seed, streamFile), l: w.p.lang, module: w.p.module}
			f.lines = c.file(f.nLines, f.test)
			w.p.pristine[f.seed] = f.lines
		}
	}
	return f.lines
}

// chars returns the length of f's text in code points (lines joined by \n).
func (w *workspace) chars(f *srcFile) int {
	n := 0
	for _, l := range w.text(f) {
		n += len(l) + 1
	}
	return n
}

// size returns f's length in characters, estimated from its line count
// until its text has been generated (choosing a file must not generate all).
func (w *workspace) size(f *srcFile) int {
	if f.lines != nil {
		return w.chars(f)
	}
	return f.nLines * 34
}

// pickFile returns a random file, preferring test or non-test files.
func (w *workspace) pickFile(r *rand.Rand, test bool) *srcFile {
	for range 20 {
		f := pick(r, w.files)
		if f.test == test {
			return f
		}
	}
	return pick(r, w.files)
}

// lineRange picks a 1-based inclusive line range of f holding about size
// characters: the whole file when it is not much larger than size, and never
// more than limit characters unless limit is negative.
func (w *workspace) lineRange(r *rand.Rand, f *srcFile, size, limit int) (start, end int) {
	lines := w.text(f)
	total := w.chars(f)
	if total <= size*13/10 && (limit < 0 || total <= limit) {
		return 1, len(lines)
	}
	avg := max(1, total/len(lines))
	n := clamp(size/avg, 1, len(lines))
	start = 1 + r.IntN(len(lines)-n+1)
	if chance(r, 0.4) {
		start = 1
	}
	end = start + n - 1
	if limit >= 0 {
		for got := len(w.slice(f, start, end)); got > limit && end > start; got -= len(lines[end-1]) + 1 {
			end--
		}
	}
	return start, end
}

// slice returns lines [start, end] (1-based, inclusive) joined by \n.
func (w *workspace) slice(f *srcFile, start, end int) string {
	lines := w.text(f)
	return strings.Join(lines[start-1:end], "\n")
}

// edit replaces one to three lines of f and returns the old and new text and
// the 1-based line where the change starts.
func (w *workspace) edit(r *rand.Rand, f *srcFile) (oldS, newS string, at int) {
	lines := w.text(f)
	n := min(len(lines), between(r, 1, 3))
	at = 1 + r.IntN(len(lines)-n+1)
	for range 8 {
		if strings.TrimSpace(lines[at-1]) != "" {
			break
		}
		at = 1 + r.IntN(len(lines)-n+1)
	}
	oldLines := lines[at-1 : at-1+n]
	c := &coder{r: r, l: w.p.lang, module: w.p.module}
	repl := c.stmts(leadingSpace(oldLines[0]), between(r, 1, n+2))
	oldS, newS = strings.Join(oldLines, "\n"), strings.Join(repl, "\n")
	next := make([]string, 0, len(lines)-n+len(repl))
	next = append(next, lines[:at-1]...)
	next = append(next, repl...)
	next = append(next, lines[at-1+n:]...)
	f.lines = next
	return oldS, newS, at
}

// coderLine returns one statement line without indentation.
func (w *workspace) coderLine(r *rand.Rand) string {
	c := &coder{r: r, l: w.p.lang, module: w.p.module}
	return strings.TrimSpace(c.stmt("")[0])
}

// create adds a new file with generated text and returns it.
func (w *workspace) create(r *rand.Rand, lines int) *srcFile {
	for range 50 {
		p, test := w.newPath(r)
		if w.byPath[p] != nil {
			continue
		}
		f := &srcFile{path: p, seed: r.Uint64(), nLines: lines, test: test}
		w.add(f)
		return f
	}
	f := &srcFile{path: fmt.Sprintf("src/generated_%d%s", len(w.files), w.p.lang.ext()), seed: r.Uint64(), nLines: lines}
	w.add(f)
	return f
}

func (w *workspace) abs(p string) string { return w.p.root + "/" + p }

func leadingSpace(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// coder writes plausible source lines.
type coder struct {
	r      *rand.Rand
	l      lang
	module string
}

func (c *coder) noun() string { return pick(c.r, nouns) }
func (c *coder) verb() string { return pick(c.r, verbs) }
func (c *coder) past() string { return pastTense(c.verb()) }

// pastTense, gerund and thirdPerson inflect the words in verbs.
func pastTense(v string) string {
	switch v {
	case "get", "set", "reset":
		return v
	case "build":
		return "built"
	case "emit":
		return "emitted"
	case "apply":
		return "applied"
	}
	if strings.HasSuffix(v, "e") {
		return v + "d"
	}
	return v + "ed"
}

func gerund(v string) string {
	switch v {
	case "get", "set", "reset", "emit":
		return v + v[len(v)-1:] + "ing"
	}
	if strings.HasSuffix(v, "e") {
		return v[:len(v)-1] + "ing"
	}
	return v + "ing"
}

func thirdPerson(v string) string {
	switch {
	case strings.HasSuffix(v, "y"):
		return v[:len(v)-1] + "ies"
	case strings.HasSuffix(v, "sh"), strings.HasSuffix(v, "ch"), strings.HasSuffix(v, "s"):
		return v + "es"
	}
	return v + "s"
}

func (c *coder) snake() string  { return c.verb() + "_" + c.noun() }
func (c *coder) camel() string  { return c.verb() + title(c.noun()) }
func (c *coder) pascal() string { return title(c.verb()) + title(c.noun()) }
func (c *coder) typ() string {
	return title(c.noun()) + pick(c.r, []string{"", "Store", "Service", "Config", "Result", "Client"})
}

func (c *coder) ident() string {
	if c.l == langPython {
		if chance(c.r, 0.5) {
			return c.noun()
		}
		return pick(c.r, adjectives) + "_" + c.noun()
	}
	if chance(c.r, 0.5) {
		return c.noun()
	}
	return pick(c.r, adjectives) + title(c.noun())
}

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// sentence returns a short English sentence for comments and docs.
func (c *coder) sentence() string {
	return pick(c.r, []string{
		title(c.verb()) + " the " + c.noun() + " before it is " + c.past() + ".",
		title(c.noun()) + " helpers for the " + c.noun() + " " + c.noun() + ".",
		"Returns the " + pick(c.r, adjectives) + " " + c.noun() + " for a " + c.noun() + ".",
		"Keep this in sync with the " + c.noun() + " " + c.noun() + ".",
		"TODO: " + c.verb() + " " + c.noun() + "s in batches.",
	})
}

// file returns n lines of source code (a test file when test is set).
func (c *coder) file(n int, test bool) []string {
	out := make([]string, 0, n+20)
	switch c.l {
	case langGo:
		out = append(out, "package "+c.noun(), "", "import (")
		for range between(c.r, 2, 5) {
			out = append(out, "\t\""+pick(c.r, goStd)+"\"")
		}
		if test {
			out = append(out, "\t\"testing\"")
		}
		out = append(out, ")", "")
	case langTS:
		for range between(c.r, 2, 5) {
			out = append(out, "import { "+c.typ()+" } from '"+pick(c.r, []string{"./", "../", "../../lib/"})+c.noun()+"';")
		}
		out = append(out, "import "+c.noun()+" from '"+pick(c.r, tsLibs)+"';", "")
	default:
		out = append(out, `"""`+c.sentence()+`"""`, "", "from __future__ import annotations", "", "import logging")
		for range between(c.r, 1, 3) {
			out = append(out, "import "+pick(c.r, pyStd))
		}
		out = append(out, "from typing import Any, Optional", "")
		for range between(c.r, 1, 3) {
			out = append(out, "from "+c.module+"."+c.noun()+" import "+c.typ())
		}
		out = append(out, "", "logger = logging.getLogger(__name__)", "")
	}
	for len(out) < n {
		out = append(out, c.block(test)...)
	}
	return out[:n]
}

// block returns a function, method group or test, followed by a blank line.
func (c *coder) block(test bool) []string {
	var out []string
	switch c.l {
	case langGo:
		if test {
			out = append(out, "func Test"+c.pascal()+"(t *testing.T) {")
			out = append(out, c.stmts("\t", between(c.r, 3, 14))...)
			out = append(out, "}")
			break
		}
		if chance(c.r, 0.2) {
			t := c.typ()
			out = append(out, "// "+t+" "+strings.ToLower(c.sentence()), "type "+t+" struct {")
			for range between(c.r, 2, 6) {
				out = append(out, "\t"+title(c.noun())+" "+pick(c.r, []string{"string", "int", "int64", "bool", "time.Time", "[]string", "*" + c.typ()}))
			}
			out = append(out, "}")
			break
		}
		name := c.pascal()
		out = append(out, "// "+name+" "+strings.ToLower(c.sentence()[:1])+c.sentence()[1:])
		out = append(out, "func (s *"+c.typ()+") "+name+"(ctx context.Context, "+c.noun()+"ID string) (*"+c.typ()+", error) {")
		out = append(out, c.stmts("\t", between(c.r, 3, 18))...)
		out = append(out, "}")
	case langTS:
		if test {
			out = append(out, "describe('"+c.typ()+"', () => {", "  it('"+thirdPerson(c.verb())+" the "+c.noun()+"', async () => {")
			out = append(out, c.stmts("    ", between(c.r, 2, 10))...)
			out = append(out, "  });", "});")
			break
		}
		out = append(out, "export async function "+c.camel()+"("+c.noun()+"Id: string, opts: "+c.typ()+"Options = {}): Promise<"+c.typ()+"> {")
		out = append(out, c.stmts("  ", between(c.r, 3, 16))...)
		out = append(out, "}")
	default:
		if test {
			out = append(out, "def test_"+c.snake()+"("+pick(c.r, []string{"client", "db", "tmp_path", "monkeypatch"})+"):")
			out = append(out, c.stmts("    ", between(c.r, 2, 10))...)
			break
		}
		if chance(c.r, 0.3) {
			out = append(out, "class "+c.typ()+":", `    """`+c.sentence()+`"""`, "")
			for range between(c.r, 1, 3) {
				out = append(out, "    def "+c.snake()+"(self, "+c.noun()+": "+c.typ()+") -> Optional["+c.typ()+"]:")
				out = append(out, c.stmts("        ", between(c.r, 2, 12))...)
				out = append(out, "")
			}
			break
		}
		out = append(out, "def "+c.snake()+"("+c.noun()+"_id: str, *, "+c.noun()+": Any = None) -> dict[str, Any]:")
		if chance(c.r, 0.5) {
			out = append(out, `    """`+c.sentence()+`"""`)
		}
		out = append(out, c.stmts("    ", between(c.r, 2, 16))...)
	}
	return append(out, "")
}

// stmts returns about n statement lines at the given indentation.
func (c *coder) stmts(indent string, n int) []string {
	out := make([]string, 0, n+4)
	for len(out) < n {
		out = append(out, c.stmt(indent)...)
	}
	return out
}

func (c *coder) stmt(in string) []string {
	a, b, v := c.ident(), c.ident(), c.ident()
	switch c.l {
	case langGo:
		switch c.r.IntN(9) {
		case 0:
			return []string{in + a + ", err := s." + c.pascal() + "(ctx, " + b + ")", in + "if err != nil {", in + "\treturn nil, fmt.Errorf(\"" + c.verb() + " " + c.noun() + ": %w\", err)", in + "}"}
		case 1:
			return []string{in + "for _, " + v + " := range " + a + "s {", in + "\t" + b + " = append(" + b + ", " + v + "." + title(c.noun()) + ")", in + "}"}
		case 2:
			return []string{in + "if " + a + " == nil {", in + "\treturn nil, errNo" + title(c.noun()), in + "}"}
		case 3:
			return []string{in + "s.mu.Lock()", in + "defer s.mu.Unlock()"}
		case 4:
			return []string{in + "// " + c.sentence()}
		case 5:
			return []string{in + v + " := " + strconv.Itoa(c.r.IntN(500)) + " * time." + pick(c.r, []string{"Millisecond", "Second"})}
		case 6:
			return []string{in + "if got, want := " + a + "." + title(c.noun()) + ", " + strconv.Itoa(c.r.IntN(100)) + "; got != want {", in + "\tt.Errorf(\"" + c.camel() + "() = %v, want %v\", got, want)", in + "}"}
		case 7:
			return []string{in + "return &" + c.typ() + "{" + title(c.noun()) + ": " + a + "}, nil"}
		default:
			return []string{in + a + " := " + c.camel() + "(" + b + ", " + v + ")"}
		}
	case langTS:
		switch c.r.IntN(8) {
		case 0:
			return []string{in + "const " + a + " = await this." + c.noun() + "Repo." + c.camel() + "(" + b + ");"}
		case 1:
			return []string{in + "if (!" + a + ") {", in + "  throw new Error(`" + title(c.noun()) + " ${" + b + "} not found`);", in + "}"}
		case 2:
			return []string{in + "for (const " + v + " of " + a + "s) {", in + "  " + b + ".push(" + v + "." + c.noun() + ");", in + "}"}
		case 3:
			return []string{in + "// " + c.sentence()}
		case 4:
			return []string{in + "expect(" + a + "." + c.noun() + ").toBe(" + strconv.Itoa(c.r.IntN(100)) + ");"}
		case 5:
			return []string{in + "logger.debug('" + c.verb() + " " + c.noun() + "', { " + a + ", " + b + " });"}
		case 6:
			return []string{in + "return { ..." + a + ", " + c.noun() + ": " + b + " };"}
		default:
			return []string{in + "const " + a + " = " + c.camel() + "(" + b + ", { " + c.noun() + ": " + v + " });"}
		}
	}
	switch c.r.IntN(9) {
	case 0:
		return []string{in + a + " = self." + c.noun() + "s.get(" + b + ")", in + "if " + a + " is None:", in + "    raise " + pick(c.r, errTypes) + "(f\"" + c.noun() + " {" + b + "!r} not found\")"}
	case 1:
		return []string{in + "for " + v + " in " + a + ":", in + "    " + b + ".append(" + v + "." + c.noun() + ")"}
	case 2:
		return []string{in + "logger.debug(\"" + c.verb() + " %s\", " + a + ")"}
	case 3:
		return []string{in + "# " + c.sentence()}
	case 4:
		return []string{in + "try:", in + "    " + a + " = " + c.snake() + "(" + b + ")", in + "except " + pick(c.r, errTypes) + " as exc:", in + "    logger.warning(\"" + c.verb() + " failed: %s\", exc)", in + "    return None"}
	case 5:
		return []string{in + "assert " + a + "." + c.noun() + " == " + strconv.Itoa(c.r.IntN(100))}
	case 6:
		return []string{in + "return {\"" + c.noun() + "\": " + a + ", \"" + c.noun() + "\": " + b + "}"}
	default:
		return []string{in + a + " = " + c.snake() + "(" + b + ", " + v + "=" + v + ")"}
	}
}

// numbered formats lines the way Claude Code's Read tool does (cat -n with
// an arrow): "     1→package main".
func numbered(text string, start int) string {
	var sb strings.Builder
	sb.Grow(len(text) + len(text)/4)
	n := start
	for line := range strings.SplitSeq(text, "\n") {
		if n > start {
			sb.WriteByte('\n')
		}
		s := strconv.Itoa(n)
		for i := len(s); i < 6; i++ {
			sb.WriteByte(' ')
		}
		sb.WriteString(s)
		sb.WriteString("→")
		sb.WriteString(line)
		n++
	}
	return sb.String()
}

// grepOutput returns about size characters of "path:line:text" matches for
// pattern and the files that matched.
func grepOutput(r *rand.Rand, w *workspace, pattern string, size int, withLines bool) (string, []string) {
	var sb strings.Builder
	var files []string
	seen := map[string]bool{}
	c := &coder{r: r, l: w.p.lang, module: w.p.module}
	for sb.Len() < size {
		f := pick(r, w.files)
		if !seen[f.path] {
			seen[f.path] = true
			files = append(files, f.path)
		}
		line := strings.TrimSpace(c.stmt("")[0])
		if chance(r, 0.6) {
			line = strings.Replace(line, c.ident(), pattern, 1)
			if !strings.Contains(line, pattern) {
				line += " // " + pattern
			}
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(f.path)
		if withLines {
			sb.WriteByte(':')
			sb.WriteString(strconv.Itoa(1 + r.IntN(max(1, f.nLines))))
		}
		sb.WriteByte(':')
		sb.WriteString(line)
	}
	return sb.String(), files
}

// globOutput returns up to n workspace paths (absolute when abs is set).
func globOutput(r *rand.Rand, w *workspace, n int, abs bool) []string {
	n = min(n, len(w.files))
	idx := r.Perm(len(w.files))[:n]
	out := make([]string, n)
	for i, j := range idx {
		out[i] = w.files[j].path
		if abs {
			out[i] = w.abs(out[i])
		}
	}
	return out
}

// testCommand returns the project's test command.
func testCommand(r *rand.Rand, w *workspace) string {
	switch w.p.lang {
	case langGo:
		return pick(r, []string{"go test ./...", "go test ./internal/... -run Test" + title(pick(r, nouns)), "go test -v ./..."})
	case langTS:
		return pick(r, []string{"npm test", "npx jest --runInBand", "pnpm test -- " + pick(r, nouns)})
	}
	return pick(r, []string{"pytest -q", "pytest -x -q", "python -m pytest tests/ -v", "pytest tests/test_" + pick(r, nouns) + "_" + pick(r, nouns) + ".py -v"})
}

// testLog returns a test run's output of about size characters; failed runs
// end with failures and a non-zero summary.
func testLog(r *rand.Rand, w *workspace, size int, failed bool) string {
	c := &coder{r: r, l: w.p.lang, module: w.p.module}
	var sb strings.Builder
	sb.Grow(size + 2048)
	nFail := 0
	if failed {
		nFail = between(r, 1, 4)
	}
	passed := 0
	switch w.p.lang {
	case langGo:
		for sb.Len() < size-600*nFail {
			name := "Test" + c.pascal()
			sb.WriteString("=== RUN   " + name + "\n")
			for range r.IntN(3) {
				sub := name + "/" + c.snake()
				sb.WriteString("=== RUN   " + sub + "\n--- PASS: " + sub + " (0.00s)\n")
			}
			fmt.Fprintf(&sb, "--- PASS: %s (%.2fs)\n", name, r.Float64()*0.3)
			passed++
			if passed%12 == 0 {
				fmt.Fprintf(&sb, "ok  \t%s/internal/%s\t%.3fs\n", w.p.module, c.noun(), 0.05+r.Float64()*2)
			}
		}
		for range nFail {
			name := "Test" + c.pascal()
			fmt.Fprintf(&sb, "=== RUN   %s\n    %s_test.go:%d: %s() = %d, want %d\n    %s_test.go:%d: unexpected %s: %q\n--- FAIL: %s (%.2fs)\n",
				name, c.noun(), 20+r.IntN(400), c.camel(), r.IntN(50), 50+r.IntN(50), c.noun(), 20+r.IntN(400), c.noun(), c.ident(), name, r.Float64())
		}
		if failed {
			fmt.Fprintf(&sb, "FAIL\nFAIL\t%s/internal/%s\t%.3fs\nFAIL\n", w.p.module, c.noun(), 0.1+r.Float64()*3)
		} else {
			fmt.Fprintf(&sb, "PASS\nok  \t%s/internal/%s\t%.3fs\n", w.p.module, c.noun(), 0.1+r.Float64()*3)
		}
	case langTS:
		for sb.Len() < size-700*nFail {
			fmt.Fprintf(&sb, " PASS  src/%s/%s.test.ts (%.3f s)\n  %s\n", c.noun(), c.noun(), 0.2+r.Float64()*4, c.typ())
			for range between(r, 2, 8) {
				fmt.Fprintf(&sb, "    ✓ %s the %s %s (%d ms)\n", thirdPerson(c.verb()), pick(r, adjectives), c.noun(), 1+r.IntN(80))
				passed++
			}
			sb.WriteString("\n")
		}
		for range nFail {
			t := c.typ()
			fmt.Fprintf(&sb, " FAIL  src/%s/%s.test.ts\n  ● %s › %s the %s\n\n    expect(received).toBe(expected) // Object.is equality\n\n    Expected: %d\n    Received: %d\n\n      %d |     const %s = await %s(%s);\n    > %d |     expect(%s.%s).toBe(%d);\n         |                  ^\n\n      at Object.<anonymous> (src/%s/%s.test.ts:%d:18)\n\n",
				c.noun(), c.noun(), t, thirdPerson(c.verb()), c.noun(), r.IntN(50), r.IntN(50), 40, c.ident(), c.camel(), c.ident(), 41, c.ident(), c.noun(), r.IntN(99), c.noun(), c.noun(), 41)
		}
		fmt.Fprintf(&sb, "Test Suites: %d failed, %d passed, %d total\nTests:       %d failed, %d passed, %d total\nSnapshots:   0 total\nTime:        %.3f s\nRan all test suites.\n",
			min(nFail, 1), passed/5+1, passed/5+1+min(nFail, 1), nFail, passed, passed+nFail, 1+r.Float64()*20)
	default:
		total := max(1, size/70)
		fmt.Fprintf(&sb, "============================= test session starts ==============================\nplatform linux -- Python 3.11.%d, pytest-8.%d.%d, pluggy-1.5.0\nrootdir: %s\nconfigfile: pyproject.toml\ncollected %d items\n\n",
			r.IntN(9), r.IntN(3), r.IntN(4), w.p.root, total+nFail)
		for sb.Len() < size-900*nFail {
			passed++
			fmt.Fprintf(&sb, "tests/test_%s.py::test_%s PASSED%*s[%3d%%]\n", c.noun(), c.snake(), 1+r.IntN(20), " ", min(99, passed*100/total))
		}
		if failed {
			sb.WriteString("\n=================================== FAILURES ===================================\n")
			for range nFail {
				name := "test_" + c.snake()
				fmt.Fprintf(&sb, "______________________________ %s ______________________________\n\n", name)
				for _, l := range c.stmts("    ", between(r, 4, 10)) {
					sb.WriteString(l + "\n")
				}
				fmt.Fprintf(&sb, ">       assert %s == %d\nE       AssertionError: assert %d == %d\nE        +  where %d = %s()\n\ntests/test_%s.py:%d: AssertionError\n",
					c.ident(), r.IntN(50), r.IntN(50), r.IntN(50), r.IntN(50), c.snake(), c.noun(), 10+r.IntN(300))
			}
			fmt.Fprintf(&sb, "=========================== short test summary info ============================\nFAILED tests/test_%s.py::test_%s - AssertionError\n======================== %d failed, %d passed in %.2fs =========================\n",
				c.noun(), c.snake(), nFail, passed, 1+r.Float64()*40)
		} else {
			fmt.Fprintf(&sb, "\n============================== %d passed in %.2fs ==============================\n", passed, 1+r.Float64()*40)
		}
	}
	return sb.String()
}

// shellMisc returns a non-test shell command and its output.
func shellMisc(r *rand.Rand, w *workspace, size int) (cmd, out string) {
	c := &coder{r: r, l: w.p.lang, module: w.p.module}
	var sb strings.Builder
	switch r.IntN(4) {
	case 0:
		cmd = "git status"
		fmt.Fprintf(&sb, "On branch %s\nChanges not staged for commit:\n  (use \"git add <file>...\" to update what will be committed)\n  (use \"git restore <file>...\" to discard changes in working directory)\n", w.p.branch)
		for _, p := range globOutput(r, w, between(r, 1, 6), false) {
			sb.WriteString("\tmodified:   " + p + "\n")
		}
		sb.WriteString("\nno changes added to commit (use \"git add\" and/or \"git commit -a\")")
	case 1:
		f := pick(r, w.files)
		cmd = "git diff " + f.path
		fmt.Fprintf(&sb, "diff --git a/%s b/%s\nindex %s..%s 100644\n--- a/%s\n+++ b/%s\n", f.path, f.path, randChars(r, hexDigits, 7), randChars(r, hexDigits, 7), f.path, f.path)
		for sb.Len() < size {
			at := 1 + r.IntN(400)
			fmt.Fprintf(&sb, "@@ -%d,7 +%d,8 @@ %s\n", at, at, c.snake())
			for _, l := range c.stmts("    ", 3) {
				sb.WriteString(" " + l + "\n")
			}
			for _, l := range c.stmts("    ", 2) {
				sb.WriteString("-" + l + "\n")
			}
			for _, l := range c.stmts("    ", 3) {
				sb.WriteString("+" + l + "\n")
			}
		}
	case 2:
		dir := "src"
		if w.p.lang == langGo {
			dir = "internal"
		}
		cmd = "ls -la " + dir
		fmt.Fprintf(&sb, "total %d\ndrwxr-xr-x  %d %s staff   %d Oct  3 11:02 .\ndrwxr-xr-x  18 %s staff   576 Oct  3 10:58 ..\n", 8+r.IntN(90), 3+r.IntN(20), "dev", 96+32*r.IntN(20), "dev")
		for range between(r, 3, 20) {
			fmt.Fprintf(&sb, "-rw-r--r--   1 dev  staff  %5d Oct %2d %02d:%02d %s%s\n", 200+r.IntN(30000), 1+r.IntN(28), r.IntN(24), r.IntN(60), c.noun(), w.p.lang.ext())
		}
	default:
		cmd = "git log --oneline -n 15"
		for range 15 {
			fmt.Fprintf(&sb, "%s %s %s %s\n", randChars(r, hexDigits, 7), pick(r, []string{"fix:", "feat:", "chore:", "refactor:", "test:"}), c.verb(), c.noun()+" "+c.noun())
		}
	}
	return cmd, strings.TrimRight(sb.String(), "\n")
}

// userPrompt returns a task for the agent mentioning real workspace paths.
func userPrompt(r *rand.Rand, w *workspace, followUp bool) string {
	c := &coder{r: r, l: w.p.lang, module: w.p.module}
	f := w.pickFile(r, false)
	t := w.pickFile(r, true)
	if followUp {
		return pick(r, []string{
			"Thanks. Can you also add a test for the " + c.noun() + " case?",
			"That broke `" + t.path + "`, please take a look.",
			"Looks good. Now " + c.verb() + " the " + c.noun() + " in `" + f.path + "` the same way.",
			"Run the full test suite again and fix anything that fails.",
			"Can you simplify " + c.snake() + "? It feels over-engineered.",
		})
	}
	return pick(r, []string{
		"The test `" + t.path + "` is failing after the last merge. Find out why and fix it.",
		"Add " + pick(r, adjectives) + " " + c.noun() + " support to `" + f.path + "`. It should " + c.verb() + " the " + c.noun() + " before saving and keep the existing behaviour otherwise.",
		"Updating a " + c.noun() + " is very slow. It looks like we " + c.verb() + " every " + c.noun() + " instead of just the one we need. Can you profile `" + f.path + "` and make it faster?",
		"Refactor the " + c.noun() + " handling in `" + f.path + "` so that " + c.snake() + " and " + c.snake() + " share one code path. Don't change the public API.",
		"We get a " + pick(r, errTypes) + " in production when the " + c.noun() + " is empty. Please reproduce it with a test and fix it.",
		"Implement retries with backoff for " + c.camel() + ". Look at how the " + c.noun() + " client does it and follow the same pattern.",
		"Explain how " + c.noun() + "s flow through this codebase, then rename `" + c.snake() + "` to something clearer everywhere.",
	})
}

// preface returns the short text an agent writes before a tool call.
func preface(r *rand.Rand, target string) string {
	return pick(r, []string{
		"Let me look at `" + target + "` first.",
		"I'll check how this is used.",
		"Now let me run the tests to see where we are.",
		"Let me search for other callers.",
		"I need to see the rest of this file.",
		"Now I'll make the change.",
		"Let me read the test to understand the expected behaviour.",
		"That explains the failure. Let me fix it.",
		"Let me verify the fix.",
	})
}

// thought returns a short reasoning paragraph.
func thought(r *rand.Rand, w *workspace) string {
	c := &coder{r: r, l: w.p.lang, module: w.p.module}
	var sb strings.Builder
	for i := range between(r, 1, 4) {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(pick(r, []string{
			"The " + c.noun() + " is " + c.past() + " twice here, which would explain the extra queries.",
			"I should check whether " + c.snake() + " is called from the " + c.noun() + " handler as well.",
			"The failing assertion compares the " + c.noun() + " count, so the bug is probably in " + c.snake() + ".",
			"Before editing I want to see the tests for " + c.noun() + "s.",
			"This looks like a cache invalidation problem: the " + c.noun() + " is never " + c.past() + " after an update.",
			"The simplest fix is to " + c.verb() + " the " + c.noun() + " once and pass it down.",
		}))
	}
	return sb.String()
}

// reasoningTitle returns a Codex-style reasoning summary heading.
func reasoningTitle(r *rand.Rand) string {
	return "**" + pick(r, []string{"Inspecting", "Reviewing", "Planning", "Checking", "Evaluating", "Investigating", "Fixing", "Verifying"}) +
		" " + pick(r, nouns) + " " + pick(r, []string{"handling", "tests", "service", "structure", "flow", "usage", "changes"}) + "**"
}

// finalAnswer returns the agent's closing message for a turn.
func finalAnswer(r *rand.Rand, w *workspace, edited []string) string {
	c := &coder{r: r, l: w.p.lang, module: w.p.module}
	var sb strings.Builder
	sb.WriteString(pick(r, []string{
		"Done. Here's a summary of the changes:",
		"I fixed the issue. Summary:",
		"The " + c.noun() + " handling now works as requested.",
		"Here's what I found and changed:",
	}))
	sb.WriteString("\n\n")
	if len(edited) == 0 {
		edited = []string{pick(r, w.files).path}
	}
	for i, p := range edited {
		if i >= 5 {
			break
		}
		sb.WriteString("- `" + p + "`: " + strings.ToLower(c.sentence()[:1]) + c.sentence()[1:] + "\n")
	}
	sb.WriteString("\n" + pick(r, []string{
		"All tests pass.",
		"The test suite passes locally.",
		"I couldn't run the integration tests, but the unit tests pass.",
		"One flaky test in the " + c.noun() + " suite still fails intermittently; it is unrelated to this change.",
	}))
	return sb.String()
}

// compactSummary returns the text Claude Code puts into the isCompactSummary
// user message after auto-compaction.
func compactSummary(r *rand.Rand, w *workspace, transcript string) string {
	c := &coder{r: r, l: w.p.lang, module: w.p.module}
	var sb strings.Builder
	sb.WriteString("This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nAnalysis:\nLet me chronologically analyze the conversation:\n\n")
	size := between(r, 5000, 14000)
	for i := 1; sb.Len() < size; i++ {
		f := pick(r, w.files)
		fmt.Fprintf(&sb, "%d. %s `%s`:\n   - %s\n   - %s\n   - %s\n\n", i, pick(r, []string{"Read", "Edited", "Investigated", "Ran tests for"}), f.path, c.sentence(), c.sentence(), c.sentence())
	}
	sb.WriteString("If you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: " + transcript + "\nPlease continue the conversation from where we left off without asking the user any further questions. Continue with the last task that you were asked to work on.")
	return sb.String()
}
