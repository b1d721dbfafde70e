//go:build !unix

package ingest

// openNonblock is 0 where opening a file never waits for a writer.
const openNonblock = 0
