package ingest

import "strconv"

// RunIDProbe picks the id under which a run is stored when the log's own id
// is taken: id, then id@<sha8>, id@<sha8>.2, id@<sha8>.3, … (sha8: the
// first 8 hex digits of the file's sha256). It remembers, per id and file,
// where the last search ended, so a file whose N runs share one id costs
// O(N) probes in all rather than O(N²) (issue 19: 100,000 samples with one
// id in an .eval did not finish in 900 s). The zero value is ready to use;
// it is not safe for concurrent use.
type RunIDProbe struct {
	next map[string]int // id + "\x00" + sha8 → first index not yet tried
}

// Candidate returns the i-th id tried for id (i = 0 is id itself).
func Candidate(id, sha8 string, i int) string {
	switch i {
	case 0:
		return id
	case 1:
		return id + "@" + sha8
	}
	return id + "@" + sha8 + "." + strconv.Itoa(i)
}

// Claim returns the first candidate for id that taken says is free,
// resuming after the candidates tried for id by earlier calls. A candidate
// skipped once is never offered again by this probe, even if it is freed
// later (another file's transaction rolled back): ids stay unique, at worst
// with a larger suffix.
func (p *RunIDProbe) Claim(id, sha string, taken func(cand string) (bool, error)) (string, error) {
	sha8 := sha[:min(8, len(sha))]
	key := id + "\x00" + sha8
	if p.next == nil {
		p.next = map[string]int{}
	}
	for i := p.next[key]; ; i++ {
		cand := Candidate(id, sha8, i)
		busy, err := taken(cand)
		if err != nil {
			return "", err
		}
		if !busy {
			p.next[key] = i + 1
			return cand, nil
		}
	}
}
