package counterfactual_test

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/schema"
)

var fuzzKinds = []schema.EventKind{
	schema.KindSystem, schema.KindUser, schema.KindAssistant, schema.KindReasoning,
	schema.KindToolCall, schema.KindToolResult, schema.KindToolCall, schema.KindToolResult,
}

// fuzzEvents turns random bytes into a run: chunks separated by 0xff, each
// chunk's first byte choosing the kind (bits 0-2), whether the turn advances
// (bit 3), the target (bits 4-5) and the call id (bits 6-7); the rest of the
// chunk is the text (and, for tool calls, the args).
func fuzzEvents(data []byte) []schema.Event {
	var events []schema.Event
	var turn int64
	targets := []string{"", "a.go", "go test ./...", "b.go"}
	ids := []string{"", "c1", "c2", "c3"}
	for i, chunk := range bytes.Split(data, []byte{0xff}) {
		if len(chunk) == 0 {
			continue
		}
		b := chunk[0]
		if b&8 != 0 {
			turn++
		}
		e := schema.Event{RunID: "f", Seq: int64(i), Turn: turn, Kind: fuzzKinds[b&7], Text: string(chunk[1:]),
			Target: targets[b>>4&3], CallID: ids[b>>6]}
		if e.Kind == schema.KindToolCall {
			e.Args = e.Text
		}
		events = append(events, e)
	}
	return events
}

// repeatOutputs returns a copy of events whose tool results take, in turn,
// the texts of the run's first three tool results (so texts repeat, as
// when an agent re-reads a file).
func repeatOutputs(events []schema.Event) []schema.Event {
	out := slices.Clone(events)
	var texts []string
	n := 0
	for i := range out {
		if out[i].Kind != schema.KindToolResult {
			continue
		}
		if len(texts) < 3 {
			texts = append(texts, out[i].Text)
		}
		out[i].Text = texts[n%len(texts)]
		n++
	}
	return out
}

// checkReplay checks that Uses replaying repeated outputs' tokens (of
// every size) gives what scanning them again gives.
func checkReplay(t *testing.T, events []schema.Event) {
	t.Helper()
	restore := counterfactual.SetReuse(false, 0)
	want := counterfactual.Uses(events)
	restore()
	restore = counterfactual.SetReuse(true, 0)
	got := counterfactual.Uses(events)
	restore()
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("replaying repeated outputs gives\n%+v\nscanning them gives\n%+v", got, want)
	}
}

// FuzzUses checks that Uses never panics on arbitrary texts, that its uses
// are sorted, that every evidence offset points at its token in the
// output text, and that replaying repeated outputs equals scanning them. Seeds are in testdata/fuzz/FuzzUses.
func FuzzUses(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		events := fuzzEvents(data)
		uses := counterfactual.Uses(events)
		checkUses(t, events, uses)
		rows := counterfactual.Summarize(events, uses)
		n := 0
		for _, r := range rows {
			n += r.ContentUses + r.TargetUses
			if r.Used() && (r.FirstCall > r.LastCall || r.FirstCall < events[r.Output].Turn) {
				t.Fatalf("row %+v: bad call range", r)
			}
		}
		if n != len(uses) {
			t.Fatalf("summary counts %d uses, Uses returned %d", n, len(uses))
		}
		// the same run with its outputs repeated (re-reads)
		checkReplay(t, repeatOutputs(events))
		for _, u := range uses {
			for _, tok := range u.Evidence {
				k := 0
				for range counterfactual.Words(tok) {
					k++
				}
				if k != 1 {
					t.Fatalf("evidence %q is not one distinctive word", tok)
				}
			}
		}
	})
}
