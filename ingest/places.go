package ingest

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Place is a standard place where an agent keeps its logs on a machine of
// its user's: what trajmine report and trajmine ingest read when no PATH
// is given (Discover).
type Place struct {
	Agent string // who writes there
	OS    string // "linux" or "darwin"; "" for both
	// Path is the place, slash-separated, under a root named by its first
	// element: "~" (the home directory); "$XDG_DATA_HOME" and
	// "$XDG_CONFIG_HOME" (those variables when set to an absolute path,
	// else ~/.local/share and ~/.config); "$CLAUDE_CONFIG_DIR" and
	// "$CODEX_HOME" (else ~/.claude and ~/.codex). A folder name may hold
	// * (filepath.Match). The place is a folder (walked as a PATH is) or a
	// file (a SQLite store).
	Path string
}

// placeUnless names, by a place's Path, a path (rooted as Path) whose
// existence makes the place not looked at: the older store of an agent
// that imports it into a newer one and leaves it on disk, so that its
// sessions are not read twice.
var placeUnless = map[string]string{
	// Goose before 1.10: one .jsonl a session; 1.10+ imports them into
	// sessions.db and leaves them beside it
	"$XDG_DATA_HOME/goose/sessions": "$XDG_DATA_HOME/goose/sessions/sessions.db",
}

// roots are the roots a Place's path may start with, and their defaults
// under the home directory.
var roots = map[string]string{
	"$XDG_DATA_HOME":     ".local/share",
	"$XDG_CONFIG_HOME":   ".config",
	"$CLAUDE_CONFIG_DIR": ".claude",
	"$CODEX_HOME":        ".codex",
}

// vscodeEditors are the VS Code builds whose user folders hold extension
// storage (Cursor too: it is a VS Code build and runs the same extensions).
var vscodeEditors = []string{"Code", "Code - Insiders", "VSCodium", "Cursor"}

// vscodeUser is an editor's user folder on goos.
func vscodeUser(goos, editor string) string {
	if goos == "darwin" {
		return "~/Library/Application Support/" + editor + "/User"
	}
	return "$XDG_CONFIG_HOME/" + editor + "/User"
}

// places is every standard place, by agent: the places agentsview (and each
// agent's own documentation or source, where the importer's doc names it)
// reads, for the agents whose logs trajmine reads.
var places = func() []Place {
	p := []Place{
		{"Claude Code", "", "$CLAUDE_CONFIG_DIR/projects"},
		{"Codex CLI", "", "$CODEX_HOME/sessions"},
		{"Codex CLI", "", "$CODEX_HOME/archived_sessions"},
		{"iFlow CLI", "", "~/.iflow/projects"},
		{"Trae CLI", "", "~/.trae/cli/sessions"},
		{"GitHub Copilot CLI", "", "~/.copilot/session-state"},
		{"Visual Studio Copilot", "linux", "~/.cache/VSGitHubCopilotLogs/traces"},
		{"Visual Studio Copilot", "darwin", "~/Library/Caches/VSGitHubCopilotLogs/traces"},
		{"Cursor agent", "", "~/.cursor/projects"},
		{"Qwen Code", "", "~/.qwen/projects"},
		{"Factory Droid", "", "~/.factory/sessions"},
		{"Gemini CLI", "", "~/.gemini/tmp"},
		{"Antigravity CLI", "", "~/.gemini/antigravity-cli"},
		{"pi", "", "~/.pi/agent/sessions"},
		{"OpenCode", "", "$XDG_DATA_HOME/opencode/storage"},
		{"OpenCode", "", "$XDG_DATA_HOME/opencode/opencode.db"},
		{"Kilo CLI", "", "$XDG_DATA_HOME/kilo/kilo.db"},
		{"Cline CLI", "", "~/.cline/data/sessions"},
		{"Kimi Code CLI", "", "~/.kimi-code/sessions"},
		{"Kimi Code CLI", "", "~/.kimi/sessions"},
		{"Mistral Vibe", "", "~/.vibe/logs/session"},
		{"Grok Build", "", "~/.grok/sessions"},
		{"gptme", "", "$XDG_DATA_HOME/gptme/logs"},
		{"Hermes Agent", "", "~/.hermes/sessions"},
		{"Hermes Agent", "", "~/.hermes/state.db"},
		{"Goose", "", "$XDG_DATA_HOME/goose/sessions/sessions.db"},
		{"Goose (before 1.10)", "", "$XDG_DATA_HOME/goose/sessions"},
		{"Kiro CLI", "linux", "$XDG_DATA_HOME/kiro-cli/data.sqlite3"},
		{"Kiro CLI", "darwin", "~/Library/Application Support/kiro-cli/data.sqlite3"},
		{"Amp", "", "$XDG_DATA_HOME/amp/threads"},
		{"Cursor IDE", "linux", "$XDG_CONFIG_HOME/Cursor/User/globalStorage/state.vscdb"},
		{"Cursor IDE", "darwin", "~/Library/Application Support/Cursor/User/globalStorage/state.vscdb"},
		{"Cursor IDE", "linux", "$XDG_CONFIG_HOME/Cursor/User/workspaceStorage/*/state.vscdb"},
		{"Cursor IDE", "darwin", "~/Library/Application Support/Cursor/User/workspaceStorage/*/state.vscdb"},
	}
	for _, goos := range []string{"linux", "darwin"} {
		for _, ed := range vscodeEditors {
			for _, ext := range []struct{ agent, id string }{
				{"Cline", "saoudrizwan.claude-dev"}, {"Roo Code", "rooveterinaryinc.roo-cline"}, {"Kilo Code", "kilocode.kilo-code"},
			} {
				p = append(p, Place{ext.agent + " (" + ed + ")", goos, vscodeUser(goos, ed) + "/globalStorage/" + ext.id + "/tasks"})
			}
			if ed == "Cursor" {
				continue // Copilot Chat is VS Code's
			}
			p = append(p,
				Place{"VS Code Copilot Chat (" + ed + ")", goos, vscodeUser(goos, ed) + "/workspaceStorage/*/chatSessions"},
				Place{"VS Code Copilot Chat (" + ed + ")", goos, vscodeUser(goos, ed) + "/globalStorage/emptyWindowChatSessions"})
		}
	}
	return p
}()

// Places returns the standard places of goos ("linux", "darwin"; another
// system has none), in the order of the table.
func Places(goos string) []Place {
	var out []Place
	for _, p := range places {
		if p.OS == "" && (goos == "linux" || goos == "darwin") || p.OS == goos {
			out = append(out, p)
		}
	}
	return out
}

// Found is a standard place that exists: Path is what its pattern matched.
type Found struct {
	Place
	Path string
}

// Resolve turns a place's path into a file path pattern under home, with
// the root variables read through getenv.
func (p Place) Resolve(home string, getenv func(string) string) string {
	first, rest, _ := strings.Cut(p.Path, "/")
	base := home
	switch {
	case first == "~":
	case roots[first] != "":
		if v := getenv(strings.TrimPrefix(first, "$")); filepath.IsAbs(v) {
			base = v
		} else {
			base = filepath.Join(home, filepath.FromSlash(roots[first]))
		}
	default:
		return ""
	}
	return filepath.Join(base, filepath.FromSlash(rest))
}

// Discover returns the standard places of goos that exist under home (the
// folders and files their patterns match, sorted within a place), reading
// the root variables through getenv. A place whose placeUnless path exists
// is not looked at; a place inside another one found is left out (its files are
// read with the outer one), and so is a path found twice.
func Discover(home string, getenv func(string) string, goos string) []Found {
	if home == "" {
		return nil
	}
	var out []Found
	seen := map[string]bool{}
	for _, p := range Places(goos) {
		pattern := p.Resolve(home, getenv)
		if pattern == "" {
			continue
		}
		if unless := placeUnless[p.Path]; unless != "" {
			if _, err := os.Stat(Place{Path: unless}.Resolve(home, getenv)); err == nil {
				continue
			}
		}
		matches, _ := filepath.Glob(pattern) // what exists; the patterns are well formed (no ErrBadPattern)
		sort.Strings(matches)
		for _, m := range matches {
			if !seen[m] {
				seen[m] = true
				out = append(out, Found{Place: p, Path: m})
			}
		}
	}
	return slices.DeleteFunc(out, func(f Found) bool {
		for _, o := range out {
			if o.Path != f.Path && strings.HasPrefix(f.Path, o.Path+string(filepath.Separator)) {
				return true
			}
		}
		return false
	})
}
