package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/trajmine/trajmine/schema"
)

// exportQueries give each table's Parquet export. Every table is partitioned
// by the run's source_format and model_family (Hive layout
// DIR/<table>/source_format=…/model_family=…/*.parquet), joined from runs
// where the table has no such columns, so engines can prune by them:
//
//	COPY (SELECT * FROM runs) TO 'DIR/runs' (FORMAT parquet, PARTITION_BY (source_format, model_family))
//	COPY (SELECT t.*, r.source_format, r.model_family FROM events t JOIN runs r USING (run_id)) TO 'DIR/events' (…)
//
// sources, rejects and outcomes are partitioned by source_format only.
func exportQuery(t schema.Table) (sel string, parts []string) {
	switch t.Name {
	case schema.TableRuns:
		return "SELECT * FROM runs", []string{schema.ColSourceFormat, schema.ColModelFamily}
	case schema.TableSources:
		return "SELECT * FROM sources", []string{schema.ColSourceFormat}
	case schema.TableRejects:
		return "SELECT t.*, coalesce(s.source_format, 'unknown') AS source_format FROM rejects t LEFT JOIN (SELECT DISTINCT source_path, source_format FROM sources) s USING (source_path)", []string{schema.ColSourceFormat}
	case schema.TableOutcomes:
		return "SELECT t.*, coalesce(s.source_format, 'unknown') AS source_format FROM outcomes t LEFT JOIN (SELECT DISTINCT source_path, source_sha256, source_format FROM sources) s USING (source_path, source_sha256)", []string{schema.ColSourceFormat}
	}
	return fmt.Sprintf("SELECT t.*, r.source_format, r.model_family FROM %s t JOIN runs r USING (run_id)", t.Name),
		[]string{schema.ColSourceFormat, schema.ColModelFamily}
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
// returns the number of rows written per table. dir must be empty or
// missing; with overwrite, it may instead hold a previous export, whose
// files (as its manifest lists them) are removed first. Files in dir that no
// export wrote are never removed or overwritten: with them present the
// export is refused, overwrite or not, unless they sit beside a manifest (a
// user's own file dropped into a previous export stays where it is).
func (s *Store) ExportParquet(ctx context.Context, dir string, overwrite bool) (map[string]int64, error) {
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
	out := map[string]int64{}
	for _, t := range schema.Tables {
		sel, parts := exportQuery(t)
		target := filepath.Join(dir, t.Name)
		var n int64
		if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM ("+sel+")").Scan(&n); err != nil {
			return nil, fmt.Errorf("export %s: %w", t.Name, err)
		}
		out[t.Name] = n
		if n == 0 {
			continue // DuckDB writes nothing for an empty partitioned copy
		}
		// OVERWRITE_OR_IGNORE: a table directory left holding a user's file
		// is written into, never cleared (DuckDB's OVERWRITE would clear it)
		q := fmt.Sprintf("COPY (%s) TO '%s' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (%s), OVERWRITE_OR_IGNORE true)",
			sel, strings.ReplaceAll(target, "'", "''"), strings.Join(parts, ", "))
		if _, err := s.db.ExecContext(ctx, q); err != nil {
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
