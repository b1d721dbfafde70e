package analysis

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/actions"
	"github.com/trajmine/trajmine/behavior"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/mining"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/synth"
)

// mineTestStore imports a synth corpus of every format (OpenAI message logs
// carry no timestamps; Claude Code runs compact) with planted
// manage_context profiles into a database file.
func mineTestStore(t *testing.T, n int) *store.Store {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	var profiles []synth.Profile
	for _, name := range []string{"selective", "shallow", "never", "thrasher"} {
		p, err := synth.DefaultProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		profiles = append(profiles, p)
	}
	if _, err := synth.Write(filepath.Join(dir, "corpus"), &synth.Options{N: n, Seed: 5, Profiles: profiles}); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, store.Config{Path: filepath.Join(dir, "m.duckdb")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := ingest.Files(ctx, st, []string{filepath.Join(dir, "corpus")}, nil); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestMineBehaviourMatchesPass: the profiles mine computes from run shapes
// and a scan of the runs with context ops (mineBehaviour) are the shared
// pass's over every run's records, text included (what mine computed
// before, and trajmine report still does), byte for byte in JSON, for
// every run and with a model filter.
func TestMineBehaviourMatchesPass(t *testing.T) {
	ctx := context.Background()
	st := mineTestStore(t, 60)
	env, err := NewEnv(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	// first computed from the events (nothing stored), then read back from
	// the profiles DeriveProfiles stored
	for _, c := range []struct {
		name   string
		keep   func(*schema.Run) bool
		derive bool
	}{
		{"all", func(*schema.Run) bool { return true }, false},
		{"one family", func(r *schema.Run) bool { return r.ModelFamily == "synth-thrasher" || r.Harness == "codex" }, false},
		{"all stored", func(*schema.Run) bool { return true }, true},
		{"one family stored", func(r *schema.Run) bool { return r.ModelFamily == "synth-thrasher" || r.Harness == "codex" }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.derive {
				if _, err := DeriveUses(ctx, st); err != nil {
					t.Fatal(err)
				}
				if _, err := DeriveProfiles(ctx, st); err != nil {
					t.Fatal(err)
				}
				if missing, _, err := st.RunsWithoutProfiles(ctx, ProfileFingerprint()); err != nil || len(missing) > 0 {
					t.Fatalf("%d runs without a stored profile after DeriveProfiles (%v)", len(missing), err)
				}
			}
			ba := NewBehaviour(env, c.keep)
			if err := Pass(ctx, st, store.ScanOptions{}, env, Of(ba)); err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(ba.Groups())
			if err != nil {
				t.Fatal(err)
			}
			groups, err := mineBehaviour(ctx, st, env, c.keep)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(groups)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) || len(ba.profiles) < 5 {
				t.Errorf("%d profiles; groups differ from the pass's:\n got %.600s\nwant %.600s", len(ba.profiles), got, want)
			}
		})
	}
}

// TestRunBrief: for every run with no context ops and no manage_context
// call, behavior.RunBrief of its store.RunShape is behavior.Run of its
// records; the shapes come in Scan's order.
func TestRunBrief(t *testing.T) {
	ctx := context.Background()
	st := mineTestStore(t, 30)
	shapes, err := st.RunShapes(ctx, "manage_context")
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]store.RunShape{}
	var order []string
	for _, sh := range shapes {
		by[sh.Run.RunID] = sh
		order = append(order, sh.Run.RunID)
	}
	var scanned []string
	o := &behavior.Options{}
	briefs, hasTool := 0, 0
	err = st.Scan(ctx, store.ScanOptions{}, func(d *store.RunData) error {
		scanned = append(scanned, d.Run.RunID)
		sh := by[d.Run.RunID]
		if sh.Events != len(d.Events) || sh.Ops != len(d.Ops) {
			t.Errorf("%s: shape has %d events, %d ops; the scan %d, %d", d.Run.RunID, sh.Events, sh.Ops, len(d.Events), len(d.Ops))
		}
		if sh.Ops > 0 || sh.ManageCall {
			return nil
		}
		briefs++
		want := behavior.Run(d.Run, d.Events, d.Usage, d.Ops, o)
		got := behavior.RunBrief(sh.Run, behavior.Brief{LastCall: sh.LastTurn, LastOutputCall: sh.LastOutputTurn, HasTool: sh.EnvelopeKey || sh.Mentions}, o)
		if want.Manage.HasTool {
			hasTool++
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: RunBrief differs from Run (-run +brief):\n%s", d.Run.RunID, diff)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(scanned, order) {
		t.Errorf("shapes' order differs from the scan's:\n got %v\nwant %v", order, scanned)
	}
	if briefs < 10 || hasTool == 0 {
		t.Errorf("%d runs profiled briefly, %d with the tool: the corpus does not test the rule", briefs, hasTool)
	}
	// the shapes of some runs only (an import of a few runs): the same
	// shapes, in the same relative order, and no others
	var some []string
	for i, id := range order {
		if i%3 == 1 {
			some = append(some, id)
		}
	}
	part, err := st.RunShapes(ctx, "manage_context", some...)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sh := range part {
		got = append(got, sh.Run.RunID)
		if diff := cmp.Diff(by[sh.Run.RunID], sh); diff != "" {
			t.Errorf("%s: its shape read alone differs (-all +alone):\n%s", sh.Run.RunID, diff)
		}
	}
	if !slices.Equal(got, some) {
		t.Errorf("RunShapes of %v gave %v", some, got)
	}
}

// TestMineExportXES: the XES --export xes writes, read back with
// encoding/xml and its events ordered by time:timestamp as a process
// mining tool orders them, gives trajmine's DFG (every directly-follows
// pair, start and end edges included) and every case, untimed runs too,
// for each activity mode.
func TestMineExportXES(t *testing.T) {
	ctx := context.Background()
	st := mineTestStore(t, 30)
	for _, mode := range []mining.Mode{mining.ModeClass, mining.ModeTool, mining.ModeToolTarget} {
		t.Run(mode.String(), func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "log.xes")
			out, err := MineStore(ctx, st, &MineOptions{Mode: mode, Export: "xes:" + f, NoProfiles: true})
			if err != nil {
				t.Fatal(err)
			}
			doc, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var l struct {
				Traces []struct {
					Attrs  []xesTestAttr `xml:",any"`
					Events []struct {
						Attrs []xesTestAttr `xml:",any"`
					} `xml:"event"`
				} `xml:"trace"`
			}
			if err := xml.Unmarshal(doc, &l); err != nil {
				t.Fatal(err)
			}
			got := map[[2]string]int{}
			synthetic := 0
			for _, tr := range l.Traces {
				if xesTestGet(tr.Attrs, "time_source") == "synthetic" {
					synthetic++
				}
				type ev struct{ ts, name string }
				var evs []ev
				for _, e := range tr.Events {
					ts := xesTestGet(e.Attrs, "time:timestamp")
					if ts == "" {
						t.Fatalf("an event without time:timestamp")
					}
					evs = append(evs, ev{ts, xesTestGet(e.Attrs, "concept:name")})
				}
				slices.SortStableFunc(evs, func(a, b ev) int { return strings.Compare(a.ts, b.ts) })
				prev := "▶"
				for i, e := range evs {
					if i > 0 && evs[i-1].ts == e.ts {
						t.Fatalf("two events at %s: a tool's sort could swap them", e.ts)
					}
					got[[2]string{prev, e.name}]++
					prev = e.name
				}
				if len(evs) > 0 {
					got[[2]string{prev, "■"}]++
				}
			}
			want := map[[2]string]int{}
			for _, e := range out.DFG.Edges {
				want[[2]string{e.From, e.To}] = e.Count
			}
			if diff := cmp.Diff(want, got); diff != "" || len(want) < 5 {
				t.Errorf("DFG from the XES differs from mine's (-mine +xes), %d edges:\n%s", len(want), diff)
			}
			if len(l.Traces) != out.Cases || synthetic == 0 {
				t.Errorf("%d traces (%d with synthetic times), mine has %d cases", len(l.Traces), synthetic, out.Cases)
			}
		})
	}
}

type xesTestAttr struct {
	Key   string `xml:"key,attr"`
	Value string `xml:"value,attr"`
}

func xesTestGet(as []xesTestAttr, key string) string {
	for _, a := range as {
		if a.Key == key {
			return a.Value
		}
	}
	return ""
}

// TestMineStoredMatchesRecomputed: mining with the classes and system
// prompt flags ingest stored (events.action_class,
// runs.system_mentions_manage_context) and the uses DeriveUses stored
// (output_uses) gives the same result, byte for byte in JSON, as
// classifying every call again from its arguments, reading the system
// prompts' text and computing the uses from the runs' text, which is what
// mine does for runs an older version imported (classified_by and the
// flag NULL, uses of another version).
func TestMineStoredMatchesRecomputed(t *testing.T) {
	ctx := context.Background()
	st := mineTestStore(t, 60)
	modes := []mining.Mode{mining.ModeClass, mining.ModeToolTarget}
	mine := func() [][]byte {
		var out [][]byte
		for _, m := range modes {
			got, err := MineStore(ctx, st, &MineOptions{Mode: m, By: "model", Compare: []string{"dtoc", "no-dtoc"}})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
		return out
	}
	var n int
	if err := st.DB().QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE classified_by = ? AND system_mentions_manage_context IS NOT NULL`, actions.DefaultFingerprint()).Scan(&n); err != nil || n < 60 {
		t.Fatalf("%d runs imported with stored classes and flags (%v), want all", n, err)
	}
	derived, err := DeriveUses(ctx, st)
	if err != nil || derived < 5 {
		t.Fatalf("DeriveUses stored the uses of %d runs (%v), want every run that disables outputs", derived, err)
	}
	if again, err := DeriveUses(ctx, st); err != nil || again != 0 {
		t.Errorf("a second DeriveUses derived %d runs (%v), want 0", again, err)
	}
	var stale int
	if err := st.DB().QueryRowContext(ctx, `SELECT count(DISTINCT run_id) FROM context_ops WHERE op = 'disable'`).Scan(&stale); err != nil || stale != derived {
		t.Errorf("%d runs disable outputs (%v), %d derived", stale, err, derived)
	}
	stored := mine()
	imported := classesOf(t, st)
	if _, err := st.DB().ExecContext(ctx, `UPDATE runs SET classified_by = NULL, system_mentions_manage_context = NULL`); err != nil {
		t.Fatal(err)
	}
	// stored uses of an older version are not read back: the text is
	if _, err := st.DB().ExecContext(ctx, `UPDATE uses_runs SET uses_version = uses_version - 1`); err != nil {
		t.Fatal(err)
	}
	if stale, err := st.RunsNotClassified(ctx, actions.DefaultFingerprint()); err != nil || stale < 60 {
		t.Fatalf("RunsNotClassified = %d, %v after clearing classified_by", stale, err)
	}
	again := mine()
	for i := range modes {
		if string(stored[i]) != string(again[i]) {
			t.Errorf("%v: stored classes and flags give\n%.800s\nrecomputed\n%.800s", modes[i], stored[i], again[i])
		}
	}
	// DeriveClasses (trajmine ingest on such a store) stores them again:
	// the same classes and flags as the import's, and the same result
	wantClasses := imported
	if _, err := st.DB().ExecContext(ctx, `UPDATE events SET action_class = 'stale' WHERE kind = 'tool_call'`); err != nil {
		t.Fatal(err)
	}
	n, err = DeriveClasses(ctx, st)
	if err != nil || n < 60 {
		t.Fatalf("DeriveClasses classified %d runs (%v), want every run", n, err)
	}
	if got := classesOf(t, st); got != wantClasses {
		t.Errorf("DeriveClasses stored other classes or flags than the import:\n got %.600s\nwant %.600s", got, wantClasses)
	}
	if again, err := DeriveClasses(ctx, st); err != nil || again != 0 {
		t.Errorf("a second DeriveClasses classified %d runs (%v), want 0", again, err)
	}
	if stale, err := st.RunsNotClassified(ctx, actions.DefaultFingerprint()); err != nil || stale != 0 {
		t.Errorf("RunsNotClassified = %d, %v after DeriveClasses", stale, err)
	}
	// the flags alone missing (every run classified): they are set again
	if _, err := st.DB().ExecContext(ctx, `UPDATE runs SET system_mentions_manage_context = NULL`); err != nil {
		t.Fatal(err)
	}
	if n, err := DeriveClasses(ctx, st); err != nil || n != 0 {
		t.Errorf("DeriveClasses with only the flags missing classified %d runs (%v), want 0", n, err)
	}
	if got := classesOf(t, st); got != wantClasses {
		t.Errorf("DeriveClasses did not set the flags alone again:\n got %.600s\nwant %.600s", got, wantClasses)
	}
	derivedOut := mine()
	for i := range modes {
		if string(stored[i]) != string(derivedOut[i]) {
			t.Errorf("%v: after DeriveClasses mine gives\n%.800s\nwant\n%.800s", modes[i], derivedOut[i], stored[i])
		}
	}
	if !strings.Contains(string(stored[0]), `"activity":"class"`) || !strings.Contains(string(stored[0]), `"tool_runs":`) {
		t.Errorf("class-mode result lacks what it is about: %.300s", stored[0])
	}
}

// classesOf is every tool call's stored action class and every run's
// system-prompt flag, as one string.
func classesOf(t *testing.T, st *store.Store) string {
	t.Helper()
	ctx := context.Background()
	var s, f string
	if err := st.DB().QueryRowContext(ctx, `SELECT coalesce(string_agg(run_id || ':' || seq || ':' || coalesce(action_class, '-'), ',' ORDER BY run_id, seq), '')
FROM events WHERE kind = 'tool_call'`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	if err := st.DB().QueryRowContext(ctx, `SELECT string_agg(run_id || ':' || coalesce(system_mentions_manage_context::VARCHAR, 'null'), ',' ORDER BY run_id) FROM runs`).Scan(&f); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f, ":true") || !strings.Contains(f, ":false") {
		t.Fatalf("the flags do not test the rule: %.300s", f)
	}
	return s + "|" + f
}
