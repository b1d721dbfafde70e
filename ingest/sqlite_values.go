package ingest

import (
	"context"
	"database/sql"
	"math"
	"strconv"
	"strings"
	"time"
)

// A SQLite column holds whatever was written into it, whatever its declared
// type (the driver also returns a time.Time for a TIMESTAMP column whose
// text parses as one), so the store importers scan every value into an any
// and read it with these: a value of another type than expected reads as
// absent (ok false), never as an error.

// dbText is a value as text: a string or blob as it is, a number in
// decimal, a time in RFC 3339, NULL as "".
func dbText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	}
	return ""
}

// dbInt is an integer value: an integer, a whole float, or text holding one.
func dbInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<62 {
			return int64(x), true
		}
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case string, []byte:
		n, err := strconv.ParseInt(strings.TrimSpace(dbText(x)), 10, 64)
		return n, err == nil
	}
	return 0, false
}

// dbCount is a token count: an integer value, 0 when absent.
func dbCount(v any) int64 {
	n, _ := dbInt(v)
	return n
}

// dbFloat is a number value: a float, an integer, or text holding one; NaN
// and infinities read as absent.
func dbFloat(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int64:
		f = float64(x)
	case string, []byte:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(dbText(x)), 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// dbTime is a time value: a time, Unix seconds or milliseconds, or text
// ParseTime reads; nil when absent.
func dbTime(v any) *time.Time {
	switch x := v.(type) {
	case time.Time:
		if x.IsZero() {
			return nil
		}
		t := x.UTC()
		return &t
	case int64:
		return ParseTime(x)
	case float64:
		return ParseTime(x)
	case string, []byte:
		return ParseTime(dbText(x))
	}
	return nil
}

// scanTable runs query (reading table) on db and calls fn with each row's
// values (see dbText and the others), in a slice fn must not keep. An
// error of the database (a damaged file) is positioned at the table
// (queryErr); fn's errors are returned as they are.
func (f *File) scanTable(db *sql.DB, table, query string, args []any, fn func(vals []any) error) error {
	rows, err := db.QueryContext(f.ctx(), query, args...)
	if err != nil {
		return queryErr(f, table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return queryErr(f, table, err)
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		clear(vals)
		if err := rows.Scan(ptrs...); err != nil {
			return queryErr(f, table, err)
		}
		if err := fn(vals); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return queryErr(f, table, err)
	}
	return nil
}

// ctx is the import's context (Background when none was set).
func (f *File) ctx() context.Context {
	if f.Ctx != nil {
		return f.Ctx
	}
	return context.Background()
}
