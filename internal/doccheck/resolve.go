package doccheck

import (
	"strings"
)

// Known are names that doc comments use for things outside Go (products,
// formats, other languages' APIs), shaped like Go identifiers, each with
// the reason it is not one. Keep it short: a name of Go code belongs in
// the code, where resolve finds it.
var Known = map[string]string{
	"DecompressionStream": "the browser's Compression Streams API, which the report page's script calls",
	"BeeAI":               "an agent framework whose Langfuse traces ingest reads",
	"LangGraph":           "an agent framework whose Langfuse traces ingest reads",
	"OpenLLMetry":         "an OpenTelemetry instrumentation whose span attributes ingest reads",
	"opencode.nvim":       "a Neovim plugin whose OpenCode events ingest reads",
}

// resolve reports whether w, a word of a doc comment in package p (in a
// file importing imports, of a declaration whose parameters, results and
// type parameters are params), names something (the rules of the package
// doc).
func (m *Module) resolve(p *Package, imports map[string]string, params map[string]bool, w Word) bool {
	if Known[w.Text] != "" {
		return true
	}
	parts := strings.Split(w.Text, ".")
	a := parts[0]
	if len(parts) == 1 {
		if m.single(p, imports, params, a) {
			return true
		}
		// a plural (CacheChecks: CacheCheck values)
		s := strings.TrimSuffix(a, "s")
		return s != a && m.single(p, imports, params, s)
	}
	if fileExt[parts[len(parts)-1]] {
		return true // a file name (pipeline.go, README.md)
	}
	if m.data(parts...) {
		return true // a JSON path of what the code reads (message.content)
	}
	if pkgs := m.byName[a]; len(pkgs) > 0 && !p.types[a] && !params[a] {
		for _, q := range pkgs {
			if m.has(q, parts[1:]) {
				return true
			}
		}
		return false
	}
	if p.types[a] {
		return m.member(p, a, parts[1], 0)
	}
	found := false
	for _, q := range m.Packages {
		if q.types[a] {
			found = true
			if m.member(q, a, parts[1], 0) {
				return true
			}
		}
	}
	if found {
		return false
	}
	if _, ok := imports[a]; ok || p.top[a] || params[a] {
		return true // a package outside the module, a variable, a parameter
	}
	return !typeShaped(a)
}

// single reports whether the single word a resolves (the package doc's
// last rule).
func (m *Module) single(p *Package, imports map[string]string, params map[string]bool, a string) bool {
	return p.decl[a] || params[a] || m.declared(a) || m.tests[a] || m.data(a) || m.imported(p, imports, a) || Known[a] != ""
}

// fileExt are the extensions that make A.B a file name.
var fileExt = map[string]bool{"go": true, "md": true, "json": true, "jsonl": true, "toml": true, "yaml": true, "yml": true,
	"txt": true, "html": true, "js": true, "css": true, "py": true, "sql": true, "csv": true, "tsv": true, "duckdb": true,
	"parquet": true, "xes": true, "traj": true, "eval": true, "zip": true, "gz": true, "sh": true, "mod": true, "sum": true}

// has reports whether rest (B, or B.C) is declared in q: B any name of q;
// B.C a member C of q's type B (or B a variable or function of q).
func (m *Module) has(q *Package, rest []string) bool {
	if len(rest) == 1 {
		return q.decl[rest[0]] || q.tests[rest[0]]
	}
	if q.types[rest[0]] {
		return m.member(q, rest[0], rest[1], 0)
	}
	return q.top[rest[0]]
}

// member reports whether name is a method or field of q's type t, or of
// a type t embeds (one outside the module: taken to have it).
func (m *Module) member(q *Package, t, name string, depth int) bool {
	if q.members[t][name] {
		return true
	}
	if depth > 8 {
		return false
	}
	for _, e := range q.embeds[t] {
		pkg, typ, ok := strings.Cut(e, ".")
		if !ok {
			if m.member(q, e, name, depth+1) {
				return true
			}
			continue
		}
		qs := m.byName[pkg]
		if len(qs) == 0 {
			return true
		}
		for _, q2 := range qs {
			if m.member(q2, typ, name, depth+1) {
				return true
			}
		}
	}
	return false
}

// data reports whether every word is in the module's string literals, as
// written or, for a single word, in lower case (DuckDB: "duckdb").
func (m *Module) data(words ...string) bool {
	for _, w := range words {
		if !m.vocab[w] && (len(words) > 1 || !m.vocab[strings.ToLower(w)]) {
			return false
		}
	}
	return true
}

// declared reports whether any package of the module declares name.
func (m *Module) declared(name string) bool {
	for _, q := range m.Packages {
		if q.decl[name] {
			return true
		}
	}
	return false
}

// imported reports whether a package outside the module that the file
// imports exports name.
func (m *Module) imported(p *Package, imports map[string]string, name string) bool {
	for _, path := range imports {
		if _, in := m.byPath[path]; in {
			continue
		}
		if m.exports(path, p.Dir)[name] {
			return true
		}
	}
	return false
}

// typeShaped reports whether a, the first part of A.B, is shaped like a
// type's name: a lower-case letter and a capital at its start or after
// a lower-case letter ("Options", "runWork"; not o, runs, JSON).
func typeShaped(a string) bool {
	return strings.ToLower(a) != a && (startsUpper(a) || camel(a)) && strings.ToUpper(a) != a
}
