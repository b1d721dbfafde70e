package counterfactual

import "hash/maphash"

// wordTable maps words to their index in walker.states: open addressing
// with linear probing over 64-bit hashes, the word compared only when the
// hashes agree. It replaces a map[string]int32, whose lookups were a third
// of Uses's time; a walker's table is reused for the next run.
type wordTable struct {
	seed  maphash.Seed
	slots []tokSlot // len is a power of two; at most half full
	n     int
}

type tokSlot struct {
	hash uint64
	idx  int32 // index in states + 1; 0 = empty
}

func newWordTable(hint int) *wordTable {
	t := &wordTable{seed: maphash.MakeSeed()}
	t.reset(hint)
	return t
}

// reset empties the table, sized for hint words.
func (t *wordTable) reset(hint int) {
	size := 64
	for size < 2*hint {
		size <<= 1
	}
	if cap(t.slots) >= size && cap(t.slots) <= 4*size {
		t.slots = t.slots[:cap(t.slots)]
		clear(t.slots)
	} else {
		t.slots = make([]tokSlot, size)
	}
	t.n = 0
}

func (t *wordTable) hash(tok string) uint64 { return maphash.String(t.seed, tok) }

// find returns the index of tok (with hash h) in states, if present.
func (t *wordTable) find(tok string, h uint64, states []wordState) (int32, bool) {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.idx == 0 {
			return 0, false
		}
		if s.hash == h && states[s.idx-1].tok == tok {
			return s.idx - 1, true
		}
	}
}

// insert adds a word, known to be absent, with hash h and index idx.
func (t *wordTable) insert(h uint64, idx int32) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	t.put(h, idx+1)
	t.n++
}

func (t *wordTable) put(h uint64, idx1 int32) {
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i].idx != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = tokSlot{hash: h, idx: idx1}
}

func (t *wordTable) grow() {
	old := t.slots
	t.slots = make([]tokSlot, 2*len(old))
	for _, s := range old {
		if s.idx != 0 {
			t.put(s.hash, s.idx)
		}
	}
}
