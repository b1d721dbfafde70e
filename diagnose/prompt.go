package diagnose

import (
	"cmp"
	"slices"

	"github.com/trajmine/trajmine/schema"
)

// EstimatedPrompts returns each turn's estimated prompt in tokens:
//
//	est(t) = Σ est_tokens of events with turn < t  +  Σ est_tokens of input events with turn = t
//
// where context_op events (not prompt content) are left out, and a compaction
// boundary (a system compaction event) restarts the sum: only what follows it
// counts. Outside compactions this is the same pairing trajmine calibrate
// fits. Every turn that has at least one event has an entry.
func EstimatedPrompts(events []schema.Event) map[int64]int64 {
	type promptAcc struct {
		in, out int64
		reset   bool
	}
	accs := map[int64]*promptAcc{}
	var turns []int64
	for _, e := range events {
		a := accs[e.Turn]
		if a == nil {
			a = &promptAcc{}
			accs[e.Turn] = a
			turns = append(turns, e.Turn)
		}
		switch {
		case e.Kind == schema.KindCompaction && e.Role == "system":
			*a = promptAcc{reset: true}
		case e.Kind == schema.KindContextOp:
		case e.Kind.IsOutput():
			a.out += e.SeenTokens()
		default:
			a.in += e.SeenTokens()
		}
	}
	slices.SortFunc(turns, cmp.Compare[int64])
	est := make(map[int64]int64, len(turns))
	var cum int64
	for _, t := range turns {
		a := accs[t]
		if a.reset {
			cum = 0
		}
		est[t] = cum + a.in
		cum += a.in + a.out
	}
	return est
}
