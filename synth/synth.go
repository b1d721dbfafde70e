package synth

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Format names accepted in Options.Formats and reported in FileInfo.Format.
const (
	FormatClaudeCode     = "claude-code"
	FormatCodexCLI       = "codex-cli"
	FormatOpenAIMessages = "openai-messages"
)

// DefaultN is the number of sessions written when Options.N is zero.
const DefaultN = 100

// allFormats is the canonical order; sessions are dealt to formats in it.
var allFormats = []string{FormatClaudeCode, FormatCodexCLI, FormatOpenAIMessages}

// Options configures Write. A nil *Options means defaults.
type Options struct {
	// N is the total number of sessions, dealt round-robin to the formats
	// (session i gets format i mod len(Formats)). Zero means DefaultN.
	N int
	// Seed selects the corpus. The same Seed, N and Formats give
	// byte-identical files.
	Seed uint64
	// Formats lists the formats to write (FormatClaudeCode, FormatCodexCLI,
	// FormatOpenAIMessages). Empty means all three. Order and duplicates do
	// not matter.
	Formats []string
	// Profiles plants manage_context behaviour: when set, every
	// OpenAI-messages session is a DTOC run of one profile, dealt
	// round-robin in this order (the j-th OpenAI-messages session gets
	// Profiles[j mod len(Profiles)]) and logged under the profile's Model,
	// and Write writes GroundTruthFile. Empty (the default) writes the
	// corpus without profiles, byte-identical to earlier versions. Claude
	// Code and Codex sessions are the same with or without profiles.
	// Build entries with DefaultProfile or ParseProfiles.
	Profiles []Profile
	// Calls sets the sessions' length: the median planned model calls of
	// a regular session (0 means DefaultCalls). Every session's planned
	// calls are scaled by Calls/DefaultCalls after they are drawn, the
	// overflowing and compacting shapes too (a session that overflows or
	// compacts still ends or compacts when its window fills, so scaling
	// them down can make them end first); the draws are the same, so a
	// corpus with Calls = DefaultCalls is byte-identical to one without.
	// Profiled DTOC runs keep at least their minimum length.
	Calls int
	// PlantReuse adds to every OpenAI-messages session two tools with
	// known reuse (see ReusedTool and NeverReusedTool): one whose outputs
	// later messages mention, one never mentioned again. False (the
	// default) writes the corpus as before.
	PlantReuse bool
}

// DefaultCalls is the median planned model calls of a regular session.
const DefaultCalls = 22

// Manifest lists what Write produced, one entry per session in generation
// order.
type Manifest struct {
	Files []FileInfo
	// Truth is the planted behaviour, nil unless Options.Profiles is set.
	Truth *GroundTruth
}

// FileInfo describes one generated session.
type FileInfo struct {
	// Path is the file holding the session, slash-separated and relative to
	// the output directory. OpenAI runs share one file and differ by RunID.
	Path string
	// Format is one of the Format constants.
	Format string
	// RunID is the session's own id: Claude Code sessionId, Codex
	// session_meta id, or the OpenAI run_id.
	RunID string
	// Turns is the number of successful model calls (API responses).
	Turns int
	// ToolCalls is the number of tool calls, each with a logged result.
	ToolCalls int
	// DTOC marks OpenAI runs whose tool results are DTOC envelopes and which
	// have manage_context (all call it, except runs of ProfileNever).
	DTOC bool
	// Profile is the behaviour profile of a profiled session, else empty.
	Profile string
	// HitsWindow marks sessions that end because a prompt exceeded the
	// model's context window.
	HitsWindow bool
	// InputTokens is the sum of prompt tokens (cached and uncached) over the
	// successful model calls; OutputTokens the sum of completion tokens.
	InputTokens, OutputTokens int64
}

// sessionSpec is what a format writer needs to generate one session.
type sessionSpec struct {
	r       *rand.Rand
	id      string
	start   time.Time
	project *project
	scale   float64 // Options.Calls / DefaultCalls
}

// resolve applies defaults and validates o.
func (o *Options) resolve() (n int, seed uint64, formats []string, err error) {
	n = DefaultN
	if o == nil {
		return n, 0, allFormats, nil
	}
	if o.N < 0 {
		return 0, 0, nil, fmt.Errorf("options: N must be >= 0, got %d", o.N)
	}
	if o.N > 0 {
		n = o.N
	}
	if o.Calls < 0 {
		return 0, 0, nil, fmt.Errorf("options: Calls must be >= 0, got %d", o.Calls)
	}
	if err := validateProfiles(o.Profiles); err != nil {
		return 0, 0, nil, err
	}
	if len(o.Formats) == 0 {
		return n, o.Seed, allFormats, nil
	}
	for _, f := range o.Formats {
		if !slices.Contains(allFormats, f) {
			return 0, 0, nil, fmt.Errorf("options: unknown format %q", f)
		}
	}
	for _, f := range allFormats {
		if slices.Contains(o.Formats, f) {
			formats = append(formats, f)
		}
	}
	return n, o.Seed, formats, nil
}

// Write generates a corpus into dir (created if needed) and returns what it
// wrote. Files are streamed: each Claude Code and Codex session is written
// as it is generated, OpenAI runs are appended to one file run by run.
// See the package documentation for the layout and invariants.
func Write(dir string, o *Options) (*Manifest, error) {
	n, seed, formats, err := o.resolve()
	if err != nil {
		return nil, err
	}
	scale := 1.0
	if o != nil && o.Calls > 0 {
		scale = float64(o.Calls) / DefaultCalls
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	master := newRand(seed, streamMaster)
	projects := newProjects(master, between(master, 4, 8))
	t := baseTime(seed)
	m := &Manifest{Files: make([]FileInfo, 0, n)}
	var profiles []Profile
	if o != nil && len(o.Profiles) > 0 {
		profiles = o.Profiles
		m.Truth = &GroundTruth{Seed: seed, N: n, Families: make([]FamilyTruth, len(profiles)), Sessions: []SessionTruth{}}
		for i, p := range profiles {
			m.Truth.Families[i] = FamilyTruth{Model: p.Model, Profile: p}
		}
	}
	nOpenAI := 0

	var oa *openFile
	defer func() {
		if oa != nil {
			oa.close() // only reached on error paths; the happy path closes below
		}
	}()
	for i := range n {
		// Exactly three master draws per session, so session i depends only
		// on (Seed, i), not on the formats of earlier sessions.
		sessSeed := master.Uint64()
		t = t.Add(time.Duration(logNormal(master, 7200, 1.0)) * time.Second)
		proj := projects[master.IntN(len(projects))]
		spec := sessionSpec{r: newRand(sessSeed, streamSession), project: proj, scale: scale}
		spec.start = t.Add(time.Duration(spec.r.IntN(1000)) * time.Millisecond)

		var fi FileInfo
		switch format := formats[i%len(formats)]; format {
		case FormatClaudeCode:
			spec.id = uuid4(spec.r)
			rel := claudePath(proj, spec.id)
			err = writeFile(dir, rel, func(lw *lineWriter) { fi = claudeSession(lw, spec, rel) })
		case FormatCodexCLI:
			spec.id = uuid7(spec.r, spec.start)
			rel := codexPath(spec.start, spec.id)
			err = writeFile(dir, rel, func(lw *lineWriter) { fi = codexSession(lw, spec, rel) })
		case FormatOpenAIMessages:
			if oa == nil {
				if oa, err = createFile(dir, openaiPath); err != nil {
					return nil, err
				}
			}
			spec.id = uuid4(spec.r)
			var prof *Profile
			if len(profiles) > 0 {
				prof = &profiles[nOpenAI%len(profiles)]
			}
			nOpenAI++
			line, info, w := openaiRun(spec, prof, o != nil && o.PlantReuse)
			fi = info
			oa.lw.write(line)
			err = oa.lw.err
			if prof != nil {
				m.Truth.addSession(fi, prof, w.manages, w.disables, w.enables)
			}
		}
		if err != nil {
			return nil, err
		}
		m.Files = append(m.Files, fi)
	}
	if oa != nil {
		err = oa.close()
		oa = nil
		if err != nil {
			return nil, err
		}
	}
	if m.Truth != nil {
		if err := writeTruth(dir, m.Truth); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// writeTruth writes g as indented JSON to dir/GroundTruthFile.
func writeTruth(dir string, g *GroundTruth) error {
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return fmt.Errorf("encode ground truth: %w", err)
	}
	path := filepath.Join(dir, filepath.FromSlash(GroundTruthFile))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write ground truth: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write ground truth: %w", err)
	}
	return nil
}

// openFile is an output file with its buffered line writer.
type openFile struct {
	path string
	f    *os.File
	lw   *lineWriter
}

func createFile(dir, rel string) (*openFile, error) {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("create directory for %s: %w", rel, err)
	}
	f, err := os.Create(p)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", rel, err)
	}
	return &openFile{path: rel, f: f, lw: &lineWriter{w: bufio.NewWriterSize(f, 64<<10)}}, nil
}

func (o *openFile) close() error {
	err := o.lw.err
	if err == nil {
		err = o.lw.w.Flush()
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	return nil
}

// writeFile creates dir/rel and runs gen with a line writer on it.
func writeFile(dir, rel string, gen func(*lineWriter)) error {
	o, err := createFile(dir, rel)
	if err != nil {
		return err
	}
	gen(o.lw)
	return o.close()
}
