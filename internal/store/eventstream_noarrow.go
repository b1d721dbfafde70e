//go:build !duckdb_arrow

package store

// arrowReader is nil without -tags duckdb_arrow: the Arrow interface of
// duckdb-go is behind that build tag.
var arrowReader rowReader
