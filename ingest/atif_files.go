package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// Which run an ATIF trajectory file belongs to: its identity (plain,
// continuation or summarization of a root session) and the continuation
// files beside it that are joined into the root's run.

// atifKind is what a trajectory file is within a Harbor trial.
type atifKind int

const (
	atifPlain atifKind = iota
	atifContinuation
	atifSummarization
)

var (
	atifContRe     = regexp.MustCompile(`-cont-(\d+)$`)
	atifContFileRe = regexp.MustCompile(`(?i)^(.*?)(?:\.trajectory)?\.cont-(\d+)\.json$`)
	atifSumFileRe  = regexp.MustCompile(`(?i)^(.*?)(?:\.trajectory)?\.summarization-(\d+)-([a-z0-9_]+)\.json$`)
	atifSumPartRe  = regexp.MustCompile(`summarization-(\d+)-([A-Za-z0-9_]+)$`)
	atifSumNameRe  = regexp.MustCompile(`-summarization-([A-Za-z0-9_]+)$`)
)

// atifIdentity is a trajectory's run naming.
type atifIdentity struct {
	kind   atifKind
	id     string // run id
	parent string // parent run id
	root   string // root session
	index  int64  // continuation or summarization index
	cont   int64  // a summarization's continuation (parent <root>/cont-N)
	part   string // summarization part (summary, questions, answers)
}

// atifRoot strips a continuation suffix from a session id.
func atifRoot(session string) (root string, cont int64) {
	if m := atifContRe.FindStringSubmatch(session); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return strings.TrimSuffix(session, m[0]), n
	}
	return session, 0
}

// atifBase returns the file name without its .trajectory.json ending.
func atifBase(path string) string {
	b := filepath.Base(path)
	if b == "." || b == string(filepath.Separator) {
		return ""
	}
	b = strings.TrimSuffix(b, filepath.Ext(b))
	return strings.TrimSuffix(b, ".trajectory")
}

// atifIdentify names the run of a top-level trajectory (see the type doc).
func atifIdentify(path string, doc *atifDoc, agent *atifAgent) atifIdentity {
	session := atifString(doc.SessionID)
	if session == "" {
		session = atifString(doc.TrajectoryID)
	}
	var ex atifAgentExtra
	if len(agent.Extra) > 0 {
		_ = json.Unmarshal(agent.Extra, &ex)
	}
	name := filepath.Base(path)
	contIdx, _ := atifCount(ex.ContinuationIndex)
	sumIdx, hasSum := atifCount(ex.SummarizationIndex)
	parentSession := atifString(ex.ParentSessionID)
	contFile := atifContFileRe.FindStringSubmatch(name)
	sumFile := atifSumFileRe.FindStringSubmatch(name)

	switch {
	case parentSession != "" && (hasSum || atifSumNameRe.MatchString(agent.Name)) || sumFile != nil:
		id := atifIdentity{kind: atifSummarization, index: sumIdx}
		if m := atifSumPartRe.FindStringSubmatch(session); m != nil {
			id.index, _ = strconv.ParseInt(m[1], 10, 64)
			id.part = m[2]
		} else if sumFile != nil {
			id.index, _ = strconv.ParseInt(sumFile[2], 10, 64)
			id.part = strings.ToLower(sumFile[3])
		} else if m := atifSumNameRe.FindStringSubmatch(agent.Name); m != nil {
			id.part = m[1]
		}
		if id.part == "" {
			id.part = "part"
		}
		parent := parentSession
		if parent == "" && sumFile != nil {
			parent = sumFile[1]
		}
		if parent == "" {
			parent = session
		}
		root, cont := atifRoot(parent)
		if root == "" {
			root = atifBase(path)
		}
		id.root = root
		id.parent = root
		if cont > 0 {
			id.cont = cont
			id.parent = root + "/cont-" + strconv.FormatInt(cont, 10)
		}
		id.id = root + "/summarization-" + strconv.FormatInt(id.index, 10) + "-" + id.part
		return id
	case contIdx > 0 || contFile != nil:
		id := atifIdentity{kind: atifContinuation, index: contIdx}
		if contIdx == 0 {
			id.index, _ = strconv.ParseInt(contFile[2], 10, 64)
		}
		root, n := atifRoot(session)
		if n > 0 && contIdx == 0 {
			id.index = n
		}
		if root == "" && contFile != nil {
			root = contFile[1]
		}
		if root == "" {
			root = atifBase(path)
		}
		id.root, id.parent = root, root
		id.id = root + "/cont-" + strconv.FormatInt(id.index, 10)
		return id
	}
	if session == "" {
		session = atifBase(path)
	}
	return atifIdentity{id: session, root: session, parent: parentSession}
}

// atifLoad reads the trajectory file at path for joining (see atifJoined).
// p is nil when the file is not an ATIF trajectory object; exists is false
// when there is no file at path.
func atifLoad(path string) (p *atifPart, exists bool) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		return nil, true
	}
	// repaired, not counted: the file's own import counts it
	data, _ = repairJSONText(bytes.TrimPrefix(data, utf8BOM))
	start := jsonWS(data, 0)
	if start >= len(data) || data[start] != '{' {
		return nil, true
	}
	var doc atifDoc
	if json.Unmarshal(data, &doc) != nil || doc.Steps == nil && doc.Conversations != nil {
		return nil, true
	}
	p = &atifPart{name: filepath.Base(path), data: data, lines: newLineIndex(data), start: start, doc: &doc}
	p.decodeAgent()
	p.id = atifIdentify(path, &doc, &p.agent)
	return p, true
}

// atifExists reports whether there is a file at path (for the continuation
// chain: a file that exists but cannot be read is skipped, not a gap).
func atifExists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// atifContNameRe is a continuation file's name <stem>.cont-<N>.json, whose
// root is <stem>.json beside it (Harbor: trajectory.json,
// trajectory.cont-1.json, trajectory.cont-2.json …).
var atifContNameRe = regexp.MustCompile(`^(.+)\.cont-([1-9][0-9]{0,5})\.json$`)

// atifContPath is the path of the n-th continuation of the root file at path.
func atifContPath(root string, n int) string {
	return strings.TrimSuffix(root, ".json") + ".cont-" + strconv.Itoa(n) + ".json"
}

// atifContinuations reads the continuations beside the root trajectory file
// at path: <stem>.cont-1.json, .cont-2.json … up to the first missing one.
// A file that cannot be read or is not an ATIF continuation is left out
// (it then imports on its own).
func atifContinuations(path string) []*atifPart {
	if !strings.HasSuffix(path, ".json") || atifContNameRe.MatchString(filepath.Base(path)) {
		return nil
	}
	var parts []*atifPart
	for n := 1; n < 1e6; n++ {
		p, exists := atifLoad(atifContPath(path, n))
		if !exists {
			break
		}
		if p != nil && p.id.kind == atifContinuation {
			parts = append(parts, p)
		}
	}
	return parts
}

// atifJoined reports whether the continuation file at path is imported as
// part of its root's run, so that its own import adds nothing: it is named
// <stem>.cont-N.json, <stem>.json beside it is a plain trajectory, and
// .cont-1 … .cont-(N-1) exist (the root's import stops at the first gap).
// The caller has checked that the file itself is an ATIF continuation.
func atifJoined(path string) bool {
	dir, name := filepath.Split(path)
	m := atifContNameRe.FindStringSubmatch(name)
	if m == nil {
		return false
	}
	root := filepath.Join(dir, m[1]+".json")
	n, _ := strconv.Atoi(m[2])
	for k := 1; k < n; k++ {
		if !atifExists(atifContPath(root, k)) {
			return false
		}
	}
	p, _ := atifLoad(root)
	return p != nil && p.id.kind == atifPlain
}

// atifSumStemRe is a summarization sub-trajectory's file name
// <stem>.summarization-N-<part>.json.
var atifSumStemRe = regexp.MustCompile(`^(.+)\.summarization-[0-9]+-[A-Za-z0-9_]+\.json$`)

// atifSumParent returns the parent run of a summarization sub-trajectory of
// continuation cont (its parent_session_id is <root>-cont-N) when that
// continuation is joined into the root's run beside it: the root's run.
func atifSumParent(path string, id atifIdentity) (string, bool) {
	if id.kind != atifSummarization || id.cont <= 0 {
		return "", false
	}
	dir, name := filepath.Split(path)
	m := atifSumStemRe.FindStringSubmatch(name)
	if m == nil {
		return "", false
	}
	cont := atifContPath(filepath.Join(dir, m[1]+".json"), int(id.cont))
	if p, _ := atifLoad(cont); p == nil || p.id.kind != atifContinuation || !atifJoined(cont) {
		return "", false
	}
	root, _ := atifLoad(filepath.Join(dir, m[1]+".json"))
	if root == nil || root.id.kind != atifPlain { // changed since atifJoined read it
		return "", false
	}
	return root.id.id, true
}

// atifParsedStep is a decoded step with its position.
type atifParsedStep struct {
	atifStep
	n    int   // 1-based index in steps
	line int64 // line of the step in the file
	ts   *time.Time
}

// atifPart is one trajectory object to import: the document at offset start
// of data, decoded into doc. name is empty for the imported file itself and
// the base name of a continuation file joined into its root's run.
type atifPart struct {
	name     string
	data     []byte
	lines    lineIndex
	start    int
	doc      *atifDoc
	agent    atifAgent
	agentErr error
	id       atifIdentity // naming of a top-level trajectory
}

// decodeAgent decodes the agent object (errors are reported by the import).
func (p *atifPart) decodeAgent() {
	if len(p.doc.Agent) > 0 && string(p.doc.Agent) != "null" {
		p.agentErr = json.Unmarshal(p.doc.Agent, &p.agent)
	}
}

// reject records a malformed record of the part; a joined continuation's
// reasons start with its file name (the line is within that file).
func (p *atifPart) reject(f *File, line int64, reason string, raw []byte) error {
	if p.name != "" {
		reason = p.name + ": " + reason
	}
	return f.Reject(line, reason, raw)
}

// steps decodes the steps, each on its own, and returns them with the line
// of the steps array.
func (p *atifPart) steps(f *File) ([]atifParsedStep, int64, error) {
	stepsAt := jsonFieldAt(p.data, p.start, "steps")
	var offs []int
	if stepsAt >= 0 {
		jsonEachElem(p.data, stepsAt, func(v int) bool {
			offs = append(offs, v)
			return true
		})
	}
	steps := make([]atifParsedStep, 0, len(p.doc.Steps))
	for i, raw := range p.doc.Steps {
		line := p.lines.line(stepsAt)
		if i < len(offs) {
			line = p.lines.line(offs[i])
		}
		var s atifParsedStep
		if err := json.Unmarshal(raw, &s.atifStep); err != nil || !isJSONObject(raw) {
			if err := p.reject(f, line, fmt.Sprintf("step %d: %s", i+1, explainDecodeErr(err, raw, &atifStep{})), raw); err != nil {
				return nil, 0, err
			}
			continue
		}
		s.n, s.line, s.ts = i+1, line, ParseTime(s.Timestamp)
		steps = append(steps, s)
	}
	return steps, p.lines.line(stepsAt), nil
}
