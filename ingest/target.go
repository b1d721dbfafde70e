package ingest

import (
	"bytes"
	"net/url"
	"path"
	"sort"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// Target extracts what a tool call acted on from its name and JSON arguments,
// normalised so that repeated reads of the same thing compare equal:
//
//  1. a search (pattern/query/regex/q argument) → the pattern, then " @ " and the
//     path when one is given;
//  2. a file path (file_path, filePath, path, notebook_path, file, filename,
//     absolute_path) → path.Clean of it;
//  3. a command (command, cmd, script; a string or an argv array) → the shell text,
//     with a leading "bash -lc"/"sh -c" wrapper removed and whitespace collapsed;
//  4. a URL (url, uri) → lower-cased scheme and host, fragment and trailing "/" dropped.
//
// Arguments that are not a JSON object give "".
func Target(tool string, args []byte) string {
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil || m == nil {
		return ""
	}
	p := firstString(m, "file_path", "filePath", "path", "notebook_path", "absolute_path", "file", "filename", "target_file", "dir_path", "directory")
	if p != "" {
		p = cleanPath(p)
	}
	if q := firstString(m, "pattern", "query", "regex", "q", "search", "search_term"); q != "" {
		q = collapse(q)
		if p != "" {
			return q + " @ " + p
		}
		return q
	}
	if p != "" {
		return p
	}
	if c := command(m); c != "" {
		return c
	}
	if u := firstString(m, "url", "uri"); u != "" {
		return normURL(u)
	}
	return ""
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

func cleanPath(p string) string {
	if strings.Contains(p, "://") {
		return p
	}
	return path.Clean(strings.ReplaceAll(p, `\`, "/"))
}

func command(m map[string]any) string {
	for _, k := range []string{"command", "cmd", "script", "commands", "input"} {
		switch v := m[k].(type) {
		case string:
			if s := NormCommand(v); s != "" {
				return s
			}
		case []any:
			argv := make([]string, 0, len(v))
			for _, a := range v {
				if s, ok := a.(string); ok {
					argv = append(argv, s)
				}
			}
			if s := NormArgv(argv); s != "" {
				return s
			}
		}
	}
	return ""
}

// NormArgv normalises an argv array: ["bash","-lc","ls -la"] → "ls -la".
func NormArgv(argv []string) string {
	if len(argv) >= 3 {
		sh := path.Base(argv[0])
		if (sh == "bash" || sh == "sh" || sh == "zsh") && (argv[1] == "-lc" || argv[1] == "-c") {
			return NormCommand(strings.Join(argv[2:], " "))
		}
	}
	return NormCommand(strings.Join(argv, " "))
}

// NormCommand collapses whitespace and drops a leading shell wrapper.
func NormCommand(s string) string {
	s = collapse(s)
	for _, w := range []string{"bash -lc ", "bash -c ", "sh -c ", "zsh -lc "} {
		if strings.HasPrefix(s, w) {
			s = strings.Trim(strings.TrimPrefix(s, w), `'"`)
			break
		}
	}
	return s
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func normURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return collapse(raw)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	u.Fragment = ""
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u.String()
}

// CanonicalJSON re-encodes a JSON value with sorted object keys and no
// insignificant whitespace. Invalid JSON is returned as a JSON string.
func CanonicalJSON(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if s, ok := canonicalFast(raw); ok {
		return s
	}
	return canonicalDecoded(raw)
}

// canonicalDecoded is CanonicalJSON of the trimmed, non-empty raw, by the
// JSON decoder and encoder.
func canonicalDecoded(raw []byte) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		b, _ := json.Marshal(string(raw))
		return string(b)
	}
	var b bytes.Buffer
	writeCanonical(&b, v)
	return b.String()
}

func writeCanonical(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			writeCanonical(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e)
		}
		b.WriteByte(']')
	default:
		enc := json.NewEncoder(b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(x)
		b.Truncate(b.Len() - 1) // Encode's newline
	}
}
