package cmd

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/synth"
)

// SynthOptions are the flags of trajmine synth.
type SynthOptions struct {
	Dir         string
	N           int
	Seed        uint64
	Formats     []string // --formats; empty means all
	Profiles    []string // --profiles: profile names
	ProfileFile string   // --profile-file: JSON array of profiles
	Calls       int      // --calls: median planned model calls of a regular session
	PlantReuse  bool     // --plant-reuse: tools with known reuse in the OpenAI-messages sessions
	Terminal
}

// NewSynthCmd builds `trajmine synth`.
func NewSynthCmd(d *Deps, runF func(*SynthOptions) error) *cobra.Command {
	o := &SynthOptions{}
	c := &cobra.Command{
		Use:   "synth [-n N] [--seed S] [--formats F,…] [--calls C] [--profiles P,… | --profile-file FILE] DIR",
		Short: "Write a realistic synthetic corpus of agent sessions (for demos and benchmarks)",
		Long: `Write N synthetic agent sessions under DIR in the Claude Code, Codex CLI and
OpenAI-messages formats: varied lengths, tool mixes and output sizes, DTOC runs
with manage_context, runs that hit their window. The same seed writes the same
bytes.

--formats limits the formats (claude-code, codex-cli, openai-messages); the N
sessions are dealt round-robin to them.

--calls sets the sessions' length: the median model calls of a regular session
(default 22; lengths are long-tailed, 5 to 150 at the default). Every session's
planned calls scale with it, sessions that overflow or compact too (they still
stop or compact when their window fills). The default writes the same bytes as
before the flag existed.

--profiles plants manage_context behaviour with known truth: every
OpenAI-messages session becomes a DTOC run of one of the named profiles
(dealt round-robin), logged under the profile's own model (synth-<profile>),
and the ground truth (per model: profile and parameters; per session: its
profile and what it did) is written to DIR/.synth/ground_truth.json, where
'trajmine ingest DIR' does not look. Profiles, with their defaults:

  selective  4 manage_context calls per 100 calls; each frees 2000-40000
             tokens from 1-4 large outputs at least 6 calls old, not of
             the files last read; 5% re-enabled 10-40 calls later
  shallow    30 per 100 calls; each frees 20-450 tokens from 1-2 outputs at
             most 3 calls old, newest first; 10% re-enabled 8-30 calls later
  never      has manage_context, never calls it
  thrasher   20 per 100 calls; each frees 200-6000 tokens from 1-2 outputs
             at least 1 call old; 80% re-enabled 1-3 calls later

Tokens freed are estimated_tokens (ceil(chars/4)) minus a 40-token
placeholder. --profile-file gives the profiles as a JSON array instead, each
element a "name" plus any parameters to override, e.g.
[{"name":"shallow","ops_per_100":50,"model":"gpt-5.5"}]; the fields are those
of ground_truth.json.`,
		Example: `  trajmine synth -n 200 --seed 3 corpus
  trajmine synth -n 80 --formats openai-messages --profiles selective,shallow,never,thrasher planted`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			o.Dir = args[0]
			o.setTerminal(c, d)
			if o.N <= 0 {
				return flagErrorf("-n must be positive")
			}
			if o.Calls <= 0 {
				return flagErrorf("--calls must be positive")
			}
			if len(o.Profiles) > 0 && o.ProfileFile != "" {
				return flagErrorf("--profiles and --profile-file are mutually exclusive")
			}
			for _, f := range o.Formats {
				if !slices.Contains([]string{synth.FormatClaudeCode, synth.FormatCodexCLI, synth.FormatOpenAIMessages}, f) {
					return flagErrorf("--formats: unknown format %q (want claude-code, codex-cli or openai-messages)", f)
				}
			}
			if runF != nil {
				return runF(o)
			}
			return synthRun(o)
		},
	}
	c.Flags().IntVarP(&o.N, "n", "n", 50, "number of sessions")
	c.Flags().Uint64Var(&o.Seed, "seed", 1, "random seed")
	c.Flags().StringSliceVar(&o.Formats, "formats", nil, "formats to write (comma-separated or repeated; default all)")
	c.Flags().StringSliceVar(&o.Profiles, "profiles", nil, "plant manage_context behaviour profiles in the OpenAI-messages sessions: selective, shallow, never, thrasher")
	c.Flags().IntVar(&o.Calls, "calls", synth.DefaultCalls, "median model calls of a regular session; every session's length scales with it")
	c.Flags().BoolVar(&o.PlantReuse, "plant-reuse", false, "plant tools with known reuse in the OpenAI-messages sessions: schema_lookup outputs are mentioned later, log_dump outputs never")
	c.Flags().StringVar(&o.ProfileFile, "profile-file", "", "plant the profiles of a JSON file (array of {\"name\", parameters…})")
	return c
}

func synthRun(o *SynthOptions) error {
	so := &synth.Options{N: o.N, Seed: o.Seed, Formats: o.Formats, Calls: o.Calls, PlantReuse: o.PlantReuse}
	for _, name := range o.Profiles {
		p, err := synth.DefaultProfile(strings.TrimSpace(name))
		if err != nil {
			return flagErrorf("--profiles: %v", err)
		}
		so.Profiles = append(so.Profiles, p)
	}
	if o.ProfileFile != "" {
		data, err := os.ReadFile(o.ProfileFile)
		if err != nil {
			return fmt.Errorf("read profiles: %w", err)
		}
		if so.Profiles, err = synth.ParseProfiles(data); err != nil {
			return fmt.Errorf("%s: %w", o.ProfileFile, err)
		}
	}
	if len(so.Profiles) > 0 && len(o.Formats) > 0 && !slices.Contains(o.Formats, synth.FormatOpenAIMessages) {
		return flagErrorf("profiles apply to openai-messages sessions: add it to --formats")
	}
	m, err := synth.Write(o.Dir, so)
	if err != nil {
		return err
	}
	printSynth(o.Out, o.Width, o.Dir, m)
	return nil
}

func printSynth(w io.Writer, width int, dir string, m *synth.Manifest) {
	byFormat := map[string]int{}
	dtoc, hits := 0, 0
	for _, f := range m.Files {
		byFormat[f.Format]++
		if f.DTOC {
			dtoc++
		}
		if f.HitsWindow {
			hits++
		}
	}
	printWrapped(w, width, fmt.Sprintf("wrote %s to %s (claude-code %d, codex-cli %d, openai-messages %d; %d DTOC, %d hit their window)",
		countOf(len(m.Files), "session"), dir, byFormat["claude-code"], byFormat["codex-cli"], byFormat["openai-messages"], dtoc, hits))
	if m.Truth == nil {
		return
	}
	for _, f := range m.Truth.Families {
		per100 := 0.0
		if f.Calls > 0 {
			per100 = 100 * float64(f.ManageCalls) / float64(f.Calls)
		}
		printFitted(w, width, fmt.Sprintf("  %-10s %-18s %3d sessions, %5d calls, %4d manage_context calls (%.1f per 100 calls), %4d disables, %4d enables",
			f.Profile.Name, f.Model, f.Sessions, f.Calls, f.ManageCalls, per100, f.Disables, f.Enables))
	}
	fmt.Fprintf(w, "ground truth: %s\n", filepath.Join(dir, filepath.FromSlash(path.Clean(synth.GroundTruthFile))))
}
