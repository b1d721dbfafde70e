package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/trajmine/trajmine/schema"
)

// SetTags gives every path (a file or folder, as ingest was given it) the
// tags, replacing a path's earlier value of the same key, in one
// transaction. It creates the tags table when it is missing (schema
// .TagsTable).
//
//	DELETE FROM tags WHERE path = ? AND key = ?; INSERT INTO tags VALUES (?, ?, ?)
func (s *Store) SetTags(ctx context.Context, paths []string, tags []schema.Tag) (err error) {
	if s.readOnly {
		return fmt.Errorf("tag: database %s is open read-only", s.path)
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	if _, err := conn.ExecContext(ctx, schema.TagsTable.CreateTableSQL()); err != nil {
		return fmt.Errorf("create table %s: %w", schema.TableTags, err)
	}
	for _, p := range paths {
		p = filepath.Clean(p)
		for _, t := range tags {
			if _, err := conn.ExecContext(ctx, "DELETE FROM "+schema.TableTags+" WHERE path = ? AND key = ?", p, t.Key); err != nil {
				return fmt.Errorf("tag %s: %w", p, err)
			}
			row := schema.Tag{Path: p, Key: t.Key, Value: t.Value}
			if _, err := conn.ExecContext(ctx, "INSERT INTO "+schema.TableTags+" VALUES (?, ?, ?)", row.Values()...); err != nil {
				return fmt.Errorf("tag %s: %w", p, err)
			}
		}
	}
	_, err = conn.ExecContext(ctx, "COMMIT")
	return err
}

// Tags returns the stored tag rows by path, then key (none when the
// store has no tags table).
func (s *Store) Tags(ctx context.Context) ([]schema.Tag, error) {
	ok, err := s.hasTable(ctx, schema.TableTags)
	if err != nil || !ok {
		return nil, err
	}
	var out []schema.Tag
	err = s.eachRow(ctx, "SELECT path, key, value FROM "+schema.TableTags+" ORDER BY path, key", nil, func(rows rowScanner) error {
		var t schema.Tag
		if err := rows.Scan(&t.Path, &t.Key, &t.Value); err != nil {
			return err
		}
		out = append(out, t)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tags: %w", err)
	}
	return out, nil
}

// RunTags returns each run's tags (run id → key → value), for runs with
// any: a tag row holds for a run whose cleaned source_path is its path or
// under it ("." holds for every relative path); of two rows with one key
// the nearer (longer) path's value wins.
func (s *Store) RunTags(ctx context.Context) (map[string]map[string]string, error) {
	tags, err := s.Tags(ctx)
	if err != nil || len(tags) == 0 {
		return nil, err
	}
	out := map[string]map[string]string{}
	depth := map[[2]string]int{} // run, key → length of the path that gave it
	err = s.eachRow(ctx, "SELECT run_id, source_path FROM "+schema.TableRuns, nil, func(rows rowScanner) error {
		var id, p string
		if err := rows.Scan(&id, &p); err != nil {
			return err
		}
		p = filepath.Clean(p)
		for _, t := range tags {
			if !under(p, t.Path) {
				continue
			}
			k := [2]string{id, t.Key}
			if d, ok := depth[k]; ok && d >= len(t.Path) {
				continue
			}
			depth[k] = len(t.Path)
			if out[id] == nil {
				out[id] = map[string]string{}
			}
			out[id][t.Key] = t.Value
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("run tags: %w", err)
	}
	return out, nil
}

// under reports whether the cleaned path p is dir or lies under it.
func under(p, dir string) bool {
	switch {
	case p == dir:
		return true
	case dir == ".":
		return !filepath.IsAbs(p) && p != ".." && !strings.HasPrefix(p, ".."+string(filepath.Separator))
	case dir == string(filepath.Separator):
		return filepath.IsAbs(p)
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}
