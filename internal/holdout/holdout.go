// Package holdout is trajmine's one train/held-out split of runs, shared by
// recommend (whose held-out runs measure its choice) and tracer (whose
// held-out runs evaluate a trained model), so a run recommend holds out is
// never one a model it is given was trained on.
package holdout

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/fnv"
	"slices"
	"strconv"
)

// DefaultEvery holds out every 4th run (by hash, so about 25 % of each
// model family in expectation).
const DefaultEvery = 4

// Rule names the split for a record (a model file): Held(id, every).
func Rule(every uint32) string {
	if every == 0 {
		return "none held out"
	}
	return "held out when FNV-1a-32(run id) mod " + strconv.FormatUint(uint64(every), 10) + " = 0"
}

// Held reports whether the run with this id is held out: FNV-1a-32 of the
// id, mod every, is 0. every 0 holds out nothing; 1 holds out every run.
func Held(id string, every uint32) bool {
	if every == 0 {
		return false
	}
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()%every == 0
}

// Digest is the hex SHA-256 of the ids sorted and each ended by a newline:
// the same set of runs gives the same digest in any order.
func Digest(ids []string) string {
	s := slices.Clone(ids)
	slices.Sort(s)
	h := sha256.New()
	for _, id := range s {
		h.Write([]byte(id))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}
