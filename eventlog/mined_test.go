package eventlog_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/eventlog"
)

// ms is a logged time in µs: base + off milliseconds + extra µs.
func ms(off, extra int64) int64 {
	return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).UnixMicro() + off*1000 + extra
}

// TestMinedTimes: the times rule of WriteMinedXES, each step, with the
// written times computed by hand.
func TestMinedTimes(t *testing.T) {
	base := ms(0, 0) / 1000
	epoch := eventlog.SyntheticEpoch.UnixMilli()
	for _, c := range []struct {
		name   string
		ts     []int64 // logged, µs; 0 none
		want   []int64 // ms
		source string
		moved  int64
	}{
		{"logged, increasing", []int64{ms(0, 0), ms(5, 0), ms(9, 999)}, []int64{base, base + 5, base + 9}, eventlog.TimeLogged, 0},
		{"same millisecond: 1 ms later", []int64{ms(0, 0), ms(0, 400), ms(0, 999), ms(3, 0)}, []int64{base, base + 1, base + 2, base + 3}, eventlog.TimeAdjusted, 2},
		{"a later one pushed on", []int64{ms(0, 0), ms(0, 1), ms(1, 0)}, []int64{base, base + 1, base + 2}, eventlog.TimeAdjusted, 2},
		{"untimed between", []int64{ms(0, 0), 0, ms(10, 0)}, []int64{base, base + 1, base + 10}, eventlog.TimeAdjusted, 1},
		{"untimed before the first time", []int64{0, 0, ms(10, 0), 0}, []int64{base + 8, base + 9, base + 10, base + 11}, eventlog.TimeAdjusted, 3},
		{"no time at all", []int64{0, 0, 0}, []int64{epoch, epoch + 1, epoch + 2}, eventlog.TimeSynthetic, 3},
		{"empty", nil, []int64{}, eventlog.TimeLogged, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs := make([]eventlog.MinedEvent, len(c.ts))
			for i, ts := range c.ts {
				evs[i] = eventlog.MinedEvent{Activity: "a", Seq: int64(i), TS: ts}
			}
			got, src, moved := eventlog.MinedTimes(evs, []int64{})
			if diff := cmp.Diff(c.want, got); diff != "" || src != c.source || moved != c.moved {
				t.Errorf("times (-want +got):\n%s\nsource %q moved %d, want %q %d", diff, src, moved, c.source, c.moved)
			}
		})
	}
}

// TestWriteMinedXES: the document is valid XES (the IEEE XSD, xmllint), one
// trace per case with its attributes, one event per mined event in order,
// with the written times, seq and tokens.
func TestWriteMinedXES(t *testing.T) {
	yes := true
	traces := []eventlog.MinedTrace{
		{ID: "run-a", ModelFamily: "claude", Harness: "claude-code", Format: "claude-code", Resolved: &yes, Start: ms(0, 0),
			Events: []eventlog.MinedEvent{{"read", 1, ms(0, 0), 10}, {"edit", 3, ms(0, 500), 20}, {"context.disable", 5, ms(2, 0), -7}}},
		{ID: "run-b <&>", ModelFamily: "gpt", Harness: "openai", Format: "openai-messages",
			Events: []eventlog.MinedEvent{{"search", 2, 0, 1}, {"test", 4, 0, 2}}},
	}
	var buf bytes.Buffer
	st, err := eventlog.WriteMinedXES(context.Background(), &buf, func(yield func(*eventlog.MinedTrace) error) error {
		for i := range traces {
			if err := yield(&traces[i]); err != nil {
				return err
			}
		}
		return nil
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	validateXES(t, buf.Bytes())
	if st.Runs != 2 || st.Events != 5 || st.Untimed != 2 || st.Bytes != int64(buf.Len()) {
		t.Errorf("stats %+v", st)
	}
	l := parseXES(t, buf.Bytes())
	type ev struct{ name, ts, seq, tokens string }
	type tr struct {
		attrs  map[string]string
		events []ev
	}
	var got []tr
	for _, x := range l.Traces {
		g := tr{attrs: map[string]string{}}
		for _, a := range x.Attrs {
			g.attrs[a.XMLName.Local+" "+a.Key] = a.Value
		}
		for _, e := range x.Events {
			n, _ := e.get("concept:name")
			ts, _ := e.get("time:timestamp")
			seq, _ := e.get("seq")
			tok, _ := e.get("tokens")
			g.events = append(g.events, ev{n, ts, seq, tok})
		}
		got = append(got, g)
	}
	want := []tr{
		{attrs: map[string]string{"string concept:name": "run-a", "string model_family": "claude", "string harness": "claude-code",
			"string format": "claude-code", "boolean resolved": "true", "date started_at": "2026-03-01T12:00:00.000+00:00",
			"string time_source": "adjusted", "int time_adjusted": "1"},
			events: []ev{{"read", "2026-03-01T12:00:00.000+00:00", "1", "10"}, {"edit", "2026-03-01T12:00:00.001+00:00", "3", "20"},
				{"context.disable", "2026-03-01T12:00:00.002+00:00", "5", "-7"}}},
		{attrs: map[string]string{"string concept:name": "run-b <&>", "string model_family": "gpt", "string harness": "openai",
			"string format": "openai-messages", "string time_source": "synthetic", "int time_adjusted": "2"},
			events: []ev{{"search", "2000-01-01T00:00:00.000+00:00", "2", "1"}, {"test", "2000-01-01T00:00:00.001+00:00", "4", "2"}}},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(tr{}, ev{})); diff != "" {
		t.Errorf("traces (-want +got):\n%s", diff)
	}
}
