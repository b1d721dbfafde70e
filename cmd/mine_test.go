package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/testutil"
)

// TestMineGolden mines a planted synth corpus (one model family per
// manage_context profile) and the DTOC fixtures.
func TestMineGolden(t *testing.T) {
	d := testDeps(t, nil)
	dir := t.TempDir()
	d.DB = filepath.Join(dir, "mine.duckdb")
	corpus := filepath.Join(dir, "corpus")
	if _, stderr, code := run(t, d, "synth", "-n", "24", "--seed", "3", "--formats", "openai-messages", "--profiles", "selective,shallow,never,thrasher", corpus); code != 0 {
		t.Fatalf("synth: %s", stderr)
	}
	if _, stderr, code := run(t, d, "ingest", "--workers", "1", corpus); code != 0 {
		t.Fatalf("ingest: %s", stderr)
	}
	for _, s := range []struct {
		name string
		args []string
	}{
		{"mine", []string{"mine", "--top", "5"}},
		{"mine-compare-tool", []string{"mine", "--activity", "tool", "--compare", "dtoc,no-dtoc", "--top", "3"}},
	} {
		t.Run(s.name, func(t *testing.T) {
			stdout, stderr, code := run(t, d, s.args...)
			if code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			testutil.Golden(t, stdout, filepath.Join("testdata", s.name+".stdout"))
		})
	}
	t.Run("labels", func(t *testing.T) {
		stdout, _, _ := run(t, d, "mine", "--json")
		var out analysis.Mined
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, g := range out.Behaviour {
			got[g.Key] = string(g.Class.Label)
		}
		for _, p := range []string{"selective", "shallow", "never", "thrasher"} {
			if got["synth-"+p] != p {
				t.Errorf("family synth-%s labelled %q", p, got["synth-"+p])
			}
		}
	})
	// --no-profiles mines through store.EventStream: the same log, so the
	// same output, without the behaviour profiles
	t.Run("no-profiles", func(t *testing.T) {
		for _, args := range [][]string{
			{"--activity", "class"},
			{"--activity", "tool-target", "--by", "model"},
			{"--activity", "tool", "--compare", "dtoc,no-dtoc", "--model", "synth-selective,synth-thrasher"},
		} {
			full, stderr, code := run(t, d, append([]string{"mine", "--json"}, args...)...)
			if code != 0 {
				t.Fatalf("%v: %s", args, stderr)
			}
			fast, stderr, code := run(t, d, append([]string{"mine", "--json", "--no-profiles"}, args...)...)
			if code != 0 {
				t.Fatalf("%v --no-profiles: %s", args, stderr)
			}
			var a, b analysis.Mined
			if err := json.Unmarshal([]byte(full), &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(fast), &b); err != nil {
				t.Fatal(err)
			}
			if len(a.Behaviour) == 0 || b.Behaviour != nil {
				t.Errorf("%v: %d behaviour groups, %d with --no-profiles (want some, none)", args, len(a.Behaviour), len(b.Behaviour))
			}
			a.Behaviour = nil
			if diff := cmp.Diff(a, b, cmpopts.EquateEmpty()); diff != "" || a.Events == 0 {
				t.Errorf("%v: --no-profiles differs (-pass +eventlog), %d events:\n%s", args, a.Events, diff)
			}
		}
		stdout, _, _ := run(t, d, "mine", "--no-profiles", "--top", "1")
		if !strings.Contains(stdout, "not computed (--no-profiles)") {
			t.Errorf("text output does not say the profiles were skipped:\n%s", stdout)
		}
	})
	// --from and --to: the runs started in [from, to), through both paths
	t.Run("time", func(t *testing.T) {
		// all three formats: OpenAI message logs carry no timestamps
		d := testDeps(t, nil)
		d.DB = filepath.Join(t.TempDir(), "time.duckdb")
		corpus := filepath.Join(t.TempDir(), "corpus")
		if _, stderr, code := run(t, d, "synth", "-n", "18", "--seed", "5", corpus); code != 0 {
			t.Fatalf("synth: %s", stderr)
		}
		if _, stderr, code := run(t, d, "ingest", "--workers", "1", corpus); code != 0 {
			t.Fatalf("ingest: %s", stderr)
		}
		st, err := d.open(context.Background(), true)
		if err != nil {
			t.Fatal(err)
		}
		runs, err := st.Runs(context.Background(), store.RunFilter{})
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		var starts []time.Time
		for _, r := range runs {
			if r.StartedAt != nil {
				starts = append(starts, *r.StartedAt)
			}
		}
		slices.SortFunc(starts, time.Time.Compare)
		if len(starts) < 4 {
			t.Fatalf("%d runs with a start", len(starts))
		}
		from, to := starts[len(starts)/4], starts[3*len(starts)/4]
		want := 0
		for _, s := range starts {
			if !s.Before(from) && s.Before(to) {
				want++
			}
		}
		for _, extra := range [][]string{nil, {"--no-profiles"}} {
			args := append([]string{"mine", "--json", "--from", from.Format(time.RFC3339Nano), "--to", to.Format(time.RFC3339Nano)}, extra...)
			stdout, stderr, code := run(t, d, args...)
			if code != 0 {
				t.Fatalf("%v: %s", args, stderr)
			}
			var out analysis.Mined
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatal(err)
			}
			if out.Cases != want || want == 0 || want == len(starts) {
				t.Errorf("%v: %d cases, want %d (of %d runs)", extra, out.Cases, want, len(runs))
			}
		}
		for _, bad := range [][]string{{"--from", "yesterday"}, {"--from", "2026-02-01", "--to", "2026-01-01"}} {
			if _, _, code := run(t, d, append([]string{"mine"}, bad...)...); code != 2 {
				t.Errorf("%v: exit %d, want 2", bad, code)
			}
		}
	})
	t.Run("exports", func(t *testing.T) {
		for _, kind := range []string{"xes", "events-xes", "ocel", "dot"} {
			f := filepath.Join(dir, "log."+kind)
			if _, stderr, code := run(t, d, "mine", "--export", kind+":"+f); code != 0 {
				t.Fatalf("export %s: %s", kind, stderr)
			}
			b, err := os.ReadFile(f)
			if err != nil || len(b) == 0 {
				t.Fatalf("export %s: %v, %d bytes", kind, err, len(b))
			}
			want := map[string]string{"xes": `<string key="time_source"`, "events-xes": `<string key="kind"`, "ocel": `"objectTypes"`, "dot": "digraph dfg"}[kind]
			if !strings.Contains(string(b[:min(len(b), 4096)]), want) {
				t.Errorf("export %s does not start like one: %q", kind, b[:min(len(b), 200)])
			}
		}
	})
	for _, bad := range [][]string{{"mine", "--activity", "x"}, {"mine", "--compare", "resolved"}, {"mine", "--compare", "a,b"}, {"mine", "--export", "pdf:x"}} {
		if _, _, code := run(t, d, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}
