package store

import (
	"errors"
	"fmt"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// CheckQuery says whether query may run as an untrusted query (trajmine
// sql): exactly one statement, and that statement one that only reads —
// DuckDB's own parser and binder classify it as a SELECT, which covers
// FROM-first queries, WITH, VALUES, set operations, SHOW, DESCRIBE,
// SUMMARIZE and the table-valued PRAGMAs (table_info, database_size …).
//
// The sandbox's settings (sandboxOptions) stop most writes by themselves,
// but not all: DuckDB always lets a database reach its own file, its WAL
// (.wal, .wal.checkpoint, .wal.recovery) and its temporary directory, so a
// COPY … TO the store's own file with USE_TMP_FILE false overwrote the
// store (issue 31). A statement of any other type is refused before it
// runs: COPY, EXPORT, ATTACH, CHECKPOINT, CALL, SET, PRAGMA statements
// that change state, and EXPLAIN (EXPLAIN ANALYZE runs the statement it
// explains). The refusal names the statement's type.
//
// A query DuckDB cannot parse or bind returns DuckDB's own error.
func (s *Store) CheckQuery(query string) error {
	conn, err := s.rawConn("check statement")
	if err != nil {
		return err
	}
	defer mapping.Disconnect(&conn)
	var stmts mapping.ExtractedStatements
	n := mapping.ExtractStatements(conn, query, &stmts)
	defer mapping.DestroyExtracted(&stmts)
	if n == 0 {
		if msg := mapping.ExtractStatementsError(stmts); msg != "" {
			return errors.New(msg)
		}
	}
	if n != 1 {
		return fmt.Errorf("%d statements; exactly one is run", n)
	}
	var prep mapping.PreparedStatement
	state := mapping.PrepareExtractedStatement(conn, stmts, 0, &prep)
	defer mapping.DestroyPrepare(&prep)
	if state == mapping.StateError {
		// PreparedStatementType must not be asked of a failed
		// preparation: DuckDB aborts the process
		return errors.New(mapping.PrepareError(prep))
	}
	if t := mapping.PreparedStatementType(prep); t != mapping.StatementTypeSelect {
		return fmt.Errorf("%s is refused: only a query that reads is run (SELECT, FROM, WITH, SHOW, DESCRIBE, SUMMARIZE, PRAGMA table_info …)", statementTypeName(t))
	}
	return nil
}

// statementTypeName is the SQL keyword of a statement type, for messages.
func statementTypeName(t mapping.StatementType) string {
	switch t {
	case mapping.StatementTypeInsert:
		return "INSERT"
	case mapping.StatementTypeUpdate:
		return "UPDATE"
	case mapping.StatementTypeExplain:
		return "EXPLAIN"
	case mapping.StatementTypeDelete:
		return "DELETE"
	case mapping.StatementTypePrepare:
		return "PREPARE"
	case mapping.StatementTypeCreate, mapping.StatementTypeCreateFunc:
		return "CREATE"
	case mapping.StatementTypeExecute:
		return "EXECUTE"
	case mapping.StatementTypeAlter:
		return "ALTER"
	case mapping.StatementTypeTransaction:
		return "a transaction statement"
	case mapping.StatementTypeCopy:
		return "COPY"
	case mapping.StatementTypeAnalyze:
		return "ANALYZE"
	case mapping.StatementTypeVariableSet, mapping.StatementTypeSet:
		return "SET"
	case mapping.StatementTypeDrop:
		return "DROP"
	case mapping.StatementTypeExport:
		return "EXPORT"
	case mapping.StatementTypePragma:
		return "PRAGMA"
	case mapping.StatementTypeVacuum:
		return "VACUUM"
	case mapping.StatementTypeCall:
		return "CALL"
	case mapping.StatementTypeLoad:
		return "INSTALL or LOAD"
	case mapping.StatementTypeExtension:
		return "an extension statement"
	case mapping.StatementTypeAttach:
		return "ATTACH"
	case mapping.StatementTypeDetach:
		return "DETACH"
	}
	return fmt.Sprintf("a statement of type %d", t)
}
