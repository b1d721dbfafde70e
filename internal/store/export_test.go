package store

// SetLogRange sets the rowids of EventStream's ranges, for tests; restore
// sets it back.
func SetLogRange(n int64) (restore func()) {
	old := logRangeRows
	logRangeRows = n
	return func() { logRangeRows = old }
}

// SetScanChunk sets the rowids of Scan's ranges, for tests; restore sets
// it back.
func SetScanChunk(n int64) (restore func()) {
	old := scanChunk
	scanChunk = n
	return func() { scanChunk = old }
}

// SetScanViaChunks sets whether Scan reads events through DuckDB's C API
// (readEventChunks) or the driver's rows, for tests; restore sets it back.
func SetScanViaChunks(on bool) (restore func()) {
	old := scanViaChunks
	scanViaChunks = on
	return func() { scanViaChunks = old }
}
