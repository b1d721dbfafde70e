package ingest_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
)

// plant makes the place p exist under home: a file for a store (its name
// has an extension), else a folder holding one file; a * in it is "ws1".
func plant(t *testing.T, home string, p ingest.Place) string {
	t.Helper()
	path := strings.ReplaceAll(p.Resolve(home, noEnv), "*", "ws1")
	if filepath.Ext(path) != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "x.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func noEnv(string) string { return "" }

// TestDiscover: with a fake home holding every place of both systems and
// some decoys, Discover finds each place of the system asked once, under
// the path the agent uses, and nothing else.
func TestDiscover(t *testing.T) {
	home := t.TempDir()
	for _, goos := range []string{"linux", "darwin"} {
		for _, p := range ingest.Places(goos) {
			plant(t, home, p)
		}
	}
	for _, decoy := range []string{".claude/other/x.jsonl", ".codex/log/x.jsonl", ".local/share/goose/sessions/other.db",
		"Documents/x.jsonl", ".config/Code/User/globalStorage/other.ext/tasks/x.json", ".hermes/config.yaml"} {
		p := filepath.Join(home, decoy)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		goos   string
		places int      // hand count of the table: 26 places on both systems, 2 + 2 of one (Kiro CLI, Cursor IDE), 18 VS Code ones; found: all but Goose's .jsonl folder (its sessions.db is planted)
		some   []string // places each system must have, as the agents' documentation gives them
		none   []string // the other system's
	}{
		{"linux", 26 + 2 + 2 + 18, []string{
			"Claude Code ~/.claude/projects", "Codex CLI ~/.codex/sessions", "Goose ~/.local/share/goose/sessions/sessions.db",
			"OpenCode ~/.local/share/opencode/opencode.db", "Hermes Agent ~/.hermes/state.db", "Kiro CLI ~/.local/share/kiro-cli/data.sqlite3",
			"Roo Code (Cursor) ~/.config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/tasks",
			"VS Code Copilot Chat (Code) ~/.config/Code/User/workspaceStorage/ws1/chatSessions",
			"Visual Studio Copilot ~/.cache/VSGitHubCopilotLogs/traces",
			"Cursor IDE ~/.config/Cursor/User/globalStorage/state.vscdb", "Cursor IDE ~/.config/Cursor/User/workspaceStorage/ws1/state.vscdb",
		}, []string{"Kiro CLI ~/Library/Application Support/kiro-cli/data.sqlite3", "Cursor IDE ~/Library/Application Support/Cursor/User/globalStorage/state.vscdb",
			"Goose (before 1.10) ~/.local/share/goose/sessions"}},
		{"darwin", 26 + 2 + 2 + 18, []string{
			"Claude Code ~/.claude/projects", "Goose ~/.local/share/goose/sessions/sessions.db",
			"Kiro CLI ~/Library/Application Support/kiro-cli/data.sqlite3",
			"Cline (Code) ~/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/tasks",
			"VS Code Copilot Chat (Code - Insiders) ~/Library/Application Support/Code - Insiders/User/globalStorage/emptyWindowChatSessions",
			"Cursor IDE ~/Library/Application Support/Cursor/User/globalStorage/state.vscdb",
			"Cursor IDE ~/Library/Application Support/Cursor/User/workspaceStorage/ws1/state.vscdb",
		}, []string{"Cursor IDE ~/.config/Cursor/User/globalStorage/state.vscdb", "Kiro CLI ~/.local/share/kiro-cli/data.sqlite3", "Cline (Code) ~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks",
			"Goose (before 1.10) ~/.local/share/goose/sessions"}},
	} {
		t.Run(tc.goos, func(t *testing.T) {
			found := ingest.Discover(home, noEnv, tc.goos)
			var got []string
			for _, f := range found {
				got = append(got, f.Agent+" ~/"+filepath.ToSlash(strings.TrimPrefix(f.Path, home+string(filepath.Separator))))
			}
			if len(found) != tc.places-1 || len(ingest.Places(tc.goos)) != tc.places {
				t.Errorf("found %d places (table: %d), want %d:\n%s", len(found), len(ingest.Places(tc.goos)), tc.places, strings.Join(got, "\n"))
			}
			for _, w := range tc.some {
				if !slices.Contains(got, w) {
					t.Errorf("not found: %s", w)
				}
			}
			for _, w := range tc.none {
				if slices.Contains(got, w) {
					t.Errorf("found the other system's %s", w)
				}
			}
			seen := map[string]bool{}
			for _, f := range found {
				if seen[f.Path] {
					t.Errorf("found twice: %s", f.Path)
				}
				seen[f.Path] = true
				if strings.Contains(f.Path, "other") || strings.Contains(f.Path, "Documents") || strings.Contains(f.Path, "config.yaml") {
					t.Errorf("a decoy found: %s", f.Path)
				}
			}
		})
	}
	if got := ingest.Discover(home, noEnv, "windows"); len(got) != 0 {
		t.Errorf("windows: %d places", len(got))
	}
}

// TestDiscoverRoots: the root variables move their places when absolute
// (a relative one is ignored, as XDG says); a place inside another one found
// is left out.
func TestDiscoverRoots(t *testing.T) {
	home, elsewhere := t.TempDir(), t.TempDir()
	for _, p := range []string{
		filepath.Join(elsewhere, "data/goose/sessions/sessions.db"),
		filepath.Join(home, ".local/share/amp/threads/T-1.json"),
		filepath.Join(elsewhere, "claude/projects/p/s.jsonl"),
		filepath.Join(home, ".claude/projects/p/s.jsonl"),
		filepath.Join(home, ".claude/projects/p/sessions/rollout.jsonl"),
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string // relative to home, or to elsewhere as @/…
	}{
		{"defaults", nil, []string{"~/.claude/projects", "~/.local/share/amp/threads"}},
		{"absolute roots", map[string]string{"XDG_DATA_HOME": filepath.Join(elsewhere, "data"), "CLAUDE_CONFIG_DIR": filepath.Join(elsewhere, "claude")},
			[]string{"@/claude/projects", "@/data/goose/sessions/sessions.db"}},
		{"a relative root is ignored", map[string]string{"XDG_DATA_HOME": "data"}, []string{"~/.claude/projects", "~/.local/share/amp/threads"}},
		{"a place inside another", map[string]string{"CODEX_HOME": filepath.Join(home, ".claude/projects/p")},
			[]string{"~/.claude/projects", "~/.local/share/amp/threads"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range ingest.Discover(home, func(k string) string { return tc.env[k] }, "linux") {
				p := strings.Replace(strings.Replace(f.Path, elsewhere, "@", 1), home, "~", 1)
				got = append(got, filepath.ToSlash(p))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("found %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDiscoverGooseBefore110: Goose's folder of .jsonl sessions is a
// standard place only while there is no sessions.db beside them (Goose
// 1.10+ imports them into it and leaves them on disk: read once, from the
// store).
func TestDiscoverGooseBefore110(t *testing.T) {
	tests := []struct {
		name  string
		files []string // under ~/.local/share/goose/sessions
		want  []string
	}{
		{"jsonl only", []string{"20250401_104348.jsonl"}, []string{"Goose (before 1.10) ~/.local/share/goose/sessions"}},
		{"jsonl and sessions.db", []string{"20250401_104348.jsonl", "sessions.db"}, []string{"Goose ~/.local/share/goose/sessions/sessions.db"}},
		{"sessions.db only", []string{"sessions.db"}, []string{"Goose ~/.local/share/goose/sessions/sessions.db"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, ".local", "share", "goose", "sessions")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for _, f := range ingest.Discover(home, noEnv, "linux") {
				got = append(got, f.Agent+" ~/"+filepath.ToSlash(strings.TrimPrefix(f.Path, home+string(filepath.Separator))))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("found %q, want %q", got, tc.want)
			}
		})
	}
}
