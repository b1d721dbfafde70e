package analysis

import "encoding/binary"

// packPrompts is a replay's prompt tokens per call, compact for keeping
// every run's in memory until the page picks the ones it draws: each
// call's change from the call before (the first from 0) as a zigzag
// varint, and a run of equal calls (change 0) as a 0 followed by the
// run's length less one, so a policy that does nothing for a while costs
// two bytes, not one a call. unpackPrompts reverses it.
func packPrompts(prompts []int64) []byte {
	var b []byte
	prev := int64(0)
	for i := 0; i < len(prompts); {
		d := prompts[i] - prev
		prev = prompts[i]
		if d != 0 {
			b = binary.AppendVarint(b, d)
			i++
			continue
		}
		n := 1
		for i+n < len(prompts) && prompts[i+n] == prev {
			n++
		}
		b = binary.AppendVarint(b, 0)
		b = binary.AppendUvarint(b, uint64(n-1))
		i += n
	}
	return b
}

// unpackPrompts is packPrompts' input; nil for no bytes.
func unpackPrompts(b []byte) []int64 {
	var out []int64
	prev := int64(0)
	for len(b) > 0 {
		d, n := binary.Varint(b)
		if n <= 0 {
			return out // not packPrompts' bytes: what decoded so far
		}
		b = b[n:]
		if d != 0 {
			prev += d
			out = append(out, prev)
			continue
		}
		run, m := binary.Uvarint(b)
		if m <= 0 {
			return out
		}
		b = b[m:]
		for range run + 1 {
			out = append(out, prev)
		}
	}
	return out
}
