package store

// SetLogWindow sets the rowids of EventLog's windows, for tests; restore
// sets it back.
func SetLogWindow(n int64) (restore func()) {
	old := logWindowRows
	logWindowRows = n
	return func() { logWindowRows = old }
}
