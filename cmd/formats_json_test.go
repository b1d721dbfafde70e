package cmd

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// TestFormatsJSONAgentFixtures checks formats --json: each format's agent
// fixtures by folder (an empty list, not null, when it has none).
func TestFormatsJSONAgentFixtures(t *testing.T) {
	var out bytes.Buffer
	if err := formatsRun(&FormatsOptions{JSON: true, Out: &out}); err != nil {
		t.Fatal(err)
	}
	type row struct {
		Name          string             `json:"name"`
		AgentFixtures *[]json.RawMessage `json:"agent_fixtures"`
	}
	var rows []row
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		format  string
		folders []string
	}{
		{"cline-task-folder", []string{"roo-code", "kilo-code"}},
		{"goose-jsonl", []string{"goose-jsonl"}},
		{"codex-cli", []string{}},
	}
	for _, tc := range tests {
		i := slices.IndexFunc(rows, func(r row) bool { return r.Name == tc.format })
		if i < 0 || rows[i].AgentFixtures == nil {
			t.Errorf("%s: no agent_fixtures list", tc.format)
			continue
		}
		got := []string{}
		for _, raw := range *rows[i].AgentFixtures {
			var f struct{ Folder, Agent, Source string }
			if err := json.Unmarshal(raw, &f); err != nil || f.Agent == "" || f.Source == "" {
				t.Errorf("%s: fixture %s: agent or source missing (%v)", tc.format, raw, err)
			}
			got = append(got, f.Folder)
		}
		if !slices.Equal(got, tc.folders) {
			t.Errorf("%s: agent fixtures %v, want %v", tc.format, got, tc.folders)
		}
	}
}
