package counterfactual

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"unsafe"
)

// wordTable maps words to their index in walker.states: open addressing
// with linear probing over 32-bit hash tags, the word compared only when
// the tags agree. It replaces a map[string]int32, whose lookups were a
// third of Uses's time; a walker's table is reused for the next run. A slot
// is 8 bytes, so that the table's cache misses, most of a lookup's cost on
// a large run, touch half the memory a 64-bit hash would.
type wordTable struct {
	seed  uint64    // random per table: a crafted log cannot aim at the probing
	slots []tokSlot // len is a power of two; at most half full
	n     int
}

type tokSlot struct {
	tag uint32 // the hash's low 32 bits, of which the slot's home position is the low ones
	idx int32  // index in states + 1; 0 = empty
}

func newWordTable(hint int) *wordTable {
	t := &wordTable{seed: maphash.Comparable(maphash.MakeSeed(), 0) | 1}
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

// hash is a fast non-cryptographic hash of a word (words are short: 3 to
// MaxWord bytes): 8 bytes at a time, each folded in by a 64×64→128-bit
// multiply (the wyhash mix).
func (t *wordTable) hash(tok string) uint64 {
	const k0, k1 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db
	n := len(tok)
	b := unsafe.Slice(unsafe.StringData(tok), n)
	h := t.seed ^ uint64(n)*k0
	for len(b) > 8 {
		h = mix(h^binary.LittleEndian.Uint64(b), k1)
		b = b[8:]
	}
	var v uint64
	switch m := len(b); {
	case m >= 4:
		v = uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[m-4:]))<<32
	case m > 0:
		v = uint64(b[0]) | uint64(b[m/2])<<8 | uint64(b[m-1])<<16
	}
	return mix(mix(h^v, k1), k0)
}

// mix folds the 128-bit product of a and b to 64 bits.
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// find returns the index of tok (with hash h) in states, if present.
func (t *wordTable) find(tok string, h uint64, states []wordState) (int32, bool) {
	mask := uint64(len(t.slots) - 1)
	tag := uint32(h)
	for i := uint64(tag) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s.idx == 0 {
			return 0, false
		}
		if s.tag == tag && states[s.idx-1].tok == tok {
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

// put stores idx1 in the first free slot from h's home position (the
// table's size is at most 1<<32 slots, so the tag alone gives it: grow
// needs no other hash bits).
func (t *wordTable) put(h uint64, idx1 int32) {
	mask := uint64(len(t.slots) - 1)
	i := uint64(uint32(h)) & mask
	for t.slots[i].idx != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = tokSlot{tag: uint32(h), idx: idx1}
}

func (t *wordTable) grow() {
	old := t.slots
	t.slots = make([]tokSlot, 2*len(old))
	for _, s := range old {
		if s.idx != 0 {
			t.put(uint64(s.tag), s.idx)
		}
	}
}
