package store

import (
	"context"
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
