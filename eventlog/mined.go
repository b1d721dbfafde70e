package eventlog

import (
	"bufio"
	"context"
	"io"
	"time"
)

// MinedTrace is one case of a mined event log (mining.Log): the run and its
// events, one per mined activity, in the log's order.
type MinedTrace struct {
	ID, ModelFamily, Harness, Format string
	Resolved                         *bool
	Start                            int64 // run start, µs since the epoch; 0 unknown
	Events                           []MinedEvent
}

// MinedEvent is one event of a mined trace.
type MinedEvent struct {
	Activity string
	Seq      int64 // seq of the record it was mined from
	TS       int64 // logged time, µs since the epoch; 0 when not logged
	Tokens   int64
}

// SyntheticEpoch is where the times of a trace without any logged time
// start (WriteMinedXES).
var SyntheticEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Values of a mined trace's time_source attribute.
const (
	TimeLogged    = "logged"    // every event at its logged time
	TimeAdjusted  = "adjusted"  // logged times, some moved to keep the order (time_adjusted says how many)
	TimeSynthetic = "synthetic" // no logged time: SyntheticEpoch + position ms
)

// WriteMinedXES writes a mined event log as XES (IEEE 1849-2016): one
// <trace> per case (concept:name = the run id; model_family, harness,
// format, resolved and started_at where known; time_source and
// time_adjusted, below) and in it one <event> per mined event, in the
// log's order, with concept:name = the activity, lifecycle:transition
// "complete", time:timestamp, seq and tokens. So any tool that counts the
// directly-follows pairs of each trace in time order (PM4Py's
// discover_dfg, Disco, ProM) gets the DFG trajmine mined from the same log.
//
// The times rule. Tools order a trace's events by time:timestamp and drop
// events without one (PM4Py drops them silently), while the mined order is
// the logged time, then seq, and some runs (OpenAI message logs) log no
// time at all. So every trace's times are written strictly increasing, to
// the millisecond (XES's precision):
//
//  1. An event's time is its logged time truncated to the millisecond.
//  2. When that is not after the previous event's written time (events
//     logged in the same millisecond, ordered by seq; an event without a
//     logged time), it is written 1 ms after the previous event instead.
//  3. Events before the trace's first logged time are placed 1 ms apart
//     ending 1 ms before it; a trace without any logged time starts at
//     SyntheticEpoch (2000-01-01T00:00:00.000Z) and its events are 1 ms
//     apart (time_source "synthetic").
//
// time_source says which held ("logged": every event at its logged
// millisecond; "adjusted": some moved; "synthetic") and time_adjusted
// (int) how many events are not at their logged millisecond (every event,
// when synthetic).
func WriteMinedXES(ctx context.Context, w io.Writer, traces func(yield func(*MinedTrace) error) error, logName string) (*Stats, error) {
	cw := &countWriter{w: w}
	x := &xesWriter{bw: bufio.NewWriterSize(cw, 1<<16)}
	if logName == "" {
		logName = "trajmine"
	}
	x.minedHeader(clean(logName, 0))
	times := []int64{}
	err := traces(func(t *MinedTrace) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if cw.err != nil {
			return cw.err
		}
		var src string
		var moved int64
		times, src, moved = MinedTimes(t.Events, times[:0])
		x.st.Runs++
		x.bw.WriteString("\t<trace>\n")
		x.a = x.a[:0]
		x.a.str("concept:name", clean(t.ID, 0))
		x.a.str("model_family", clean(t.ModelFamily, 0))
		x.a.str("harness", clean(t.Harness, 0))
		x.a.str("format", clean(t.Format, 0))
		if t.Resolved != nil {
			x.a.bool("resolved", *t.Resolved)
		}
		if t.Start != 0 {
			x.a.date("started_at", time.UnixMicro(t.Start))
		}
		x.a.str("time_source", src)
		x.a.int("time_adjusted", moved)
		x.a.sort()
		x.attrs("\t\t", x.a)
		for i, e := range t.Events {
			x.st.Events++
			if e.TS == 0 {
				x.st.Untimed++
			}
			x.a = x.a[:0]
			x.a.str("concept:name", clean(e.Activity, 0))
			x.a.str("lifecycle:transition", "complete")
			x.a.date("time:timestamp", time.UnixMilli(times[i]))
			x.a.int("seq", e.Seq)
			x.a.int("tokens", e.Tokens)
			x.a.sort()
			x.bw.WriteString("\t\t<event>\n")
			x.attrs("\t\t\t", x.a)
			x.bw.WriteString("\t\t</event>\n")
		}
		x.bw.WriteString("\t</trace>\n")
		return nil
	})
	return x.finish(err, cw)
}

// MinedTimes returns the written times (ms since the epoch) of a trace's
// events by WriteMinedXES's rule, appended to buf, with the trace's
// time_source and how many events are not at their logged millisecond.
func MinedTimes(evs []MinedEvent, buf []int64) (times []int64, source string, moved int64) {
	first := -1
	for i, e := range evs {
		if e.TS != 0 {
			first = i
			break
		}
	}
	var prev int64
	switch {
	case first < 0:
		prev = SyntheticEpoch.UnixMilli() - 1
	default:
		prev = msOf(evs[first].TS) - int64(first) - 1
	}
	times = buf
	for _, e := range evs {
		t := prev + 1
		if e.TS != 0 {
			if m := msOf(e.TS); m > prev {
				t = m
			}
		}
		if e.TS == 0 || t != msOf(e.TS) {
			moved++
		}
		times = append(times, t)
		prev = t
	}
	switch {
	case first < 0 && len(evs) > 0:
		source = TimeSynthetic
	case moved > 0:
		source = TimeAdjusted
	default:
		source = TimeLogged
	}
	return times, source, moved
}

// msOf truncates µs since the epoch to ms (towards −∞).
func msOf(us int64) int64 {
	if us < 0 {
		return -((-us + 999) / 1000)
	}
	return us / 1000
}

// minedHeader is header's log preamble for a mined log: its global
// attributes are the ones every mined trace and event has.
func (x *xesWriter) minedHeader(logName string) {
	var trace, event attrs
	trace.str("concept:name", "__INVALID__")
	trace.str("format", "__INVALID__")
	trace.str("harness", "__INVALID__")
	trace.str("time_source", TimeLogged)
	event.str("concept:name", "__INVALID__")
	event.str("lifecycle:transition", "complete")
	event.int("seq", -1)
	event.date("time:timestamp", SyntheticEpoch)
	x.preamble(logName, trace, event, []classifier{{"Activity", "concept:name"}})
}
