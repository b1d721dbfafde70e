package ingest_test

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

// bombHash names the bomb's one attachment (Inspect uses the MD5 of the text).
const bombHash = "5d41402abc4b2a76b9719d911017c592"

// bombSamples are the two samples of issue 31's point 2 repro: the first
// holds one attachment of size bytes that refs user messages reference,
// then an assistant message answered by a model event with usage; the
// second is an ordinary sample.
func bombSamples(size, refs int) [2]string {
	var s strings.Builder
	s.WriteString(`{"id": 1, "epoch": 1, "messages": [`)
	for range refs {
		s.WriteString(`{"role": "user", "content": "attachment://` + bombHash + `"}, `)
	}
	s.WriteString(`{"id": "m1", "role": "assistant", "content": "done"}], "events": [` +
		`{"event": "model", "timestamp": "2026-03-10T12:00:01+00:00", "model": "openai/gpt-5", "output": {"model": "gpt-5", "choices": [` +
		`{"message": {"id": "m1", "role": "assistant", "content": "done"}, "stop_reason": "stop"}], "usage": {"input_tokens": 10, "output_tokens": 2}}}], `)
	s.WriteString(`"attachments": {"` + bombHash + `": "` + strings.Repeat("a", size) + `"}}`)
	second := `{"id": 2, "epoch": 1, "messages": [{"role": "user", "content": "hi"}, {"id": "m2", "role": "assistant", "content": "hello"}], "events": [` +
		`{"event": "model", "timestamp": "2026-03-10T12:00:02+00:00", "model": "openai/gpt-5", "output": {"model": "gpt-5", "choices": [` +
		`{"message": {"id": "m2", "role": "assistant", "content": "hello"}, "stop_reason": "stop"}], "usage": {"input_tokens": 7, "output_tokens": 1}}}]}`
	return [2]string{s.String(), second}
}

// attachBomb is the repro as an .eval archive: with size 1 MiB and 1,000
// references it is 2.4 kB on disk (the report's was 10 kB).
func attachBomb(t testing.TB, size, refs int) []byte {
	t.Helper()
	s := bombSamples(size, refs)
	return zipMembers(t, [2]string{"samples/1_epoch_1.json", s[0]}, [2]string{"samples/2_epoch_1.json", s[1]},
		[2]string{"header.json", bombHeader})
}

// attachBombJSON is the repro as a .json log, one line.
func attachBombJSON(size, refs int) []byte {
	s := bombSamples(size, refs)
	return []byte(strings.TrimSuffix(bombHeader, "}") + `, "samples": [` + s[0] + ", " + s[1] + "]}")
}

// peakHeap samples the bytes of live (and not yet swept) heap objects
// every millisecond until stop is called, which returns the largest value
// seen (the whole process's heap, not only what the caller allocates).
func peakHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	peak := read()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				peak = max(peak, read())
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait() // peak is the goroutine's no more
		return max(peak, read())
	}
}

// BenchmarkInspectAttachmentBomb imports attachBomb (1 MiB referenced refs
// times) into a MemSink: B/op is what the import allocates, peak-heap-MiB
// the largest live heap seen while it runs (the sink's records and the
// benchmark binary's own heap included).
func BenchmarkInspectAttachmentBomb(b *testing.B) {
	for _, refs := range []int{100, 300, 1000} {
		b.Run(fmt.Sprintf("refs=%d", refs), func(b *testing.B) {
			data := attachBomb(b, 1<<20, refs)
			b.ReportAllocs()
			runtime.GC()
			stop := peakHeap()
			b.ResetTimer()
			for range b.N {
				if _, err := ingest.Parse(context.Background(), "inspect-ai", "bomb.eval", data, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MiB")
		})
	}
}

// TestInspectAttachmentBomb is issue 31's point 2: one 1 MiB attachment
// referenced 1,000 times drove the import of a 10 kB .eval to 6.7 GB, as
// every reference was resolved into a copy. References now resolve where
// their text is kept, to the attachment's one string, and within the file's
// budget of resolved text (16 MiB here: twice the 1.1 MiB the file
// decompresses to is less); the references past it stay attachment://<hash>,
// a reject at the sample counts them, and the rest of the data imports.
// The import allocates at most 32 MiB in all (measured: 5.3 MiB for the
// 2 kB archive, 8.7 MiB for the 1.1 MB .json log; the original code
// allocated 6.35 GB for the archive, 640 MB with 100 references).
func TestInspectAttachmentBomb(t *testing.T) {
	const (
		size  = 1 << 20
		bound = 32 << 20
	)
	ref := "attachment://" + bombHash
	for _, tc := range []struct {
		name     string
		file     string
		data     func(refs int) []byte
		refs     int
		resolved int    // references resolved, in message order
		reject   string // the reject, "" for none
		line     int64  // its line (the member's index in an archive)
	}{
		{"eval, 1000 references", "bomb.eval", func(n int) []byte { return attachBomb(t, size, n) }, 1000, 16,
			"samples/1_epoch_1.json: 984 attachment references left as attachment://<hash>: their text would pass the file's budget of 16777216 bytes for resolved attachments (2× what it decompresses to, at least 16 MiB)", 1},
		{"json, 1000 references", "bomb.json", func(n int) []byte { return attachBombJSON(size, n) }, 1000, 16,
			"sample 1: 984 attachment references left as attachment://<hash>: their text would pass the file's budget of 16777216 bytes for resolved attachments (2× what it decompresses to, at least 16 MiB)", 1},
		{"eval, within the budget", "small.eval", func(n int) []byte { return attachBomb(t, size, n) }, 10, 10, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data(tc.refs)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			sink, err := ingest.Parse(context.Background(), "inspect-ai", tc.file, data, nil)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d-byte file: allocated %.1f MiB", len(data), float64(alloc)/(1<<20))
			if alloc > bound {
				t.Errorf("allocated %d bytes, over the bound of %d", alloc, bound)
			}
			var want []atifReject
			if tc.reject != "" {
				want = []atifReject{{tc.line, tc.reject}}
			}
			if d := cmp.Diff(want, atifRejects(sink.Rejects)); d != "" {
				t.Errorf("rejects (-want +got):\n%s", d)
			}
			// the rest of the data: both runs, every message, the usage
			if len(sink.Runs) != 2 || len(sink.Events) != tc.refs+3 || len(sink.Usage) != 2 {
				t.Fatalf("%d runs, %d events, %d usage rows; want 2, %d, 2", len(sink.Runs), len(sink.Events), len(sink.Usage), tc.refs+3)
			}
			for i, e := range sink.Events[:tc.refs] {
				want := ref
				if i < tc.resolved {
					want = strings.Repeat("a", size)
				}
				if e.Kind != schema.KindUser || e.Text != want {
					t.Fatalf("event %d: %s of %d bytes, want a user event of %d", i, e.Kind, len(e.Text), len(want))
				}
			}
			type call struct {
				run      string
				in, out  int64
				lastText string
			}
			got := []call{{sink.Usage[0].RunID, sink.Usage[0].InputTokens, sink.Usage[0].OutputTokens, sink.Events[tc.refs].Text},
				{sink.Usage[1].RunID, sink.Usage[1].InputTokens, sink.Usage[1].OutputTokens, sink.Events[tc.refs+2].Text}}
			wantCalls := []call{{"BOMB/1/1", 10, 2, "done"}, {"BOMB/2/1", 7, 1, "hello"}}
			if d := cmp.Diff(wantCalls, got, cmp.AllowUnexported(call{})); d != "" {
				t.Errorf("calls (-want +got):\n%s", d)
			}
		})
	}
}

// TestInspectAttachments: references resolve wherever the run keeps their
// text (a system string, a user text block, a reasoning block, a tool call
// argument, a tool error's message, a tool definition's description, a
// limit message), and an assistant message that references its text still
// matches the model event whose output has it inline. The image block's
// reference and the model events' input (never read) are not resolved.
func TestInspectAttachments(t *testing.T) {
	const id = "ATT/a/1"
	ts := func(s string) string { return "2026-04-01T09:00:" + s + "Z" }
	w := atifWant{
		file: "attachments.json",
		runs: []schema.Run{{RunID: id, Harness: "inspect-ai", Model: "gpt-5-2025-08-07", ModelFamily: "gpt-5", TaskID: "refs/a",
			StartedAt: atifTS(t, ts("01")), EndedAt: atifTS(t, ts("05")),
			EndReason: schema.EndStepLimit, EndReasonSource: schema.SourceExplicit, EndReasonDetail: "message limit 5: Exceeded message limit: 5",
			NTurns: 2, UsageCalls: 2, InputTokens: 250, OutputTokens: 25}},
		events: []schema.Event{
			{RunID: id, Seq: 0, TS: atifTS(t, ts("01")), Kind: schema.KindSystem, Role: schema.RoleToolDefinitions, Line: 20,
				Text: `[{"description":"Run a shell command.","name":"bash","parameters":{"properties":{"cmd":{"type":"string"}},"type":"object"}}]`},
			{RunID: id, Seq: 1, TS: atifTS(t, ts("01")), Kind: schema.KindSystem, Role: "system", Line: 20, Text: "You are terse."},
			{RunID: id, Seq: 2, TS: atifTS(t, ts("01")), Kind: schema.KindUser, Role: "user", Line: 24, Text: "List /tmp.\n[image]"},
			{RunID: id, Seq: 3, TS: atifTS(t, ts("01")), Kind: schema.KindReasoning, Role: "assistant", Line: 37, Text: "Thinking hard."},
			{RunID: id, Seq: 4, TS: atifTS(t, ts("01")), Kind: schema.KindAssistant, Role: "assistant", Line: 37, Text: "Listing."},
			{RunID: id, Seq: 5, TS: atifTS(t, ts("01")), Kind: schema.KindToolCall, Role: "assistant", Line: 37,
				ToolName: "bash", CallID: "c1", Args: `{"cmd":"ls -la /tmp"}`, Target: "ls -la /tmp", Text: `bash {"cmd":"ls -la /tmp"}`},
			{RunID: id, Seq: 6, Turn: 1, TS: atifTS(t, ts("03")), Kind: schema.KindToolResult, Role: "tool", Line: 61,
				ToolName: "bash", CallID: "c1", ToolKey: "c1", Target: "ls -la /tmp", IsError: true, Text: "permission denied"},
			// message 5 is "attachment://h7"; the second model event's output is "All done." itself
			{RunID: id, Seq: 7, Turn: 1, TS: atifTS(t, ts("04")), Kind: schema.KindAssistant, Role: "assistant", Line: 71, Text: "All done."},
		},
		usage: []schema.Usage{
			{RunID: id, Turn: 0, TS: atifTS(t, ts("01")), Model: "gpt-5-2025-08-07", InputTokens: 100, OutputTokens: 20},
			{RunID: id, Turn: 1, TS: atifTS(t, ts("04")), Model: "gpt-5-2025-08-07", InputTokens: 150, OutputTokens: 5},
		},
		outputs: []schema.ToolOutput{{RunID: id, ToolKey: "c1", CallID: "c1", ToolName: "bash", Target: "ls -la /tmp", Turn: 1, Seq: 6, IsError: true}},
	}
	atifCheck(t, "inspect-ai", "inspect-ai", w, inspParse)
}
