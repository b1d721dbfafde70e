// Package archtest enforces trajmine's dependency direction (go-style.md §1):
// schema is a leaf; ingest and synth import only schema (ingest also its own
// internal/jsonx, goccy/go-json with number errors repaired, and actions,
// which classifies each tool call at import); internal/store is the only
// importer of the DuckDB driver; analysis feeds the domain packages from
// the store; only dashboards imports go-echarts and only
// dashboards/browsertest chromedp; only cmd imports cobra; nothing imports
// cmd.
package archtest

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/internal/testutil"
)

const mod = "github.com/trajmine/trajmine/"

// allowed lists, per package, the trajmine packages its non-test files may import.
var allowed = map[string][]string{
	"schema":                 {},
	"actions":                {"schema"},
	"ingest":                 {"schema", "ingest/internal/jsonx", "actions"}, // actions: each tool call's class, set at import
	"ingest/internal/jsonx":  {},
	"diagnose":               {"schema", "internal/textfmt"},
	"synth":                  {"schema"},
	"mining":                 {"schema", "internal/stats"}, // stats: mine --compare's rank test and Benjamini–Hochberg
	"compare":                {"internal/stats"},           // trajmine compare: groups of real runs (issue 28)
	"eventlog":               {"schema"},
	"behavior":               {"schema", "counterfactual", "diagnose"},
	"recommend":              {"schema", "simulate", "behavior", "diagnose", "internal/stats", "internal/textfmt", "mining", "internal/holdout"},
	"dashboards":             {"internal/textfmt", "internal/glossary", "internal/layered"},
	"dashboards/browsertest": {},
	"internal/store":         {"schema", "ingest", "actions"}, // actions: whose action_class can be read back
	"internal/testutil":      {},
	"internal/doccheck":      {},
	"internal/stats":         {},
	"internal/holdout":       {}, // the one train/held-out split (recommend, tracer)
	"internal/textfmt":       {},
	"internal/glossary":      {}, // trajmine help terms; the page may embed it
	"internal/layered":       {}, // the process map's layered layout (pure Go, no init)
	"internal/parallel":      {}, // indices 0 … n-1 on every CPU (simulate, analysis)
	"redact":                 {"schema"},
	"counterfactual":         {"schema", "internal/stats", "internal/holdout"},                                                              // holdout: the halves of the re-read validation
	"simulate":               {"schema", "diagnose", "counterfactual", "internal/stats", "internal/textfmt", "mining", "internal/parallel"}, // mining: TargetKind for the learned policy's target-kind feature
	"tracer":                 {"simulate", "internal/stats", "internal/holdout", "diagnose"},                                                // TRACER's learned retention, trained on replay traces; diagnose: the price table of its cache-priced reward
	"analysis":               {"schema", "compare", "internal/store", "actions", "diagnose", "simulate", "counterfactual", "behavior", "recommend", "mining", "eventlog", "dashboards", "internal/textfmt", "redact", "internal/parallel"},
	"serve":                  {"ingest", "internal/store", "analysis", "dashboards", "redact", "internal/textfmt"}, // trajmine serve: the page and its API over HTTP, the log watcher
	"cmd":                    {"schema", "compare", "ingest", "internal/store", "synth", "actions", "diagnose", "simulate", "counterfactual", "internal/stats", "mining", "eventlog", "behavior", "recommend", "dashboards", "analysis", "internal/textfmt", "redact", "tracer", "internal/holdout", "internal/glossary", "serve"},
	"cmd/trajmine":           {"cmd"},
}

// exclusive third-party imports: only the named package may import them.
var exclusive = map[string]string{
	"github.com/duckdb/duckdb-go/v2":             "internal/store",
	"github.com/spf13/cobra":                     "cmd",
	"github.com/chromedp/chromedp":               "dashboards/browsertest",
	"github.com/go-echarts/go-echarts/v2/charts": "dashboards", // chart options: go-echarts' option types, marshalled by dashboards
	"github.com/go-echarts/go-echarts/v2/opts":   "dashboards",
	"github.com/go-echarts/go-echarts/v2/types":  "dashboards",
	"github.com/zricethezav/gitleaks/v8/config":  "redact",
	"github.com/zricethezav/gitleaks/v8/detect":  "redact",
	"modernc.org/sqlite":                         "ingest", // agents' SQLite stores, read from a snapshot (ingest/sqlite.go)
}

func TestImportDirection(t *testing.T) {
	root := testutil.RepoRoot()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		ok, known := allowed[rel]
		if !known {
			if !seen[rel] {
				t.Errorf("package %s has no entry in the allowed-imports table: add it deliberately", rel)
				seen[rel] = true
			}
			return nil
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if owner, ok := exclusive[p]; ok && owner != rel {
				t.Errorf("%s imports %s, which only %s may import", path, p, owner)
			}
			if !strings.HasPrefix(p, mod) {
				continue
			}
			dep := strings.TrimPrefix(p, mod)
			found := false
			for _, a := range ok {
				if a == dep {
					found = true
				}
			}
			if !found {
				t.Errorf("%s imports %s: %s may import only %v", path, dep, rel, ok)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
