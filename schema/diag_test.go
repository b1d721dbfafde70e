package schema_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/trajmine/trajmine/schema"
)

// TestDiagValuesMatchColumns checks the diagnose tables like the import
// tables: one value per column, of the column's Go type, nil only where
// nullable; and every column documented.
func TestDiagValuesMatchColumns(t *testing.T) {
	w, f, yes := int64(200_000), 0.5, true
	goType := map[schema.ColType]reflect.Type{
		schema.Varchar: reflect.TypeOf(""), schema.BigInt: reflect.TypeOf(int64(0)), schema.Double: reflect.TypeOf(0.0),
		schema.Boolean: reflect.TypeOf(false), schema.Timestamp: reflect.TypeOf(time.Time{}),
	}
	tests := []struct {
		name  string
		table schema.Table
		rec   interface{ Values() []any }
	}{
		{"runs full", schema.DiagRuns, &schema.DiagRun{RunID: "r", WindowTokens: &w, PeakShare: &f, CostUSD: &f, Resolved: &yes}},
		{"runs empty", schema.DiagRuns, &schema.DiagRun{}},
		{"calls full", schema.DiagCalls, &schema.DiagCall{RunID: "r", Share: &f}},
		{"calls empty", schema.DiagCalls, &schema.DiagCall{}},
		{"rent", schema.DiagRent, &schema.DiagRentRow{RunID: "r", Tool: "bash"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vals := tc.rec.Values()
			if len(vals) != len(tc.table.Columns) {
				t.Fatalf("%d values for %d columns", len(vals), len(tc.table.Columns))
			}
			for i, c := range tc.table.Columns {
				if c.Doc == "" {
					t.Errorf("column %s has no Doc", c.Name)
				}
				if vals[i] == nil {
					if !c.Nullable {
						t.Errorf("column %s is NOT NULL but got nil", c.Name)
					}
					continue
				}
				if got := reflect.TypeOf(vals[i]); got != goType[c.Type] {
					t.Errorf("column %s (%s) got %s", c.Name, c.Type, got)
				}
			}
		})
	}
}

func TestDiagTablesApart(t *testing.T) {
	for _, d := range schema.DiagTables {
		if _, ok := schema.TableByName(d.Name); ok {
			t.Errorf("%s is among the import tables", d.Name)
		}
		if !strings.HasPrefix(d.Name, "diag_") || d.Doc == "" {
			t.Errorf("table %q: want a diag_ name and a Doc", d.Name)
		}
	}
}
