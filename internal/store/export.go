package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/trajmine/trajmine/schema"
)

// exportQuery gives each table's Parquet export. Every table is partitioned
// by the run's source_format and model_family (Hive layout
// DIR/<table>/source_format=…/model_family=…/*.parquet), joined from runs
// where the table has no such columns, so engines can prune by them:
//
//	COPY (SELECT t.* FROM runs t) TO 'DIR/runs' (FORMAT parquet, PARTITION_BY (source_format, model_family))
//	COPY (SELECT t.*, r.source_format, r.model_family FROM events t JOIN runs r USING (run_id)) TO 'DIR/events' (…)
//
// sources, rejects and outcomes are partitioned by source_format only.
//
// star is the table's columns after "t.": "*", or with redaction
// "* REPLACE (f(t.run_id) AS run_id, …)" (exportStar).
func exportQuery(t schema.Table, star string) (sel string, parts []string) {
	switch t.Name {
	case schema.TableRuns:
		return "SELECT t." + star + " FROM runs t", []string{schema.ColSourceFormat, schema.ColModelFamily}
	case schema.TableSources:
		return "SELECT t." + star + " FROM sources t", []string{schema.ColSourceFormat}
	case schema.TableRejects:
		return "SELECT t." + star + ", coalesce(s.source_format, 'unknown') AS source_format FROM rejects t LEFT JOIN (SELECT DISTINCT source_path, source_format FROM sources) s USING (source_path)", []string{schema.ColSourceFormat}
	case schema.TableOutcomes:
		return "SELECT t." + star + ", coalesce(s.source_format, 'unknown') AS source_format FROM outcomes t LEFT JOIN (SELECT DISTINCT source_path, source_sha256, source_format FROM sources) s USING (source_path, source_sha256)", []string{schema.ColSourceFormat}
	}
	return fmt.Sprintf("SELECT t.%s, r.source_format, r.model_family FROM %s t JOIN runs r USING (run_id)", star, t.Name),
		[]string{schema.ColSourceFormat, schema.ColModelFamily}
}

// exportKept are the text columns an export copies as they are when it
// redacts: values trajmine sets from a closed set or computes, never log
// text (the partition columns among them, which name the directories).
// Every other VARCHAR column of a table, a column added later included,
// is redacted.
var exportKept = map[string]bool{
	schema.ColSourceFormat: true, // an importer's name
	schema.ColModelFamily:  true, // normalised from the model's name
	schema.ColSourceSHA256: true, // a hash
	"harness":              true, // set by the importer
	"kind":                 true, // events: the event kinds
	"end_reason":           true, // schema.EndReason values
	"end_reason_source":    true, // explicit or inferred
	"estimator":            true, // the token estimator's name
	"classified_by":        true, // the classifier's fingerprint
	"action_class":         true, // the classifier's classes
	"error_rule":           true, // actions.FailureRules names
	"op":                   true, // context_ops: the op kinds
	"key_kind":             true, // outcomes: run_id, task_id, path or scope
}

// exportStar is the select list of table name (aliased t) with
// redaction: every VARCHAR column not in exportKept passed through the
// function fn, "* REPLACE (fn(t.c1) AS c1, …)"; "*" when
// no column is to be redacted. The columns are the table's as stored
// (DESCRIBE), so a store from an older version exports what it has.
func exportStar(ctx context.Context, conn *sql.Conn, table, fn string) (string, error) {
	rows, err := conn.QueryContext(ctx, "SELECT column_name, column_type FROM (DESCRIBE "+table+")")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var repl []string
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return "", err
		}
		if typ == "VARCHAR" && !exportKept[name] {
			q := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
			repl = append(repl, fn+"(t."+q+") AS "+q)
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if len(repl) == 0 {
		return "*", nil
	}
	return "* REPLACE (" + strings.Join(repl, ", ") + ")", nil
}

// redactUDF is a DuckDB scalar function VARCHAR → VARCHAR that calls f
// (NULL stays NULL). DuckDB may call it from several threads at once.
type redactUDF struct{ f func(string) string }

func (u *redactUDF) Config() duckdb.ScalarFuncConfig {
	v, _ := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	return duckdb.ScalarFuncConfig{InputTypeInfos: []duckdb.TypeInfo{v}, ResultTypeInfo: v}
}

func (u *redactUDF) Executor() duckdb.ScalarFuncExecutor {
	return duckdb.ScalarFuncExecutor{RowExecutor: func(vals []driver.Value) (any, error) {
		s, _ := vals[0].(string)
		return u.f(s), nil
	}}
}

// udfSeq numbers the redaction functions: each export registers its own.
var udfSeq atomic.Int64

// ExportOptions configures ExportParquet.
type ExportOptions struct {
	// Overwrite lets the directory hold a previous export, whose files
	// are removed first.
	Overwrite bool
	// Redact, when set, is applied to every text value the export writes
	// but those of the columns in exportKept (closed sets and computed
	// values): log text, ids, paths and names. It must be safe for
	// concurrent use, and map equal text to equal text, so that the ids
	// still join the tables. nil writes the tables as they are stored.
	Redact func(string) string
}

// ExportManifest is the file, in an export's directory, that lists what
// the export wrote: a later export with overwrite removes exactly those
// files (and the directories it made that are then empty), nothing else.
const ExportManifest = ".trajmine-export.json"

// manifest is ExportManifest's content.
type manifest struct {
	Tool  string   `json:"tool"`  // "trajmine export parquet"
	Files []string `json:"files"` // slash-separated, relative to the directory
	Dirs  []string `json:"dirs"`  // directories the export created, deepest first
}

// ErrExportNotEmpty is returned by ExportParquet for a directory that holds
// files and overwrite was not asked for, or that holds files no export
// wrote (no manifest): nothing in it is touched.
var ErrExportNotEmpty = errors.New("export directory is not empty")

// ExportParquet writes every table to dir as Hive-partitioned Parquet and
// returns the number of rows written per table, its text passed through
// o.Redact when set (the columns exportKept names aside). dir must be
// empty or missing; with o.Overwrite, it may instead hold a previous
// export, whose files (as its manifest lists them) are removed first.
// Files in dir that no export wrote are never removed or overwritten:
// with them present the export is refused, overwrite or not, unless they
// sit beside a manifest (a user's own file dropped into a previous export
// stays where it is).
func (s *Store) ExportParquet(ctx context.Context, dir string, o ExportOptions) (map[string]int64, error) {
	overwrite := o.Overwrite
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("export: %w", err)
	}
	if len(entries) > 0 {
		prev, err := readManifest(dir)
		if err != nil {
			return nil, err
		}
		if !overwrite {
			return nil, fmt.Errorf("export: %s: %w (it holds a previous export: --overwrite replaces the files that export wrote)", dir, ErrExportNotEmpty)
		}
		if err := removeExport(dir, prev); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if err := refuseLinks(dir); err != nil {
		return nil, err
	}
	before, err := listTree(dir)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	// one connection: the redaction function is registered on it
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	defer conn.Close()
	fn := ""
	if o.Redact != nil {
		fn = fmt.Sprintf("trajmine_redact_%d", udfSeq.Add(1))
		if err := duckdb.RegisterScalarUDF(conn, fn, &redactUDF{o.Redact}); err != nil {
			return nil, fmt.Errorf("export: register the redaction: %w", err)
		}
	}
	out := map[string]int64{}
	for _, t := range schema.Tables {
		plain, _ := exportQuery(t, "*")
		var n int64
		if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM ("+plain+")").Scan(&n); err != nil {
			return nil, fmt.Errorf("export %s: %w", t.Name, err)
		}
		out[t.Name] = n
		if n == 0 {
			continue // DuckDB writes nothing for an empty partitioned copy
		}
		star := "*"
		if fn != "" {
			if star, err = exportStar(ctx, conn, t.Name, fn); err != nil {
				return nil, fmt.Errorf("export %s: %w", t.Name, err)
			}
		}
		sel, parts := exportQuery(t, star)
		target := filepath.Join(dir, t.Name)
		// OVERWRITE_OR_IGNORE: a table directory left holding a user's file
		// is written into, never cleared (DuckDB's OVERWRITE would clear it)
		q := fmt.Sprintf("COPY (%s) TO '%s' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (%s), OVERWRITE_OR_IGNORE true)",
			sel, strings.ReplaceAll(target, "'", "''"), strings.Join(parts, ", "))
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("export %s: %w", t.Name, err)
		}
	}
	after, err := listTree(dir)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	m := manifest{Tool: "trajmine export parquet", Files: []string{}, Dirs: []string{}}
	for p, isDir := range after {
		if _, old := before[p]; old {
			continue
		}
		if isDir {
			m.Dirs = append(m.Dirs, p)
		} else {
			m.Files = append(m.Files, p)
		}
	}
	sort.Strings(m.Files)
	sort.Slice(m.Dirs, func(i, j int) bool {
		return len(m.Dirs[i]) > len(m.Dirs[j]) || len(m.Dirs[i]) == len(m.Dirs[j]) && m.Dirs[i] < m.Dirs[j]
	})
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	tmp := filepath.Join(dir, ExportManifest+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, ExportManifest)); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return out, nil
}

// readManifest reads dir's manifest; a directory with files but none is
// refused. Every listed path must lie inside dir.
func readManifest(dir string) (*manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ExportManifest))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("export: %s: %w and holds files no trajmine export wrote (no %s): choose an empty or new directory", dir, ErrExportNotEmpty, ExportManifest)
	}
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("export: %s: %v", filepath.Join(dir, ExportManifest), err)
	}
	for _, p := range append(append([]string{}, m.Files...), m.Dirs...) {
		if p == "" || !filepath.IsLocal(filepath.FromSlash(p)) {
			return nil, fmt.Errorf("export: %s: path %q is not inside the directory", filepath.Join(dir, ExportManifest), p)
		}
	}
	return &m, nil
}

// removeExport removes the files a previous export wrote, then the
// directories it created if they are empty, then its manifest. Every
// removal goes through an os.Root on dir, so a path whose directory was
// replaced by a symbolic link to a place outside dir is not followed
// there (issue 31.3): such a path is left alone, and the link itself is
// refused afterwards by refuseLinks.
func removeExport(dir string, m *manifest) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer root.Close()
	for _, p := range m.Files {
		err := root.Remove(filepath.FromSlash(p))
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !escapes(err) {
			return fmt.Errorf("export: remove previous export: %w", err)
		}
	}
	for _, p := range m.Dirs { // deepest first; one still holding a file stays
		_ = root.Remove(filepath.FromSlash(p))
	}
	if err := root.Remove(ExportManifest); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("export: remove previous manifest: %w", err)
	}
	return nil
}

// escapes says whether err is os.Root's refusal of a path that leaves it.
func escapes(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes from parent")
}

// refuseLinks refuses a tree that holds a symbolic link: DuckDB's COPY
// writes through one, so a link where an export writes (a table's or a
// partition's directory) would put its files, or overwrite others,
// outside dir.
func refuseLinks(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("export: %s is a symbolic link: an export writes only into real directories (remove it, or choose another DIR)", p)
		}
		return nil
	})
}

// listTree maps every path under dir (slash-separated, relative) to whether
// it is a directory.
func listTree(dir string) (map[string]bool, error) {
	out := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = d.IsDir()
		return nil
	})
	return out, err
}
