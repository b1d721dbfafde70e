// Package store is trajmine's DuckDB layer and the only package that imports
// the DuckDB driver (github.com/duckdb/duckdb-go/v2). It creates the tables
// from schema's definitions, implements ingest.Sink with one transaction and
// one set of Appenders per file (so parallel files load concurrently and a
// failed file leaves nothing behind), and answers the queries the commands
// need, returning schema types. After every import it marks the usage rows
// a resumed session copies (MarkCopies, continuations.go) and gives the runs
// their outcomes from the outcome files stored (ApplyOutcomes, outcomes.go).
//
// The database is one file (default ./trajmine.duckdb); "" opens an in-memory
// database (tests).
package store
