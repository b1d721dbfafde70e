package cmd

import (
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/redact"
)

// SQLOptions are the flags of trajmine sql.
type SQLOptions struct {
	Terminal
	Query   string
	Format  string
	Timeout time.Duration
	// NoRedact prints text cells as stored (--no-redact); by default
	// secrets in them are replaced as in trajmine show and the exports.
	NoRedact bool
	Err      io.Writer // the --no-redact warning and the count of secrets replaced
}

// DefaultSQLTimeout caps how long one query of trajmine sql runs: an
// untrusted query such as SELECT count(*) FROM range(1e12) otherwise runs
// until it is killed.
const DefaultSQLTimeout = 2 * time.Minute

// NewSQLCmd builds `trajmine sql`.
func NewSQLCmd(d *Deps, runF func(*SQLOptions) error) *cobra.Command {
	o := &SQLOptions{}
	c := &cobra.Command{
		Use:   "sql [--format table|csv|json] [--timeout D] [--no-redact] QUERY",
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
files; DuckDB may read those files and no other.

The results are redacted as trajmine show and the exports are: secrets in
text cells (API keys, tokens, passwords, passwords in URLs, private keys:
gitleaks' default rules and trajmine's URL rule) are printed as
[REDACTED:<rule>], and how many were replaced is said on stderr. The
query itself sees the text as stored (a WHERE on a key finds it); only
what is printed is redacted. Redaction runs the rules over every text
cell, which costs time on large results. --no-redact prints the cells as
stored, secrets included, and says so on stderr.`,
		Example: `  trajmine sql "SELECT model_family, count(*), sum(output_tokens) FROM runs GROUP BY ALL"
  trajmine sql --format csv "SELECT * FROM tool_outputs ORDER BY est_tokens DESC LIMIT 20"`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			o.Query = args[0]
			o.setTerminal(c, d)
			o.Err = c.ErrOrStderr()
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
	c.Flags().BoolVar(&o.NoRedact, "no-redact", false, "print secrets found in text cells as stored (default: replaced with [REDACTED:<rule>])")
	return c
}

// warnSQLNotRedacted is the one line trajmine sql --no-redact prints on
// stderr, as an export with --no-redact does: what it prints holds the
// secrets of the logs.
func warnSQLNotRedacted(w io.Writer) {
	fmt.Fprintln(w, "warning: sql output is not redacted: its text cells are the log text as imported, secrets included (--no-redact)")
}

func sqlRun(ctx context.Context, db *sql.DB, o *SQLOptions) error {
	var red *redact.Redactor
	if o.NoRedact {
		if o.Err != nil {
			warnSQLNotRedacted(o.Err)
		}
	} else {
		var err error
		if red, err = redact.New(); err != nil {
			return err
		}
	}
	if err := sqlRows(ctx, db, o, red); err != nil {
		return err
	}
	if red != nil && red.Count() > 0 && o.Err != nil {
		// on stderr: stdout is the result (CSV and JSON are read by programs)
		fmt.Fprintf(o.Err, "%s of secrets replaced with [REDACTED:<rule>] (--no-redact keeps them)\n", countOf(red.Count(), "occurrence"))
	}
	return nil
}

// redactCell is a scanned value with the secrets of its text replaced by
// red (nil: kept): text ([]byte included) is redacted whole, before the
// table's cut; a list, struct or map is printed as it would be
// (fmt.Sprint, as cellString and jsonValue print it) and redacted, for
// its elements can be text; numbers, booleans, times and NULL are kept.
func redactCell(v any, red *redact.Redactor) any {
	if red == nil {
		return v
	}
	switch x := v.(type) {
	case nil, bool, time.Time:
		return v
	case string:
		return red.String(x)
	case []byte:
		return red.String(string(x))
	}
	if isNumeric(v) {
		return v
	}
	return red.String(fmt.Sprint(v))
}

func sqlRows(ctx context.Context, db *sql.DB, o *SQLOptions, red *redact.Redactor) error {
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
		for i := range vals {
			vals[i] = redactCell(vals[i], red)
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
