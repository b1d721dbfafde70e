package store_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/schema"
)

// TestRunTags: a tag holds for the runs of its file or under its folder
// (given as the user typed it: trailing slashes and ./ cleaned), the
// nearer path's value wins, tagging again replaces, and a store never
// tagged has no tags.
func TestRunTags(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	if got, err := st.RunTags(ctx); err != nil || got != nil {
		t.Fatalf("untagged store: %v, %v", got, err)
	}
	importORuns(t, st, "exp/on/a.traj.json", "", oRun{id: "a"})
	importORuns(t, st, "exp/on/sub/b.traj.json", "", oRun{id: "b"})
	importORuns(t, st, "exp/off/c.traj.json", "", oRun{id: "c"})
	importORuns(t, st, "exp/online/d.traj.json", "", oRun{id: "d"}) // "exp/on" is not its folder
	for _, step := range []struct {
		paths []string
		tags  []schema.Tag
	}{
		{[]string{"./exp/on/"}, []schema.Tag{{Key: "dtoc", Value: "on"}, {Key: "seed", Value: "1"}}},
		{[]string{"exp/off"}, []schema.Tag{{Key: "dtoc", Value: "off"}}},
		{[]string{"exp/on/sub"}, []schema.Tag{{Key: "seed", Value: "2"}}},       // nearer than exp/on for b
		{[]string{"exp/off"}, []schema.Tag{{Key: "dtoc", Value: "none"}}},       // replaces off
		{[]string{"exp/off/c.traj.json"}, []schema.Tag{{Key: "x", Value: "y"}}}, // a file
	} {
		if err := st.SetTags(ctx, step.paths, step.tags); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.RunTags(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{
		"a": {"dtoc": "on", "seed": "1"},
		"b": {"dtoc": "on", "seed": "2"},
		"c": {"dtoc": "none", "x": "y"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("run tags (-want +got):\n%s", diff)
	}
	rows, err := st.Tags(ctx)
	if err != nil || len(rows) != 5 || rows[0] != (schema.Tag{Path: "exp/off", Key: "dtoc", Value: "none"}) {
		t.Errorf("tag rows %+v, %v", rows, err)
	}
}
