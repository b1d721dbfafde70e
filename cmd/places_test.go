package cmd

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// gooseStore builds the Goose fixture store (one run) at p.
func gooseStore(t *testing.T, p string) {
	t.Helper()
	script, err := os.ReadFile("../ingest/testdata/agents/goose/sessions.sql")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(script)); err != nil {
		t.Fatal(err)
	}
}

// TestIngestStandardPlaces: ingest with no PATH imports the standard places
// that exist (a Claude Code project folder, Goose's store; under
// $XDG_DATA_HOME when it is set) and says on stderr which it found; with
// none it exits 1 saying where it looked.
func TestIngestStandardPlaces(t *testing.T) {
	elsewhere := t.TempDir()
	tests := []struct {
		name   string
		env    map[string]string
		setup  func(t *testing.T, home string)
		code   int
		stderr string // its first line, home as ~, elsewhere as @
		stdout string // its start
	}{
		{"none", nil, func(*testing.T, string) {}, exitFailed,
			"trajmine: ingest: no PATH given, and no logs in the standard places (~/.claude/projects, ~/.codex/sessions and 46 more standard places)", ""},
		{"Claude Code and Goose", nil, func(t *testing.T, home string) {
			p := filepath.Join(home, ".claude", "projects", "-home-me-proj")
			mkdir(t, p)
			for _, f := range []string{"overflow_subagent.jsonl", "split_responses.jsonl"} {
				copyTestFile(t, filepath.Join(fixtureDir, f), filepath.Join(p, f))
			}
			gooseStore(t, filepath.Join(home, ".local/share/goose/sessions/sessions.db"))
		}, 0, "standard places found: Claude Code ~/.claude/projects, Goose ~/.local/share/goose/sessions/sessions.db",
			"imported 3 files "},
		{"Roo Code in VS Code, Amp", nil, func(t *testing.T, home string) {
			// counts.json: one run per task folder, one per Amp thread
			tasks := filepath.Join(home, ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks")
			for _, task := range []string{"test-task-peakctx", "test-task-cmdpair"} {
				mkdir(t, filepath.Join(tasks, task))
				for _, f := range []string{"history_item.json", "ui_messages.json"} {
					copyTestFile(t, filepath.Join("../ingest/testdata/agents/roo-code/tasks", task, f), filepath.Join(tasks, task, f))
				}
			}
			mkdir(t, filepath.Join(home, ".local/share/amp/threads"))
			copyTestFile(t, "../ingest/testdata/agents/amp/T-thread-a.json", filepath.Join(home, ".local/share/amp/threads/T-thread-a.json"))
		}, 0, "standard places found: Amp ~/.local/share/amp/threads, Roo Code (Code) ~/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks",
			"imported 5 files (1.9 kB): 3 runs"}, // the Roo tasks' history_item.json too, silently (no run)
		{"Goose under XDG_DATA_HOME", map[string]string{"XDG_DATA_HOME": elsewhere}, func(t *testing.T, home string) {
			gooseStore(t, filepath.Join(elsewhere, "goose/sessions/sessions.db"))
			gooseStore(t, filepath.Join(home, ".local/share/goose/sessions/sessions.db")) // not the data home: not read
		}, 0, "standard places found: Goose @/goose/sessions/sessions.db", "imported 1 file "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := testDeps(t, tc.env)
			home, _ := d.HomeDir()
			tc.setup(t, home)
			d.DB = filepath.Join(t.TempDir(), "x.duckdb")
			stdout, stderr, code := run(t, d, "ingest")
			first, _, _ := strings.Cut(stderr, "\n")
			first = strings.NewReplacer(elsewhere, "@", home, "~").Replace(first)
			if code != tc.code || first != tc.stderr || !strings.HasPrefix(stdout, tc.stdout) {
				t.Errorf("exit %d, stderr %q, stdout %q\nwant exit %d, stderr %q, stdout %q…", code, first, stdout, tc.code, tc.stderr, tc.stdout)
			}
		})
	}
}
