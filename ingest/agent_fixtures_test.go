package ingest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/trajmine/trajmine/ingest"
)

// TestAgentFixturesListed checks the table trajmine formats prints the
// agent fixtures from: every folder it names exists with its SOURCE.md,
// every folder of testdata/agents is named, every format named is an
// importer, and a folder whose files a format must claim
// (agentFolderFormats) is listed under that format — so that no format
// claims a fixture it is not tested on, nor is tested on one it does not
// claim.
func TestAgentFixturesListed(t *testing.T) {
	known := map[string]bool{"": true}
	for _, im := range ingest.Importers() {
		known[im.Name()] = true
	}
	listed := map[string]map[string]bool{} // folder → formats
	for _, f := range ingest.AllAgentFixtures() {
		if !known[f.Format] {
			t.Errorf("agent fixture %s: format %q is no importer", f.Folder, f.Format)
		}
		if f.Agent == "" || (f.Format != "" && f.Source == "") {
			t.Errorf("agent fixture %s (%s): agent or source not stated", f.Folder, f.Format)
		}
		if _, err := os.Stat(filepath.Join("testdata", "agents", f.Folder, "SOURCE.md")); err != nil {
			t.Errorf("agent fixture %s: %v", f.Folder, err)
		}
		if listed[f.Folder] == nil {
			listed[f.Folder] = map[string]bool{}
		}
		listed[f.Folder][f.Format] = true
	}
	dirs, err := os.ReadDir(filepath.Join("testdata", "agents"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		if listed[d.Name()] == nil {
			t.Errorf("testdata/agents/%s: not in ingest's agentFixtures", d.Name())
		}
		if want := agentFolderFormats[d.Name()]; want != "" && !listed[d.Name()][want] {
			t.Errorf("testdata/agents/%s: its files are %s's (agentFolderFormats), but agentFixtures does not list it under %s", d.Name(), want, want)
		}
	}
}

// TestAgentFixturesOf checks the look-up trajmine formats prints: the
// folders of one format, in the table's order, and those of none.
func TestAgentFixturesOf(t *testing.T) {
	tests := []struct {
		format string
		want   []string
	}{
		{"cline-task-folder", []string{"roo-code", "kilo-code"}},
		{"kiro-cli-db", []string{"kiro"}},
		{"kiro-cli-sqlite-payload", []string{"kiro"}},
		{"codex-cli", nil},
		{"cursor-ide-db", []string{"cursor-ide"}},
		{"", []string{"kiro", "cline"}},
	}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			var got []string
			for _, f := range ingest.AgentFixtures(tc.format) {
				got = append(got, f.Folder)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("AgentFixtures(%q) = %v, want %v", tc.format, got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("AgentFixtures(%q) = %v, want %v", tc.format, got, tc.want)
				}
			}
		})
	}
}
