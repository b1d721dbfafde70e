package synth_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/trajmine/trajmine/synth"
)

func allProfiles(t *testing.T) []synth.Profile {
	t.Helper()
	var ps []synth.Profile
	for _, name := range synth.ProfileNames {
		p, err := synth.DefaultProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

// Profiles change only the OpenAI-messages sessions: Claude Code and Codex
// files are byte-identical with and without them, and without profiles no
// ground truth is written.
func TestProfilesLeaveOtherFormatsAlone(t *testing.T) {
	plain, planted := t.TempDir(), t.TempDir()
	mp, err := synth.Write(plain, &synth.Options{N: 9, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	mq, err := synth.Write(planted, &synth.Options{N: 9, Seed: 11, Profiles: allProfiles(t)})
	if err != nil {
		t.Fatal(err)
	}
	if mp.Truth != nil {
		t.Errorf("Truth = %+v without profiles", mp.Truth)
	}
	if _, err := os.Stat(filepath.Join(plain, filepath.FromSlash(synth.GroundTruthFile))); err == nil {
		t.Errorf("%s written without profiles", synth.GroundTruthFile)
	}
	a, b := readTree(t, plain), readTree(t, planted)
	for name, data := range a {
		same := bytes.Equal(data, b[name])
		if strings.HasPrefix(name, "openai/") == same {
			t.Errorf("%s: identical = %v with profiles", name, same)
		}
	}
	for i, f := range mq.Files {
		if f.Format != synth.FormatOpenAIMessages {
			if !reflect.DeepEqual(f, mp.Files[i]) {
				t.Errorf("session %d (%s) changed with profiles", i, f.Format)
			}
			continue
		}
		if f.Profile == "" || !f.DTOC {
			t.Errorf("session %d: profile %q, DTOC %v", i, f.Profile, f.DTOC)
		}
	}
}

func TestProfilesDeterministic(t *testing.T) {
	opts := &synth.Options{N: 8, Seed: 3, Formats: []string{synth.FormatOpenAIMessages}, Profiles: allProfiles(t)}
	a, b := t.TempDir(), t.TempDir()
	ma, err := synth.Write(a, opts)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := synth.Write(b, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ma, mb) || !reflect.DeepEqual(readTree(t, a), readTree(t, b)) {
		t.Errorf("profiled corpora differ for the same options")
	}
}

// profiledCorpus is one corpus of every profile, 10 sessions each.
func profiledCorpus(t *testing.T) (string, *synth.Manifest) {
	t.Helper()
	dir := t.TempDir()
	m, err := synth.Write(dir, &synth.Options{N: 40, Seed: 9, Formats: []string{synth.FormatOpenAIMessages}, Profiles: allProfiles(t)})
	if err != nil {
		t.Fatal(err)
	}
	return dir, m
}

func TestGroundTruthFile(t *testing.T) {
	dir, m := profiledCorpus(t)
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(synth.GroundTruthFile)))
	if err != nil {
		t.Fatal(err)
	}
	var g synth.GroundTruth
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&g, m.Truth) {
		t.Errorf("ground truth file differs from Manifest.Truth")
	}
	if g.Seed != 9 || g.N != 40 || len(g.Families) != 4 || len(g.Sessions) != 40 {
		t.Fatalf("truth header %d %d, %d families, %d sessions", g.Seed, g.N, len(g.Families), len(g.Sessions))
	}
	for i, s := range g.Sessions {
		want := synth.ProfileNames[i%4]
		if s.Profile != want || s.Model != "synth-"+want || s.RunID != m.Files[i].RunID || s.Calls != m.Files[i].Turns {
			t.Errorf("session %d: %+v, want profile %s and the manifest's run", i, s, want)
		}
	}
	for _, f := range g.Families {
		if f.Sessions != 10 || f.Model != f.Profile.Model {
			t.Errorf("family %s: %d sessions", f.Model, f.Sessions)
		}
	}
}

// TestProfiledRuns replays every profiled run: the prompt accounting is
// exact (checkOpenAI), and every manage_context call keeps its profile's
// bounds: tokens freed per call, keys per call, age of what it disables,
// and re-enables only after ReEnableAfterMin … ReEnableAfterMax calls.
func TestProfiledRuns(t *testing.T) {
	dir, m := profiledCorpus(t)
	runs := readLines(t, filepath.Join(dir, "openai", "runs.jsonl"))
	profiles := map[string]synth.Profile{}
	for _, f := range m.Truth.Families {
		profiles[f.Model] = f.Profile
	}
	for i, run := range runs {
		truth := m.Truth.Sessions[i]
		p := profiles[str(run["model"])]
		t.Run(truth.Profile+"/"+truth.RunID, func(t *testing.T) {
			if str(run["run_id"]) != truth.RunID || p.Name != truth.Profile {
				t.Fatalf("run %v model %v, truth %+v", run["run_id"], run["model"], truth)
			}
			if !checkOpenAI(t, run, true) {
				t.Fatalf("not a DTOC run")
			}
			got := replayManage(t, run, p)
			want := [3]int{truth.ManageCalls, truth.Disables, truth.Enables}
			if got != want {
				t.Errorf("file has (manage calls, disables, enables) %v, truth %v", got, want)
			}
			if p.Name == synth.ProfileNever && got[0] != 0 {
				t.Errorf("never profile called manage_context %d times", got[0])
			}
		})
	}
	for _, f := range m.Truth.Families {
		if f.Profile.OpsPer100 > 0 && f.ManageCalls == 0 {
			t.Errorf("%s: no manage_context calls in %d calls", f.Model, f.Calls)
		}
	}
}

// replayManage checks a profiled run's manage_context calls against p and
// returns the number of calls, disables and enables.
func replayManage(t *testing.T, run map[string]any, p synth.Profile) [3]int {
	t.Helper()
	type out struct{ arrived, tokens int }
	outputs := map[string]out{}
	disabledAt := map[string]int{}
	calls := 0 // assistant messages so far = index of the next call
	var counts [3]int
	for _, mv := range list(run["messages"]) {
		msg := obj(mv)
		switch msg["role"] {
		case "tool":
			var env struct {
				Key    string `json:"tool_key"`
				Result string `json:"tool_result"`
			}
			if err := json.Unmarshal([]byte(str(msg["content"])), &env); err != nil {
				t.Fatal(err)
			}
			outputs[env.Key] = out{arrived: calls, tokens: (utf8.RuneCountInString(env.Result) + 3) / 4}
		case "assistant":
			call := calls
			calls++
			for _, tc := range list(msg["tool_calls"]) {
				fn := obj(obj(tc)["function"])
				if fn["name"] != "manage_context" {
					continue
				}
				counts[0]++
				var args struct{ Enable, Disable []string }
				if err := json.Unmarshal([]byte(str(fn["arguments"])), &args); err != nil {
					t.Fatal(err)
				}
				if len(args.Disable) > 0 && len(args.Enable) > 0 {
					t.Errorf("call %d both disables and enables", call)
				}
				freed := 0
				for _, k := range args.Disable {
					o := outputs[k]
					age := call - o.arrived
					if age < p.MinAge || (p.MaxAge > 0 && age > p.MaxAge) {
						t.Errorf("call %d disables %s of age %d, want [%d, %d]", call, k, age, p.MinAge, p.MaxAge)
					}
					freed += o.tokens - p.PlaceholderTokens
					disabledAt[k] = call
				}
				if n := len(args.Disable); n > 0 && (n < p.MinKeys || n > p.MaxKeys || freed < p.MinFreed || freed > p.MaxFreed) {
					t.Errorf("call %d disables %d keys freeing %d, want %d–%d keys freeing %d–%d", call, n, freed, p.MinKeys, p.MaxKeys, p.MinFreed, p.MaxFreed)
				}
				for _, k := range args.Enable {
					after := call - disabledAt[k]
					if after < p.ReEnableAfterMin || after > p.ReEnableAfterMax {
						t.Errorf("call %d enables %s %d calls after disabling it, want %d–%d", call, k, after, p.ReEnableAfterMin, p.ReEnableAfterMax)
					}
				}
				counts[1] += len(args.Disable)
				counts[2] += len(args.Enable)
			}
		}
	}
	return counts
}

func TestParseProfiles(t *testing.T) {
	shallow, _ := synth.DefaultProfile(synth.ProfileShallow)
	custom := shallow
	custom.OpsPer100, custom.Model = 50, "gpt-5.5"
	never, _ := synth.DefaultProfile(synth.ProfileNever)
	for _, tc := range []struct {
		name, in string
		want     []synth.Profile
		wantErr  string
	}{
		{name: "defaults", in: `[{"name":"shallow"},{"name":"never"}]`, want: []synth.Profile{shallow, never}},
		{name: "override", in: `[{"name":"shallow","ops_per_100":50,"model":"gpt-5.5"}]`, want: []synth.Profile{custom}},
		{name: "not JSON", in: `{`, wantErr: "parse profiles"},
		{name: "unknown name", in: `[{"name":"lazy"}]`, wantErr: `unknown profile "lazy"`},
		{name: "bad rate", in: `[{"name":"shallow","ops_per_100":120}]`, wantErr: "ops_per_100 must be in [0, 100]"},
		{name: "bad freed", in: `[{"name":"selective","min_freed":500,"max_freed":100}]`, wantErr: "min_freed <= max_freed"},
		{name: "bad keys", in: `[{"name":"selective","min_keys":0}]`, wantErr: "min_keys <= max_keys"},
		{name: "bad age", in: `[{"name":"shallow","min_age":5,"max_age":3}]`, wantErr: "min_age <= max_age"},
		{name: "bad order", in: `[{"name":"shallow","order":"oldest"}]`, wantErr: `unknown order "oldest"`},
		{name: "bad reenable", in: `[{"name":"thrasher","reenable":2}]`, wantErr: "reenable must be in [0, 1]"},
		{name: "bad delay", in: `[{"name":"thrasher","reenable_after_min":0}]`, wantErr: "reenable_after_min <= reenable_after_max"},
		{name: "same model", in: `[{"name":"shallow"},{"name":"thrasher","model":"synth-shallow"}]`, wantErr: `two profiles use model "synth-shallow"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := synth.ParseProfiles([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestWriteRejectsBadProfiles(t *testing.T) {
	p, _ := synth.DefaultProfile(synth.ProfileSelective)
	p.Order = ""
	if _, err := synth.Write(t.TempDir(), &synth.Options{N: 1, Profiles: []synth.Profile{p}}); err == nil || !strings.Contains(err.Error(), "unknown order") {
		t.Errorf("err = %v", err)
	}
	if _, err := synth.DefaultProfile("lazy"); err == nil {
		t.Errorf("DefaultProfile(lazy) succeeded")
	}
}
