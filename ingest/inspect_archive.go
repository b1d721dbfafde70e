package ingest

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
	"github.com/trajmine/trajmine/schema"
)

// Reading an Inspect AI log: the .eval zip archive (with a cap on what it
// decompresses) or the .json document, and the eval header's spec and
// version.

// One archive member costs at most 10× its decompressed size in memory
// (TestInspectArchiveMemory asserts it): it measures 8× allocated
// in all (goccy copies its input on each Unmarshal; the member, the decoded
// sample, its messages as raw JSON, the message and its text each hold a
// copy), of which peak heap is a part. Attachment references add no copies
// beyond the file's budget of resolved text (inspAttachBudget;
// TestInspectAttachmentBomb).

// ErrDecompressedCap is returned (wrapped) for an archive whose members
// decompress to more than Options.MaxDecompressed.
var ErrDecompressedCap = errors.New("over the decompression cap")

// inspCapError says that path's members decompress to more than limit.
func inspCapError(path string, total uint64, limit int64) error {
	return fmt.Errorf("%s: not imported: the archive's members decompress to at least %d bytes (%.1f MiB), %w of %d bytes (%.1f MiB); raise it with --max-decompressed (Options.MaxDecompressed)",
		path, total, float64(total)/(1<<20), ErrDecompressedCap, limit, float64(limit)/(1<<20))
}

// inspReadMember reads a member that declares size bytes into a buffer of
// that size, refusing one whose size is over budget (negative: none)
// without reading it, and one that holds more than it declares; it reads to
// EOF so that archive/zip checks the member's CRC.
func inspReadMember(r io.Reader, size uint64, budget int64) ([]byte, error) {
	if budget >= 0 && size > uint64(budget) {
		return nil, fmt.Errorf("member of %d bytes %w", size, ErrDecompressedCap)
	}
	if size > math.MaxInt32 {
		return nil, fmt.Errorf("member of %d bytes too large to decode", size)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	var one [1]byte
	switch n, err := r.Read(one[:]); {
	case n > 0:
		return nil, fmt.Errorf("member longer than the %d bytes it declares", size)
	case err != nil && err != io.EOF:
		return nil, err
	}
	return b, nil
}

// inspArchive imports a .eval archive of size bytes.
func inspArchive(f *File, ra io.ReaderAt, size int64) error {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		raw := make([]byte, min(size, schema.MaxRejectRaw))
		n, _ := ra.ReadAt(raw, 0)
		return f.Reject(1, "invalid .eval archive: "+err.Error(), raw[:n])
	}
	isSample := func(zf *zip.File) bool {
		return strings.HasPrefix(zf.Name, "samples/") && strings.HasSuffix(zf.Name, ".json")
	}
	limit := f.maxDecompressed
	if limit == 0 {
		limit = DefaultMaxDecompressed
	}
	budget := limit // what the members still to read may decompress to; negative: no cap
	read := func(zf *zip.File) ([]byte, error) {
		rc, err := zf.Open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		b, err := inspReadMember(rc, zf.UncompressedSize64, budget)
		if budget >= 0 {
			budget -= int64(len(b))
		}
		if err == nil {
			b = f.repairJSON(b)
		}
		return b, err
	}
	hdr := &inspHeader{}
	headerAt := -1
	for i, zf := range zr.File {
		if zf.Name == "header.json" || zf.Name == "_journal/start.json" && headerAt < 0 {
			headerAt = i
			if zf.Name == "header.json" {
				break
			}
		}
	}
	var total uint64 // what the members read decompress to, as they declare
	for i, zf := range zr.File {
		if i == headerAt || isSample(zf) {
			total = min(total+min(zf.UncompressedSize64, math.MaxInt64), math.MaxInt64) // saturates, never wraps
		}
	}
	if limit >= 0 && total > uint64(limit) {
		return inspCapError(f.Path(), total, limit)
	}
	att := newInspAttach(total)
	if headerAt >= 0 {
		zf := zr.File[headerAt]
		b, err := read(zf)
		if err == nil {
			err = json.Unmarshal(b, hdr)
		}
		if err != nil {
			hdr = &inspHeader{}
			if err := f.Reject(int64(headerAt+1), zf.Name+": "+decodeErrText(err), b); err != nil {
				return err
			}
		}
	}
	spec := hdr.spec(f.Path())
	for i, zf := range zr.File {
		if !isSample(zf) {
			continue
		}
		if f.Ctx != nil {
			if err := f.Ctx.Err(); err != nil {
				return err
			}
		}
		b, err := read(zf)
		if errors.Is(err, ErrDecompressedCap) {
			return inspCapError(f.Path(), uint64(limit-budget)+zf.UncompressedSize64, limit)
		}
		if err != nil {
			if err := f.Reject(int64(i+1), zf.Name+": "+err.Error(), nil); err != nil {
				return err
			}
			continue
		}
		entry := int64(i + 1)
		reject := func(reason string, raw []byte) error {
			return f.Reject(entry, zf.Name+": "+reason, raw)
		}
		if err := inspSampleRun(f, spec, att, b, func(msg int) int64 { return int64(msg + 1) }, reject); err != nil {
			return err
		}
	}
	return nil
}

// inspDocument imports a .json log.
func inspDocument(f *File, d *jsonDoc) error {
	var log struct {
		inspHeader
		Samples []json.RawMessage `json:"samples"`
	}
	if ok, err := d.decode(f, &log); !ok {
		return err
	}
	data := bytes.TrimPrefix(d.data, utf8BOM)
	lines := d.index()
	if len(data) < len(d.data) {
		lines = newLineIndex(data)
	}
	spec := log.spec(f.Path())
	att := newInspAttach(uint64(len(data)))
	start := jsonWS(data, 0)
	var offs []int
	if at := jsonFieldAt(data, start, "samples"); at >= 0 {
		jsonEachElem(data, at, func(v int) bool {
			offs = append(offs, v)
			return true
		})
	}
	for i, raw := range log.Samples {
		off := start
		if i < len(offs) {
			off = offs[i]
		}
		lineOf := func(msg int) int64 { return lines.line(off) }
		var msgOffs []int
		if at := jsonFieldAt(data, off, "messages"); at >= 0 {
			jsonEachElem(data, at, func(v int) bool {
				msgOffs = append(msgOffs, v)
				return true
			})
			lineOf = func(msg int) int64 {
				if msg < len(msgOffs) {
					return lines.line(msgOffs[msg])
				}
				return lines.line(off)
			}
		}
		line := lines.line(off)
		reject := func(reason string, raw []byte) error {
			return f.Reject(line, fmt.Sprintf("sample %d: %s", i+1, reason), raw)
		}
		if err := inspSampleRun(f, spec, att, raw, lineOf, reject); err != nil {
			return err
		}
	}
	return nil
}

// inspHeader is the part of an eval log header the importer reads.
type inspHeader struct {
	Status string          `json:"status"`
	Eval   json.RawMessage `json:"eval"`
}

type inspEvalSpec struct {
	EvalID   string            `json:"eval_id"`
	RunID    string            `json:"run_id"`
	TaskID   string            `json:"task_id"`
	Task     string            `json:"task"`
	Model    string            `json:"model"`
	Packages map[string]string `json:"packages"`
}

// inspSpec is what every sample's run needs from the header.
type inspSpec struct {
	id      string // eval id (else task id, run id, file name)
	task    string
	model   string
	version [3]int
}

func (h *inspHeader) spec(path string) *inspSpec {
	var e inspEvalSpec
	if len(h.Eval) > 0 {
		_ = json.Unmarshal(h.Eval, &e)
	}
	s := &inspSpec{id: e.EvalID, task: e.Task, model: e.Model, version: inspVersion(e.Packages["inspect_ai"])}
	for _, alt := range []string{e.TaskID, e.RunID} {
		if s.id == "" {
			s.id = alt
		}
	}
	if s.id == "" {
		b := filepath.Base(path)
		s.id = strings.TrimSuffix(b, filepath.Ext(b))
	}
	return s
}

var inspVersionRe = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)`)

func inspVersion(v string) [3]int {
	var out [3]int
	if m := inspVersionRe.FindStringSubmatch(v); m != nil {
		for i := range out {
			out[i], _ = strconv.Atoi(m[i+1])
		}
	}
	return out
}

// inspNormalized is the first Inspect version whose "ModelUsage.input_tokens"
// excludes cache reads and writes for every provider (0.3.184, 28 February
// 2026: "Normalize handling of cached tokens in ModelUsage").
var inspNormalized = [3]int{0, 3, 184}

// inspInclusive reports whether a call's logged input_tokens already
// includes its cached tokens. From 0.3.184 on it never does. Before, Inspect
// passed the provider's own count through: Anthropic's input_tokens excludes
// cache reads and writes, OpenAI's prompt_tokens (and the other
// OpenAI-compatible and Google APIs') includes cache reads.
func inspInclusive(version [3]int, model string) bool {
	for i := range version {
		if version[i] != inspNormalized[i] {
			if version[i] > inspNormalized[i] {
				return false
			}
			break
		}
		if i == 2 {
			return false
		}
	}
	m := strings.ToLower(model)
	provider, _, _ := strings.Cut(m, "/")
	switch provider {
	case "anthropic":
		return false
	case "bedrock", "vertex":
		return !strings.Contains(m, "claude")
	}
	return true
}
