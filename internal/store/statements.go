package store

import (
	"fmt"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// Statements returns how many SQL statements DuckDB's own parser finds in
// query (database/sql's Prepare in duckdb-go executes every statement but
// the last, so a caller that must run exactly one counts them first). A
// query DuckDB cannot parse returns its parser error; an empty one, 0.
func (s *Store) Statements(query string) (int, error) {
	conn, err := s.rawConn("count statements")
	if err != nil {
		return 0, err
	}
	defer mapping.Disconnect(&conn)
	var stmts mapping.ExtractedStatements
	n := mapping.ExtractStatements(conn, query, &stmts)
	defer mapping.DestroyExtracted(&stmts)
	if n == 0 {
		if msg := mapping.ExtractStatementsError(stmts); msg != "" {
			return 0, fmt.Errorf("%s", msg)
		}
	}
	return int(n), nil
}
