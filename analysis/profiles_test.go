package analysis

import (
	"cmp"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/behavior"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// TestProfileVersion pins the profile behavior.Run gives every run of
// fixed ingest fixtures (DTOC message logs, Codex, Claude Code with its
// compactions, OpenHands), with mine's options, to behavior.ProfileVersion:
// stored profiles are read back only by code of the same fingerprint, so a
// change of any profile must bump the version (testutil.VersionGolden).
func TestProfileVersion(t *testing.T) {
	root := filepath.Join(testutil.RepoRoot(), "ingest", "testdata")
	sink := &ingest.MemSink{}
	var paths []string
	for _, d := range []string{"messages", "codex", "claude-code", "openhands"} {
		paths = append(paths, filepath.Join(root, d))
	}
	if _, err := ingest.Files(context.Background(), sink, paths, &ingest.Options{Warn: func(error) {}}); err != nil {
		t.Fatal(err)
	}
	classify, err := DefaultClassify()
	if err != nil {
		t.Fatal(err)
	}
	o := &behavior.Options{Classify: classify}
	events, usage, ops := map[string][]schema.Event{}, map[string][]schema.Usage{}, map[string][]schema.ContextOp{}
	for _, e := range sink.Events {
		events[e.RunID] = append(events[e.RunID], e)
	}
	for _, u := range sink.Usage {
		usage[u.RunID] = append(usage[u.RunID], u)
	}
	for _, op := range sink.ContextOps {
		ops[op.RunID] = append(ops[op.RunID], op)
	}
	runs := slices.Clone(sink.Runs)
	slices.SortFunc(runs, func(a, b schema.Run) int { return cmp.Compare(a.RunID, b.RunID) })
	var b strings.Builder
	var hides, compactions int
	for _, r := range runs {
		p := behavior.Run(r, events[r.RunID], usage[r.RunID], ops[r.RunID], o)
		hides += len(p.Manage.Hides)
		compactions += len(p.Compactions)
		line, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if len(runs) < 10 || hides < 5 || compactions < 1 {
		t.Fatalf("fixtures too thin to pin the profiles: %d runs, %d hides, %d compactions", len(runs), hides, compactions)
	}
	testutil.VersionGolden(t, filepath.Join("testdata", "profile-version.golden"), "behavior.ProfileVersion", behavior.ProfileVersion, b.String())
}

// TestStoredProfilesRead: mine reads the profiles DeriveProfiles stored,
// and only those stored for the run's current source under its own
// fingerprint. A stored profile changed by hand (its model family) shows
// in mine's behaviour groups; with another source or fingerprint it is
// not read, and the groups are the ones computed from the events.
func TestStoredProfilesRead(t *testing.T) {
	ctx := context.Background()
	st := mineTestStore(t, 24)
	env, err := NewEnv(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	all := func(*schema.Run) bool { return true }
	families := func() string {
		t.Helper()
		gs, err := mineBehaviour(ctx, st, env, all)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, g := range gs {
			keys = append(keys, g.Key)
		}
		return strings.Join(keys, ",")
	}
	computed := families()
	if _, err := DeriveUses(ctx, st); err != nil {
		t.Fatal(err)
	}
	n, err := DeriveProfiles(ctx, st)
	if err != nil || n != 24 {
		t.Fatalf("DeriveProfiles profiled %d runs (%v), want all 24", n, err)
	}
	if again, err := DeriveProfiles(ctx, st); err != nil || again != 0 {
		t.Errorf("a second DeriveProfiles profiled %d runs (%v), want 0", again, err)
	}
	var id, js string
	if err := st.DB().QueryRowContext(ctx, `SELECT run_id, profile FROM run_profiles ORDER BY run_id LIMIT 1`).Scan(&id, &js); err != nil {
		t.Fatal(err)
	}
	var p behavior.RunProfile
	if err := json.Unmarshal([]byte(js), &p); err != nil || p.RunID != id {
		t.Fatalf("stored profile of %s: %v (run %q)", id, err, p.RunID)
	}
	p.ModelFamily = "tampered"
	b, _ := json.Marshal(p)
	if _, err := st.DB().ExecContext(ctx, `UPDATE run_profiles SET profile = ? WHERE run_id = ?`, string(b), id); err != nil {
		t.Fatal(err)
	}
	if got := families(); !strings.Contains(got, "tampered") {
		t.Errorf("families %s: the stored profile was not read", got)
	}
	for _, c := range []struct{ what, set string }{
		{"another source", `source_sha256 = 'other'`},
		{"another fingerprint", `profiled_by = 'profile-v0'`},
	} {
		if _, err := st.DB().ExecContext(ctx, `UPDATE run_profiles SET `+c.set+` WHERE run_id = ?`, id); err != nil {
			t.Fatal(err)
		}
		if got := families(); got != computed {
			t.Errorf("%s: families %s, want %s (computed from the events)", c.what, got, computed)
		}
		// DeriveProfiles replaces the stale row
		if n, err := DeriveProfiles(ctx, st); err != nil || n != 1 {
			t.Errorf("%s: DeriveProfiles profiled %d runs (%v), want the 1 stale", c.what, n, err)
		}
		if got := families(); got != computed {
			t.Errorf("%s: after DeriveProfiles families %s, want %s", c.what, got, computed)
		}
		var same int
		if err := st.DB().QueryRowContext(ctx, `SELECT count(*) FROM run_profiles p JOIN runs r USING (run_id)
WHERE p.run_id = ? AND p.source_sha256 = r.source_sha256 AND p.profiled_by = ? AND p.profile <> ?`, id, ProfileFingerprint(), string(b)).Scan(&same); err != nil || same != 1 {
			t.Errorf("%s: the stale row was not replaced by a current one (%d, %v)", c.what, same, err)
		}
		if _, err := st.DB().ExecContext(ctx, `UPDATE run_profiles SET profile = ? WHERE run_id = ?`, string(b), id); err != nil {
			t.Fatal(err)
		}
	}
	var rows int
	if err := st.DB().QueryRowContext(ctx, `SELECT count(*) FROM run_profiles`).Scan(&rows); err != nil || rows != 24 {
		t.Errorf("%d run_profiles rows (%v), want one per run", rows, err)
	}
}
