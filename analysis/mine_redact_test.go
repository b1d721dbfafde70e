package analysis

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/eventlog"
	"github.com/trajmine/trajmine/mining"
	"github.com/trajmine/trajmine/redact"
)

// a fake GitHub token (redact/testdata/README.md)
const minePAT = "ghp_13Fa61ESYhD1NfFPb9jTo6z5xcIcQPzMuEGQ"

// TestRedactDFG: the DOT export's graph has its activity names redacted,
// the mined graph is left as it was, and a nil Redactor changes nothing.
func TestRedactDFG(t *testing.T) {
	act := "fetch " + minePAT
	d := &mining.DFG{Cases: 1, Events: 1, Nodes: []mining.Node{{Name: act, Count: 1}},
		Edges: []mining.Edge{{From: "▶", To: act, Count: 1}, {From: act, To: "■", Count: 1}}}
	red, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	got := redactDFG(d, red)
	const r = "fetch [REDACTED:github-pat]"
	want := &mining.DFG{Cases: 1, Events: 1, Nodes: []mining.Node{{Name: r, Count: 1}},
		Edges: []mining.Edge{{From: "▶", To: r, Count: 1}, {From: r, To: "■", Count: 1}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("redacted (-want +got):\n%s", diff)
	}
	if d.Nodes[0].Name != act || d.Edges[0].To != act || d.Edges[1].From != act {
		t.Errorf("the mined graph changed: %+v", d)
	}
	if redactDFG(d, nil) != d {
		t.Error("a nil Redactor copies the graph")
	}
}

// TestMinedTracesRedacted: the mined log's run ids and activity names are
// redacted, the families, times and tokens kept; nil keeps them all.
func TestMinedTracesRedacted(t *testing.T) {
	log := mining.NewLog([]string{"read", "fetch " + minePAT})
	log.Cases[0].ID = "run-" + minePAT
	red, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	collect := func(red *redact.Redactor) (ids, acts []string) {
		err := minedTraces(log, red)(func(tr *eventlog.MinedTrace) error {
			ids = append(ids, tr.ID)
			for _, e := range tr.Events {
				acts = append(acts, e.Activity)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return ids, acts
	}
	ids, acts := collect(red)
	if diff := cmp.Diff([]string{"run-[REDACTED:github-pat]"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"read", "fetch [REDACTED:github-pat]"}, acts); diff != "" {
		t.Errorf("activities (-want +got):\n%s", diff)
	}
	ids, acts = collect(nil)
	if diff := cmp.Diff([]string{"run-" + minePAT}, ids); diff != "" {
		t.Errorf("nil: ids (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"read", "fetch " + minePAT}, acts); diff != "" {
		t.Errorf("nil: activities (-want +got):\n%s", diff)
	}
}
