package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/trajmine/trajmine/ingest"
)

// TestLakeOutcomesAcrossShards: a run and its outcome file imported by two
// ingest shards meet in the lake's readers, which apply the outcome rule
// over the whole lake; two flat reports with the same bytes in two
// instance folders (path-keyed) are both kept, though two shards hold
// them.
func TestLakeOutcomesAcrossShards(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	report := `{"patch_is_None": false, "patch_exists": true, "patch_successfully_applied": true, "resolved": false}`
	files := map[string]string{
		"trajs/x__x-1/x__x-1.traj.json": `{"instance_id": "x__x-1", "info": {"exit_status": "Submitted"}, "messages": [{"role": "system", "content": "hi"}]}`,
		"trajs/y__y-2/y__y-2.traj.json": `{"instance_id": "y__y-2", "info": {"exit_status": "Submitted"}, "messages": [{"role": "system", "content": "hi"}]}`,
		"logs/x__x-1/report.json":       report,
		"logs/y__y-2/report.json":       report,
	}
	for p, b := range files {
		p = filepath.Join(src, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "lake")
	for shard, paths := range [][]string{
		{filepath.Join(src, "trajs")},
		{filepath.Join(src, "logs", "x__x-1")},
		{filepath.Join(src, "logs", "y__y-2")},
	} {
		st, err := OpenLake(ctx, LakeConfig{Dir: dir, Write: LakeIngest, Shard: shard, Shards: 3})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := ingest.Files(ctx, st, paths, &ingest.Options{})
		if err != nil || sum.Files == 0 {
			t.Fatalf("shard %d: %+v, %v", shard, sum, err)
		}
		if _, err := st.CommitLake(ctx); err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
	st, err := OpenLake(ctx, LakeConfig{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got := queryString(t, st.DB(), "SELECT string_agg(run_id || '=' || coalesce(resolved::VARCHAR, 'NULL'), ',' ORDER BY run_id) FROM runs")
	if want := "x__x-1=false,y__y-2=false"; got != want {
		t.Errorf("runs %q, want %q", got, want)
	}
	if n := queryString(t, st.DB(), "SELECT count(*)::VARCHAR FROM outcomes WHERE n_runs = 1"); n != "2" {
		t.Errorf("%s outcome rows matched, want 2", n)
	}
	probs, err := st.Check(ctx)
	if err != nil || len(probs) > 0 {
		t.Errorf("check: %v %v", probs, err)
	}
}
