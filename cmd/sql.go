package cmd

import (
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// SQLOptions are the flags of trajmine sql.
type SQLOptions struct {
	Terminal
	Query   string
	Format  string
	Timeout time.Duration
}

// DefaultSQLTimeout caps how long one query of trajmine sql runs: an
// untrusted query such as SELECT count(*) FROM range(1e12) otherwise runs
// until it is killed.
const DefaultSQLTimeout = 2 * time.Minute

// NewSQLCmd builds `trajmine sql`.
func NewSQLCmd(d *Deps, runF func(*SQLOptions) error) *cobra.Command {
	o := &SQLOptions{}
	c := &cobra.Command{
		Use:   "sql [--format table|csv|json] [--timeout D] QUERY",
		Short: "Run a read-only SQL query on the database",
		Long: `Run one SQL query (DuckDB SQL) on the database. Tables: sources, runs,
events, usage, tool_outputs, context_ops, rejects, calibration, and the
analysis tables diag_runs, diag_calls, diag_rent, sim_runs, sim_calls.

The query can read the store's tables and nothing else. The guarantee comes
from DuckDB's own settings, not from inspecting the query: the database is
opened read-only, external access is off (no file, URL or other database can
be read or written: COPY ... TO, EXPORT DATABASE, ATTACH, read_csv('...') and
httpfs all fail), no extension is installed or loaded, and the configuration
is locked (SET, RESET and configuration PRAGMAs fail). DuckDB still lets a
database reach its own file, its WAL and its temporary directory, so the
statement must also be one that only reads, as DuckDB's own parser
classifies it: a SELECT (FROM-first, WITH, VALUES, SHOW, DESCRIBE, SUMMARIZE
and PRAGMA table_info included); COPY, EXPORT, CALL, CHECKPOINT and EXPLAIN
(whose ANALYZE runs the statement) are refused. Exactly one statement is
run: text with several ';'-separated statements is refused. A query stops
after --timeout (default 2m), and its spill to disk is capped (the smaller
of 4 GiB and a tenth of the free disk).

With --lake DIR the tables are views over the lake's committed Parquet
files; DuckDB may read those files and no other.`,
		Example: `  trajmine sql "SELECT model_family, count(*), sum(output_tokens) FROM runs GROUP BY ALL"
  trajmine sql --format csv "SELECT * FROM tool_outputs ORDER BY est_tokens DESC LIMIT 20"`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			o.Query = args[0]
			o.setTerminal(c, d)
			switch o.Format {
			case "table", "csv", "json":
			default:
				return flagErrorf("--format must be table, csv or json, not %q", o.Format)
			}
			if o.Timeout < 0 {
				return flagErrorf("--timeout must not be negative, not %s", o.Timeout)
			}
			if runF != nil {
				return runF(o)
			}
			st, err := d.openSandbox(c.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.CheckQuery(o.Query); err != nil {
				return fmt.Errorf("query: %w", err)
			}
			ctx := c.Context()
			if o.Timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, o.Timeout)
				defer cancel()
			}
			err = sqlRun(ctx, st.DB(), o)
			if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("query: stopped after %s (--timeout; 0 runs without a cap)", o.Timeout)
			}
			return err
		},
	}
	c.Flags().StringVar(&o.Format, "format", "table", "output format: table, csv or json")
	c.Flags().DurationVar(&o.Timeout, "timeout", DefaultSQLTimeout, "stop the query after this long (0: no cap)")
	return c
}

func sqlRun(ctx context.Context, db *sql.DB, o *SQLOptions) error {
	stmt, err := db.PrepareContext(ctx, o.Query)
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	defer stmt.Close()
	rows, err := stmt.QueryContext(ctx)
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var (
		tb  *table
		num []int // per column: 1 numeric values seen, -1 another value (table)
		cw  *csv.Writer
		n   int
		enc = func(v any) string { return cellString(v) }
	)
	switch o.Format {
	case "table":
		tb, num = &table{header: cols}, make([]int, len(cols))
	case "csv":
		cw = csv.NewWriter(o.Out)
		if err := cw.Write(cols); err != nil {
			return err
		}
	case "json":
		fmt.Fprint(o.Out, "[")
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		switch o.Format {
		case "table":
			cells := make([]string, len(vals))
			for i, v := range vals {
				cells[i] = snippet(enc(v), 60)
				switch {
				case v == nil:
				case isNumeric(v):
					num[i] = max(num[i], 1)
				default:
					num[i] = -1
				}
			}
			tb.add(cells...)
		case "csv":
			cells := make([]string, len(vals))
			for i, v := range vals {
				cells[i] = enc(v)
			}
			if err := cw.Write(cells); err != nil {
				return err
			}
		case "json":
			obj := make(map[string]any, len(cols))
			for i, c := range cols {
				obj[c] = jsonValue(vals[i])
			}
			if n > 0 {
				fmt.Fprint(o.Out, ",")
			}
			fmt.Fprint(o.Out, "\n")
			if err := writeJSONCompact(o.Out, obj); err != nil {
				return err
			}
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("query: %w", err)
	}
	switch o.Format {
	case "table":
		// numbers (by their SQL type) right-aligned; a column of NULLs or text left
		tb.right = make([]bool, len(cols))
		for i, x := range num {
			tb.right[i] = x == 1
		}
		return tb.write(o.Out, o.Width, o.Bold)
	case "csv":
		cw.Flush()
		return cw.Error()
	default:
		if n > 0 {
			fmt.Fprint(o.Out, "\n")
		}
		fmt.Fprintln(o.Out, "]")
	}
	return nil
}

// isNumeric reports whether a scanned value is a number: Go's integer and
// float kinds, and DuckDB's HUGEINT (*big.Int) and DECIMAL.
func isNumeric(v any) bool {
	if _, ok := v.(*big.Int); ok {
		return true
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return strings.HasSuffix(fmt.Sprintf("%T", v), ".Decimal")
}

func cellString(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

func jsonValue(v any) any {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case nil, string, bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, int, uint:
		return x
	}
	return fmt.Sprint(v)
}
