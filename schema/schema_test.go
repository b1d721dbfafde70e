package schema_test

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/trajmine/trajmine/schema"
)

// valuer is implemented by every record type.
type valuer interface{ Values() []any }

// TestValuesMatchColumns checks the one-definition rule: each record's Values
// has one value per column, of the column's Go type (or nil where nullable).
func TestValuesMatchColumns(t *testing.T) {
	now := time.Unix(1700000000, 0)
	one, yes, f := int64(1), true, 1.5
	full := map[string]valuer{
		schema.TableSources:     &schema.Source{Path: "p", IngestedAt: now},
		schema.TableRuns:        &schema.Run{RunID: "r", ParentRunID: "p", Resolved: &yes, WindowTokens: &one, StartedAt: &now, EndedAt: &now, CostUSD: &f},
		schema.TableEvents:      &schema.Event{RunID: "r", TS: &now, ExitCode: &one},
		schema.TableUsage:       &schema.Usage{RunID: "r", TS: &now},
		schema.TableToolOutputs: &schema.ToolOutput{RunID: "r", ToolKey: "k"},
		schema.TableContextOps:  &schema.ContextOp{RunID: "r", ToolKey: "k", TokensBefore: &one, TokensAfter: &one},
		schema.TableRejects:     &schema.Reject{SourcePath: "p"},
		schema.TableOutcomes:    &schema.Outcome{SourcePath: "p", KeyKind: schema.KeyTaskID, Key: "k", Resolved: &yes, Score: &f},
	}
	empty := map[string]valuer{
		schema.TableRuns:       &schema.Run{},
		schema.TableEvents:     &schema.Event{},
		schema.TableContextOps: &schema.ContextOp{},
		schema.TableOutcomes:   &schema.Outcome{},
	}
	goType := map[schema.ColType]reflect.Type{
		schema.Varchar: reflect.TypeOf(""), schema.BigInt: reflect.TypeOf(int64(0)), schema.Double: reflect.TypeOf(0.0),
		schema.Boolean: reflect.TypeOf(false), schema.Timestamp: reflect.TypeOf(time.Time{}),
	}
	for _, tbl := range schema.Tables {
		t.Run(tbl.Name, func(t *testing.T) {
			for name, rec := range map[string]valuer{"full": full[tbl.Name], "empty": empty[tbl.Name]} {
				if rec == nil {
					continue
				}
				vals := rec.Values()
				if len(vals) != len(tbl.Columns) {
					t.Fatalf("%s: %d values for %d columns", name, len(vals), len(tbl.Columns))
				}
				for i, c := range tbl.Columns {
					if vals[i] == nil {
						if !c.Nullable {
							t.Errorf("%s: column %s is NOT NULL but got nil", name, c.Name)
						}
						continue
					}
					if got := reflect.TypeOf(vals[i]); got != goType[c.Type] {
						t.Errorf("%s: column %s (%s) got %s", name, c.Name, c.Type, got)
					}
				}
			}
		})
	}
}

func TestDDLAndArrowFromOneDefinition(t *testing.T) {
	for _, tbl := range schema.Tables {
		ddl := tbl.CreateTableSQL()
		as := tbl.ArrowSchema()
		if as.NumFields() != len(tbl.Columns) {
			t.Errorf("%s: arrow has %d fields, table %d columns", tbl.Name, as.NumFields(), len(tbl.Columns))
		}
		for i, c := range tbl.Columns {
			if !strings.Contains(ddl, "  "+c.Name+" "+c.Type.String()) {
				t.Errorf("%s: DDL lacks column %s %s", tbl.Name, c.Name, c.Type)
			}
			if f := as.Field(i); f.Name != c.Name || f.Nullable != c.Nullable {
				t.Errorf("%s: arrow field %d = %s nullable=%v, want %s nullable=%v", tbl.Name, i, f.Name, f.Nullable, c.Name, c.Nullable)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	neg := int64(-1)
	yes, half, nan := true, 0.5, math.NaN()
	tests := []struct {
		name string
		rec  any
		ok   bool
	}{
		{"run ok", &schema.Run{RunID: "r", EndReason: schema.EndFinished, EndReasonSource: schema.SourceInferred}, true},
		{"run no id", &schema.Run{EndReason: schema.EndFinished, EndReasonSource: schema.SourceInferred}, false},
		{"run bad reason", &schema.Run{RunID: "r", EndReason: "died", EndReasonSource: schema.SourceInferred}, false},
		{"run bad window", &schema.Run{RunID: "r", EndReason: schema.EndUnknown, EndReasonSource: schema.SourceExplicit, WindowTokens: &neg}, false},
		{"event ok", &schema.Event{RunID: "r", Kind: schema.KindToolResult}, true},
		{"event bad kind", &schema.Event{RunID: "r", Kind: "tool"}, false},
		{"event negative", &schema.Event{RunID: "r", Kind: schema.KindUser, Chars: -1}, false},
		{"usage cache exceeds input", &schema.Usage{RunID: "r", InputTokens: 10, CacheReadTokens: 11}, false},
		{"usage ok", &schema.Usage{RunID: "r", InputTokens: 10, CacheReadTokens: 4, CacheWriteTokens: 6}, true},
		{"op disable without key", &schema.ContextOp{RunID: "r", Op: schema.OpDisable}, false},
		{"op compaction", &schema.ContextOp{RunID: "r", Op: schema.OpCompaction}, true},
		{"op unknown", &schema.ContextOp{RunID: "r", Op: "forget"}, false},
		{"tool output no key", &schema.ToolOutput{RunID: "r"}, false},
		{"reject ok", &schema.Reject{SourcePath: "f", Reason: "bad"}, true},
		{"outcome ok", &schema.Outcome{SourcePath: "f", KeyKind: schema.KeyTaskID, Key: "k", Resolved: &yes}, true},
		{"outcome score only", &schema.Outcome{SourcePath: "f", KeyKind: schema.KeyPath, Key: "k", Score: &half}, true},
		{"outcome no outcome", &schema.Outcome{SourcePath: "f", KeyKind: schema.KeyRunID, Key: "k"}, false},
		{"outcome bad kind", &schema.Outcome{SourcePath: "f", KeyKind: "id", Key: "k", Resolved: &yes}, false},
		{"outcome no key", &schema.Outcome{SourcePath: "f", KeyKind: schema.KeyRunID, Resolved: &yes}, false},
		{"outcome NaN score", &schema.Outcome{SourcePath: "f", KeyKind: schema.KeyRunID, Key: "k", Score: &nan}, false},
		{"unsupported", 42, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := schema.Validate(tc.rec)
			if (err == nil) != tc.ok {
				t.Errorf("Validate = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func ExampleTable_CreateTableSQL() {
	fmt.Println(schema.Rejects.CreateTableSQL())
	// Output:
	// CREATE TABLE IF NOT EXISTS rejects (
	//   source_path VARCHAR NOT NULL,
	//   line BIGINT NOT NULL,
	//   reason VARCHAR NOT NULL,
	//   raw VARCHAR NOT NULL
	// );
}

// TestUsageValuesOfCopy: a copy's tokens (CopyOf set) are stored in the
// copied_* columns and its counted ones are 0, so sums over the table
// count the response once; an original's are where they were.
func TestUsageValuesOfCopy(t *testing.T) {
	tokens := []string{"input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens"}
	tests := []struct {
		name            string
		copyOf          string
		counted, copied []int64
		mark            any
	}{
		{"original", "", []int64{10, 2, 3, 4, 1}, []int64{0, 0, 0, 0, 0}, nil},
		{"copy", "a", []int64{0, 0, 0, 0, 0}, []int64{10, 2, 3, 4, 1}, "a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := &schema.Usage{RunID: "b", InputTokens: 10, OutputTokens: 2, CacheReadTokens: 3, CacheWriteTokens: 4, ReasoningTokens: 1, CopyOf: tc.copyOf}
			got := map[string]any{}
			for i, c := range schema.UsageTable.ColumnNames() {
				got[c] = u.Values()[i]
			}
			for i, c := range tokens {
				if got[c] != tc.counted[i] || got["copied_"+c] != tc.copied[i] {
					t.Errorf("%s = %v, copied_%s = %v; want %d, %d", c, got[c], c, got["copied_"+c], tc.counted[i], tc.copied[i])
				}
			}
			if got["copy_of_run_id"] != tc.mark {
				t.Errorf("copy_of_run_id = %v, want %v", got["copy_of_run_id"], tc.mark)
			}
		})
	}
}

// TestRunValuesOutcome: an importer's run (OutcomeSource "") stores its
// Resolved as the log's own outcome; a run the store gave an outcome keeps
// its LogResolved and source.
func TestRunValuesOutcome(t *testing.T) {
	yes, no, score := true, false, 0.5
	tests := []struct {
		name                 string
		run                  schema.Run
		resolved, src, logRs any
	}{
		{"no outcome", schema.Run{RunID: "r"}, nil, nil, nil},
		{"log states one", schema.Run{RunID: "r", Resolved: &yes}, true, "log", true},
		{"outcome file", schema.Run{RunID: "r", Resolved: &no, Score: &score, OutcomeSource: "report.json:1", LogResolved: &yes}, false, "report.json:1", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]any{}
			for i, c := range schema.Runs.ColumnNames() {
				got[c] = tc.run.Values()[i]
			}
			if got["resolved"] != tc.resolved || got["outcome_source"] != tc.src || got["log_resolved"] != tc.logRs {
				t.Errorf("resolved, outcome_source, log_resolved = %v, %v, %v; want %v, %v, %v",
					got["resolved"], got["outcome_source"], got["log_resolved"], tc.resolved, tc.src, tc.logRs)
			}
		})
	}
}
