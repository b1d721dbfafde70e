package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/trajmine/trajmine/schema"
)

// Derived is one table of analysis results (diagnose, simulate) to replace.
type Derived struct {
	Table schema.Table
	// Where limits the rows deleted before the new ones are appended (a SQL
	// boolean expression over the table's columns, with ? placeholders bound
	// to Args); "" deletes every row.
	Where string
	Args  []any
	// Rows appends the new rows through add, one call per row, values in the
	// table's column order (as schema's Values methods give them).
	Rows func(add func(vals ...any) error) error
}

// WriteDerived replaces analysis results: for each table, in one
// transaction, it creates the table if needed (from its schema definition),
// deletes the rows Where selects and appends the new rows with an Appender.
// Either every table is replaced or, on error, none is.
func (s *Store) WriteDerived(ctx context.Context, tables ...Derived) (err error) {
	if s.readOnly {
		return fmt.Errorf("write results: database %s is open read-only", s.path)
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
	for _, d := range tables {
		if _, err := conn.ExecContext(ctx, d.Table.CreateTableSQL()); err != nil {
			return fmt.Errorf("create table %s: %w", d.Table.Name, err)
		}
		if err := addMissingDerivedColumns(ctx, conn, d.Table); err != nil {
			return err
		}
		del := "DELETE FROM " + d.Table.Name
		if d.Where != "" {
			del += " WHERE " + d.Where
		}
		if _, err := conn.ExecContext(ctx, del, d.Args...); err != nil {
			return fmt.Errorf("clear %s: %w", d.Table.Name, err)
		}
		var app *duckdb.Appender
		if err := conn.Raw(func(dc any) error {
			var err error
			app, err = duckdb.NewAppenderFromConn(dc.(driver.Conn), "", d.Table.Name)
			return err
		}); err != nil {
			return fmt.Errorf("appender for %s: %w", d.Table.Name, err)
		}
		ncol := len(d.Table.Columns)
		dv := make([]driver.Value, ncol)
		n := 0
		rowErr := d.Rows(func(vals ...any) error {
			if len(vals) != ncol {
				return fmt.Errorf("%s: row has %d values, table has %d columns", d.Table.Name, len(vals), ncol)
			}
			for i, v := range vals {
				dv[i] = v
			}
			n++
			if n&4095 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			return app.AppendRow(dv...)
		})
		closeErr := app.Close()
		if rowErr != nil {
			return fmt.Errorf("write %s: %w", d.Table.Name, rowErr)
		}
		if closeErr != nil {
			return fmt.Errorf("flush %s: %w", d.Table.Name, closeErr)
		}
	}
	_, err = conn.ExecContext(ctx, "COMMIT")
	return err
}

// addMissingDerivedColumns adds to a derived table written by an earlier
// version the columns added to its schema since (at the end, as
// addMissingColumns does for the import tables), so that the appender's
// column count matches.
func addMissingDerivedColumns(ctx context.Context, conn *sql.Conn, t schema.Table) error {
	rows, err := conn.QueryContext(ctx, "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ?", t.Name)
	if err != nil {
		return fmt.Errorf("read columns of %s: %w", t.Name, err)
	}
	have := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			rows.Close()
			return fmt.Errorf("read columns of %s: %w", t.Name, err)
		}
		have[c] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read columns of %s: %w", t.Name, err)
	}
	for _, c := range t.Columns {
		if have[c.Name] {
			continue
		}
		if _, err := conn.ExecContext(ctx, "ALTER TABLE "+t.Name+" ADD COLUMN "+c.Name+" "+c.Type.String()); err != nil {
			return fmt.Errorf("add column %s.%s: %w", t.Name, c.Name, err)
		}
	}
	return nil
}
