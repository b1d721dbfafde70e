package doccheck

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Package is what Load read of one package.
type Package struct {
	Path  string // import path
	Name  string // package name
	Dir   string
	Files []*ast.File

	decl    map[string]bool            // every name declared: top level, methods, fields
	tests   map[string]bool            // every name the package's test files declare
	top     map[string]bool            // top-level names
	members map[string]map[string]bool // type → its methods and fields
	embeds  map[string][]string        // type → the types it embeds (A or pkg.A)
	types   map[string]bool
}

// Module is every package of a module, as Load read them.
type Module struct {
	Path     string // module path
	Root     string
	Fset     *token.FileSet
	Packages []*Package
	byName   map[string][]*Package // by package name and by last path element
	byPath   map[string]*Package

	// tests are the names the module's test files declare (test
	// functions, helpers), which a doc comment may name; their comments
	// are not checked.
	tests map[string]bool
	// vocab are the words of the string literals of the module's Go files
	// (struct tags included), as written and in lower case: the JSON keys,
	// event types and format names the code reads, which doc comments
	// name as they are logged (sessionId, ConversationErrorEvent), and the
	// names products go by (OpenAI: "openai-messages").
	vocab map[string]bool

	extMu sync.Mutex
	ext   map[string]map[string]bool // exports of packages outside the module, by import path
}

// Problem is a word of a doc comment that resolves to nothing.
type Problem struct {
	Pos  token.Position
	Word Word
	Doc  string // what the comment documents: "package x", "func F", "type T", …
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: the doc of %s names %s, which does not exist (%s)", p.Pos.Filename, p.Pos.Line, p.Doc, p.Word.Text, p.Word.Kind)
}

// Load parses every package of the module at root (its go.mod names the
// module path): the non-test Go files of every directory but testdata,
// vendor and hidden ones, with their comments.
func Load(root string) (*Module, error) {
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, fmt.Errorf("doccheck: %w", err)
	}
	m := &Module{Root: root, Fset: token.NewFileSet(), byName: map[string][]*Package{}, byPath: map[string]*Package{},
		tests: map[string]bool{}, vocab: map[string]bool{}, ext: map[string]map[string]bool{}}
	for i, l := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "module" {
			m.Path = strings.Trim(f[1], `"`)
			break
		} else if i > 50 {
			break
		}
	}
	if m.Path == "" {
		return nil, fmt.Errorf("doccheck: %s: no module line", filepath.Join(root, "go.mod"))
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata" || n == "vendor") {
			return filepath.SkipDir
		}
		return m.loadDir(path)
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// loadDir parses the non-test Go files of dir as one package, if it has any.
func (m *Module) loadDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(m.Root, dir)
	if err != nil {
		return err
	}
	p := &Package{Path: m.Path, Dir: dir, tests: map[string]bool{}}
	if rel != "." {
		p.Path += "/" + filepath.ToSlash(rel)
	}
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") {
			continue
		}
		f, err := parser.ParseFile(m.Fset, filepath.Join(dir, n), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("doccheck: %w", err)
		}
		m.addVocab(f)
		if strings.HasSuffix(n, "_test.go") {
			t := &Package{Files: []*ast.File{f}}
			t.collect()
			for k := range t.decl {
				m.tests[k], p.tests[k] = true, true
			}
			continue
		}
		if p.Name == "" {
			p.Name = f.Name.Name
		}
		if f.Name.Name != p.Name {
			return fmt.Errorf("doccheck: %s: package %s beside package %s", m.Fset.File(f.Pos()).Name(), f.Name.Name, p.Name)
		}
		p.Files = append(p.Files, f)
	}
	if len(p.Files) == 0 {
		return nil
	}
	p.collect()
	m.Packages = append(m.Packages, p)
	m.byPath[p.Path] = p
	m.byName[p.Name] = append(m.byName[p.Name], p)
	if last := filepath.Base(dir); last != p.Name {
		m.byName[last] = append(m.byName[last], p)
	}
	return nil
}

// addVocab adds the words of f's string literals to m.vocab.
func (m *Module) addVocab(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		v, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		for _, w := range strings.FieldsFunc(v, func(r rune) bool { return r >= 0x80 || !identByte(byte(r)) }) {
			m.vocab[w], m.vocab[strings.ToLower(w)] = true, true
		}
		return true
	})
}

// collect fills p's declared names from its files.
func (p *Package) collect() {
	p.decl, p.top, p.members, p.embeds, p.types = map[string]bool{}, map[string]bool{}, map[string]map[string]bool{}, map[string][]string{}, map[string]bool{}
	member := func(t, name string) {
		if p.members[t] == nil {
			p.members[t] = map[string]bool{}
		}
		p.members[t][name] = true
		p.decl[name] = true
	}
	for _, f := range p.Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil || len(d.Recv.List) == 0 {
					p.top[d.Name.Name], p.decl[d.Name.Name] = true, true
					continue
				}
				member(recvType(d.Recv.List[0].Type), d.Name.Name)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						t := s.Name.Name
						p.top[t], p.decl[t], p.types[t] = true, true, true
						switch tt := s.Type.(type) {
						case *ast.StructType:
							for _, fl := range tt.Fields.List {
								if len(fl.Names) == 0 {
									e := typeName(fl.Type)
									p.embeds[t] = append(p.embeds[t], e)
									member(t, e[strings.LastIndexByte(e, '.')+1:])
								}
								for _, n := range fl.Names {
									member(t, n.Name)
								}
							}
						case *ast.InterfaceType:
							for _, fl := range tt.Methods.List {
								if len(fl.Names) == 0 {
									p.embeds[t] = append(p.embeds[t], typeName(fl.Type))
								}
								for _, n := range fl.Names {
									member(t, n.Name)
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							p.top[n.Name], p.decl[n.Name] = true, true
						}
					}
				}
			}
		}
	}
}

// recvType is the name of a receiver's type: T of T, *T, T[K], *T[K].
func recvType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// typeName is an embedded type's name: T, or pkg.T.
func typeName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok {
				return id.Name + "." + x.Sel.Name
			}
			return x.Sel.Name
		default:
			return ""
		}
	}
}

// Check returns the problems of every package of m, in file and line
// order.
func (m *Module) Check() []Problem {
	var out []Problem
	for _, p := range m.Packages {
		out = append(out, m.CheckPackage(p)...)
	}
	slices.SortFunc(out, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Pos.Filename, b.Pos.Filename), cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Word.Text, b.Word.Text))
	})
	return out
}

// CheckPackage returns the problems of p's doc comments.
func (m *Module) CheckPackage(p *Package) []Problem {
	var out []Problem
	for _, f := range p.Files {
		imports := fileImports(f)
		doc := func(cg *ast.CommentGroup, what string, params map[string]bool) {
			if cg == nil {
				return
			}
			for _, c := range cg.List {
				for k, line := range commentLines(c.Text) {
					if strings.HasPrefix(line, "\t") { // a code block (gofmt indents them with a tab)
						continue
					}
					for _, w := range Words(line) {
						if !m.resolve(p, imports, params, w) {
							pos := m.Fset.Position(c.Pos())
							pos.Line += k
							pos.Filename = m.rel(pos.Filename)
							out = append(out, Problem{Pos: pos, Word: w, Doc: what})
						}
					}
				}
			}
		}
		doc(f.Doc, "package "+p.Name, nil)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				what := "func " + d.Name.Name
				if d.Recv != nil && len(d.Recv.List) > 0 {
					what = "method " + recvType(d.Recv.List[0].Type) + "." + d.Name.Name
				}
				doc(d.Doc, what, funcNames(d))
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						what := "type " + s.Name.Name
						params := typeParams(s.TypeParams)
						if s.Doc == nil && len(d.Specs) == 1 {
							doc(d.Doc, what, params)
						}
						doc(s.Doc, what, params)
						var fields *ast.FieldList
						switch tt := s.Type.(type) {
						case *ast.StructType:
							fields = tt.Fields
						case *ast.InterfaceType:
							fields = tt.Methods
						}
						if fields != nil {
							for _, fl := range fields.List {
								fp := params
								if ft, ok := fl.Type.(*ast.FuncType); ok {
									fp = funcTypeNames(ft, params)
								}
								doc(fl.Doc, what, fp)
							}
						}
					case *ast.ValueSpec:
						what := d.Tok.String() + " " + s.Names[0].Name
						if s.Doc == nil && len(d.Specs) == 1 {
							doc(d.Doc, what, nil)
						}
						doc(s.Doc, what, nil)
					}
				}
				if len(d.Specs) > 1 {
					what := d.Tok.String() + " block"
					if vs, ok := d.Specs[0].(*ast.ValueSpec); ok {
						what = d.Tok.String() + " block of " + vs.Names[0].Name
					} else if ts, ok := d.Specs[0].(*ast.TypeSpec); ok {
						what = d.Tok.String() + " block of " + ts.Name.Name
					}
					doc(d.Doc, what, nil)
				}
			}
		}
	}
	return out
}

// rel is path relative to the module's root, when inside it.
func (m *Module) rel(path string) string {
	if r, err := filepath.Rel(m.Root, path); err == nil && filepath.IsLocal(r) {
		return filepath.ToSlash(r)
	}
	return path
}

// commentLines returns the lines of a comment's text after its markers:
// "//" and one space, or the lines of a /* */ comment.
func commentLines(text string) []string {
	if strings.HasPrefix(text, "//") {
		return []string{strings.TrimPrefix(strings.TrimPrefix(text, "//"), " ")}
	}
	text = strings.TrimSuffix(strings.TrimPrefix(text, "/*"), "*/")
	return strings.Split(text, "\n")
}

// fileImports maps the names a file's imports are known by (their
// alias, or the last element of their path) to their paths.
func fileImports(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, im := range f.Imports {
		path, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			continue
		}
		name := path[strings.LastIndexByte(path, '/')+1:]
		if v := strings.TrimPrefix(name, "v"); v != name && v != "" && strings.Trim(v, "0123456789") == "" {
			// github.com/x/y/v2: known as y
			p := strings.TrimSuffix(path, "/"+name)
			name = p[strings.LastIndexByte(p, '/')+1:]
		}
		if im.Name != nil {
			name = im.Name.Name
		}
		out[name] = path
	}
	return out
}

// funcNames are the names of a function's receiver, type parameters,
// parameters and results.
func funcNames(d *ast.FuncDecl) map[string]bool {
	out := map[string]bool{}
	add := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, f := range fl.List {
			for _, n := range f.Names {
				out[n.Name] = true
			}
		}
	}
	add(d.Recv)
	add(d.Type.TypeParams)
	add(d.Type.Params)
	add(d.Type.Results)
	return out
}

// funcTypeNames adds the parameter and result names of a function type
// (a field's or an interface method's) to base.
func funcTypeNames(ft *ast.FuncType, base map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range base {
		out[k] = true
	}
	for _, fl := range []*ast.FieldList{ft.Params, ft.Results} {
		if fl == nil {
			continue
		}
		for _, f := range fl.List {
			for _, n := range f.Names {
				out[n.Name] = true
			}
		}
	}
	return out
}

func typeParams(fl *ast.FieldList) map[string]bool {
	if fl == nil {
		return nil
	}
	out := map[string]bool{}
	for _, f := range fl.List {
		for _, n := range f.Names {
			out[n.Name] = true
		}
	}
	return out
}

// exports returns the exported names (top level, methods, fields) of the
// package outside the module at import path, read from its source as
// go/build finds it from dir; nil when it cannot be found.
func (m *Module) exports(path, dir string) map[string]bool {
	m.extMu.Lock()
	defer m.extMu.Unlock()
	if e, ok := m.ext[path]; ok {
		return e
	}
	var out map[string]bool
	if bp, err := build.Default.Import(path, dir, build.FindOnly); err == nil && bp.Dir != "" {
		out = map[string]bool{}
		ents, _ := os.ReadDir(bp.Dir)
		fset := token.NewFileSet()
		for _, e := range ents {
			n := e.Name()
			if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(bp.Dir, n), nil, parser.SkipObjectResolution)
			if err != nil {
				continue
			}
			p := &Package{Files: []*ast.File{f}}
			p.collect()
			for k := range p.decl {
				if ast.IsExported(k) {
					out[k] = true
				}
			}
		}
	}
	m.ext[path] = out
	return out
}
