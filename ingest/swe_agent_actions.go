package ingest

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// Reading a SWE-agent action: the command in a model response (XML tag or
// fenced block) and its tool name and arguments, split like a shell does.

var (
	sweXMLCommand = regexp.MustCompile(`(?s)<command>\n?(.*?)\n?</command>`)
	sweFenced     = regexp.MustCompile("(?s)```[A-Za-z0-9_-]*\n(.*?)\n?```")
)

// sweParseResponse splits a raw model response of a text/XML config into
// its action (the last <command> block, else the last fenced block) and the
// text around it.
func sweParseResponse(text string) (action, rest string) {
	for _, re := range []*regexp.Regexp{sweXMLCommand, sweFenced} {
		if ms := re.FindAllStringSubmatchIndex(text, -1); len(ms) > 0 {
			m := ms[len(ms)-1]
			return text[m[2]:m[3]], strings.TrimSpace(text[:m[0]] + text[m[1]:])
		}
	}
	return "", text
}

// sweCommands are the arguments, in order, of SWE-agent's standard commands,
// named as in its function-calling tool schemas; any other command is run
// by bash.
var sweCommands = map[string][]string{
	"open":        {"path", "line_number"},
	"goto":        {"line_number"},
	"scroll_up":   nil,
	"scroll_down": nil,
	"create":      {"filename"},
	"find_file":   {"file_name", "dir"},
	"search_dir":  {"search_term", "dir"},
	"search_file": {"search_term", "file"},
	"edit":        {"search", "replace", "replace-all"},
	"insert":      {"text", "line"},
	"submit":      {"flag"},
	"filemap":     {"file_path"},

	"str_replace_editor": {"command", "path"},
}

// sweToolNames reads the command names from a config's command_docs
// ("name:\n  docstring: …").
func sweToolNames(docs string) map[string]bool {
	names := map[string]bool{}
	for _, l := range strings.Split(docs, "\n") {
		if n, ok := strings.CutSuffix(strings.TrimRight(l, " \r"), ":"); ok && n != "" && !strings.ContainsAny(n, " \t") {
			names[n] = true
		}
	}
	return names
}

// sweActionCall turns a text/XML action into a tool call: a known SWE-agent
// command with its arguments mapped by position (edit <start>:<end> with
// its replacement text), another documented command with {"command": action},
// else bash {"command": action}.
func sweActionCall(action string, tools map[string]bool) (name, args string) {
	action = strings.TrimSpace(action)
	first, body, _ := strings.Cut(action, "\n")
	toks := sweShellFields(first)
	if len(toks) == 0 {
		return "bash", sweJSON(map[string]any{"command": action})
	}
	spec, known := sweCommands[toks[0]]
	if !known {
		if tools[toks[0]] {
			return toks[0], sweJSON(map[string]any{"command": action})
		}
		return "bash", sweJSON(map[string]any{"command": action})
	}
	m := map[string]any{}
	if lo, hi, ok := strings.Cut(sweAt(toks, 1), ":"); toks[0] == "edit" && ok {
		m["start_line"], m["end_line"] = sweNumber(lo), sweNumber(hi)
		m["replacement_text"] = strings.TrimSuffix(strings.TrimSuffix(body, "end_of_edit"), "\n")
		return "edit", sweJSON(m)
	}
	key := "args" // where words beyond the named arguments go
	if len(spec) > 0 {
		key = spec[len(spec)-1]
	}
	for i, a := range toks[1:] {
		if i < len(spec) {
			m[spec[i]] = sweNumber(a)
		} else if v, ok := m[key]; ok {
			m[key] = fmt.Sprint(v) + " " + a
		} else {
			m[key] = a
		}
	}
	if body != "" {
		m["text"] = body
	}
	return toks[0], sweJSON(m)
}

func sweAt(toks []string, i int) string {
	if i < len(toks) {
		return toks[i]
	}
	return ""
}

// sweNumber returns an integer argument as a number, anything else as is.
func sweNumber(s string) any {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	return s
}

func sweJSON(m map[string]any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(m) != nil {
		return "{}"
	}
	return strings.TrimSpace(buf.String())
}

// sweShellFields splits a command line into words, honouring single and
// double quotes and backslash escapes.
func sweShellFields(s string) []string {
	var out []string
	var cur strings.Builder
	in, quote, esc := false, rune(0), false
	for _, c := range s {
		switch {
		case esc:
			cur.WriteRune(c)
			esc = false
		case c == '\\' && quote != '\'':
			esc, in = true, true
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteRune(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\r':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
