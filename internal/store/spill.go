package store

import (
	"fmt"
	"path/filepath"
)

// maxSandboxSpill is the most an untrusted query (trajmine sql) may spill
// to disk; DuckDB's own default is 90 % of the free disk.
const maxSandboxSpill = 4 << 30

// sandboxSpill is the max_temp_directory_size of a sandboxed store whose
// database (or temporary directory) is at path: the smaller of
// maxSandboxSpill and a tenth of the disk space free there (free space
// unknown: maxSandboxSpill), in bytes as DuckDB reads a size.
func sandboxSpill(path string) string {
	free, ok := freeBytes(filepath.Dir(path))
	return fmt.Sprintf("%dB", spillCap(free, ok))
}

// spillCap is the spill cap in bytes given the free disk space (known
// says whether it is): the smaller of maxSandboxSpill and free/10, and
// 1 MiB at least (a cap of 0 would read as none).
func spillCap(free uint64, known bool) uint64 {
	limit := uint64(maxSandboxSpill)
	if known {
		limit = min(limit, free/10)
	}
	return max(limit, 1<<20)
}
