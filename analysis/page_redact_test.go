package analysis

import (
	"strings"
	"testing"

	"github.com/trajmine/trajmine/dashboards"
	"github.com/trajmine/trajmine/redact"
)

// TestRedactRunList: the run list's ids and models are redacted as the
// sample's are (a run id is a file name, which can hold a key), while
// StoreID keeps the store's id, by which conversationOrder asks for the
// run's conversation; a sampled run matches its redacted list entry.
func TestRedactRunList(t *testing.T) {
	red, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	const key = "AKIAX66S2O4A2QPOASTV" // an AWS access key id gitleaks knows
	secretID, plainID := "release-"+key, "session-1"
	d := &dashboards.Data{
		Runs: []dashboards.RunRecord{
			{RunID: plainID, StoreID: plainID, Model: "gpt-4o"},
			{RunID: secretID, StoreID: secretID, Model: "model-" + key},
		},
		Sample: []dashboards.RunDetail{{RunID: secretID}},
	}
	redactPage(d, red)
	for i, r := range d.Runs {
		if strings.Contains(r.RunID, key) || strings.Contains(r.Model, key) {
			t.Errorf("Runs[%d] = %q, %q: the key is in the page", i, r.RunID, r.Model)
		}
	}
	if d.Runs[0].RunID != plainID {
		t.Errorf("Runs[0].RunID = %q, want %q unchanged", d.Runs[0].RunID, plainID)
	}
	if d.Runs[1].StoreID != secretID {
		t.Errorf("Runs[1].StoreID = %q, want the store's id %q", d.Runs[1].StoreID, secretID)
	}
	// the sampled run first (its redacted id matches the list's), then the
	// list: each by the store's id, once
	got := conversationOrder(d)
	want := []string{secretID, plainID}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("conversationOrder = %q, want %q", got, want)
	}
}
