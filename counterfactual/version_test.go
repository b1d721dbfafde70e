package counterfactual_test

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// TestUsesVersion pins every use Uses finds in the runs of the message and
// Codex fixtures of package ingest (fixed files, DTOC runs among them) to
// counterfactual.UsesVersion: stored uses are read back only by code of
// the same version, so a change of any answer must bump it.
func TestUsesVersion(t *testing.T) {
	root := filepath.Join(testutil.RepoRoot(), "ingest", "testdata")
	sink := &ingest.MemSink{}
	if _, err := ingest.Files(context.Background(), sink, []string{filepath.Join(root, "messages"), filepath.Join(root, "codex")}, &ingest.Options{Warn: func(error) {}}); err != nil {
		t.Fatal(err)
	}
	byRun := map[string][]schema.Event{}
	for _, e := range sink.Events {
		byRun[e.RunID] = append(byRun[e.RunID], e)
	}
	ids := make([]string, 0, len(byRun))
	for id := range byRun {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var b strings.Builder
	n := 0
	for _, id := range ids {
		events := byRun[id]
		slices.SortStableFunc(events, func(x, y schema.Event) int { return cmp.Compare(x.Seq, y.Seq) })
		for _, u := range counterfactual.Uses(events) {
			fmt.Fprintf(&b, "%s\t%d\t%d\t%d\t%s\t%v\n", id, events[u.Output].Seq, events[u.Event].Seq, u.Call, u.Kind, u.Evidence)
			n++
		}
	}
	if n < 10 {
		t.Fatalf("only %d uses in the fixtures", n)
	}
	testutil.VersionGolden(t, filepath.Join("testdata", "uses-version.golden"), "counterfactual.UsesVersion", counterfactual.UsesVersion, b.String())
}
