package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
)

// exportKeptColumns are the text columns an export with Redact copies as
// they are (closed sets and computed values), by hand from the schema's
// column docs; every other VARCHAR column goes through Redact.
var exportKeptColumns = []string{"source_format", "model_family", "source_sha256", "harness", "kind", "end_reason",
	"end_reason_source", "estimator", "classified_by", "action_class", "error_rule", "op", "key_kind"}

// TestExportParquetRedact exports the fixtures twice, as stored and with a
// Redact that marks every value it is given, and reads both back: column by
// column, the values of a redacted column are the stored ones marked (NULL
// stays NULL), those of a kept column the stored ones; the row counts and
// the partition directories are the same.
func TestExportParquetRedact(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	if _, err := ingest.Files(ctx, st, []string{fixtures}, nil); err != nil {
		t.Fatal(err)
	}
	mark := func(s string) string { return "R<" + s + ">" }
	plainDir, redDir := t.TempDir(), t.TempDir()
	plainN, err := st.ExportParquet(ctx, plainDir, store.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	redN, err := st.ExportParquet(ctx, redDir, store.ExportOptions{Redact: mark})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plainN, redN); diff != "" {
		t.Errorf("rows (-plain +redacted):\n%s", diff)
	}
	parts := func(dir string) []string {
		m, err := filepath.Glob(filepath.Join(dir, "*", "*"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range m {
			m[i], _ = filepath.Rel(dir, m[i])
		}
		return m
	}
	if diff := cmp.Diff(parts(plainDir), parts(redDir)); diff != "" {
		t.Errorf("partition directories (-plain +redacted):\n%s", diff)
	}
	redacted := 0
	for _, tb := range schema.Tables {
		if plainN[tb.Name] == 0 {
			continue
		}
		for _, c := range tb.Columns {
			if c.Type != schema.Varchar {
				continue
			}
			t.Run(tb.Name+"."+c.Name, func(t *testing.T) {
				values := func(dir string) []string {
					q := fmt.Sprintf(`SELECT coalesce('v:' || "%s", 'NULL') FROM read_parquet('%s', hive_partitioning = true)`,
						c.Name, filepath.Join(dir, tb.Name, "**", "*.parquet"))
					rows, err := st.DB().QueryContext(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					defer rows.Close()
					var out []string
					for rows.Next() {
						var v string
						if err := rows.Scan(&v); err != nil {
							t.Fatal(err)
						}
						out = append(out, v)
					}
					slices.Sort(out)
					return out
				}
				want := values(plainDir)
				if !slices.Contains(exportKeptColumns, c.Name) {
					redacted++
					for i, v := range want {
						if v != "NULL" {
							want[i] = "v:" + mark(v[len("v:"):])
						}
					}
					slices.Sort(want)
				}
				if diff := cmp.Diff(want, values(redDir)); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
	if redacted == 0 {
		t.Error("no column redacted")
	}
}
