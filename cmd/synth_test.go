package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/internal/testutil"
)

func TestSynthFlags(t *testing.T) {
	var got *SynthOptions
	c := NewSynthCmd(testDeps(t, nil), func(o *SynthOptions) error { got = o; return nil })
	c.SetArgs([]string{"-n", "8", "--seed", "4", "--formats", "openai-messages", "--calls", "40", "--profiles", "selective,never", "--profiles", "thrasher", "out"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	want := &SynthOptions{Dir: "out", N: 8, Seed: 4, Formats: []string{"openai-messages"}, Calls: 40, Profiles: []string{"selective", "never", "thrasher"}}
	if diff := cmp.Diff(want, got, cmpIgnoreWriters); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
}

func TestSynthGolden(t *testing.T) {
	profiles := filepath.Join(t.TempDir(), "profiles.json")
	if err := os.WriteFile(profiles, []byte(`[{"name":"shallow","ops_per_100":50},{"name":"selective","model":"big-model-1"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		err  string // first line of stderr for failures (the rest is usage)
	}{
		{name: "synth", args: []string{"-n", "6", "--seed", "2"}},
		{name: "synth-profiles", args: []string{"-n", "12", "--seed", "2", "--profiles", "selective,shallow,never,thrasher"}},
		{name: "synth-profile-file", args: []string{"-n", "8", "--seed", "2", "--formats", "openai-messages", "--profile-file", profiles}},
		{name: "bad profile", args: []string{"--profiles", "lazy"}, code: 2,
			err: `trajmine: --profiles: unknown profile "lazy" (want one of [selective shallow never thrasher])`},
		{name: "bad calls", args: []string{"--calls", "0"}, code: 2, err: "trajmine: --calls must be positive"},
		{name: "bad format", args: []string{"--formats", "jsonl"}, code: 2,
			err: `trajmine: --formats: unknown format "jsonl" (want claude-code, codex-cli or openai-messages)`},
		{name: "profiles without openai", args: []string{"--formats", "codex-cli", "--profiles", "never"}, code: 2,
			err: "trajmine: profiles apply to openai-messages sessions: add it to --formats"},
		{name: "both profile flags", args: []string{"--profiles", "never", "--profile-file", profiles}, code: 2,
			err: "trajmine: --profiles and --profile-file are mutually exclusive"},
		{name: "bad profile file", args: []string{"--profile-file", profiles + ".missing"}, code: 1,
			err: "trajmine: read profiles: open PROFILES.missing: no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "corpus")
			stdout, stderr, code := run(t, testDeps(t, nil), append(append([]string{"synth"}, tc.args...), dir)...)
			clean := func(s string) string {
				return strings.ReplaceAll(strings.ReplaceAll(s, dir, "DIR"), profiles, "PROFILES")
			}
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			if tc.code != 0 {
				if first, _, _ := strings.Cut(clean(stderr), "\n"); first != tc.err || stdout != "" {
					t.Errorf("stderr starts %q, want %q; stdout %q", first, tc.err, stdout)
				}
				return
			}
			if stderr != "" {
				t.Errorf("stderr: %s", stderr)
			}
			testutil.Golden(t, clean(stdout), filepath.Join("testdata", tc.name+".stdout"))
		})
	}
}
