package store

import (
	"cmp"
	"context"
	"database/sql/driver"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/trajmine/trajmine/actions"

	"github.com/trajmine/trajmine/schema"
)

// EventStreamOptions select what EventStream reads. The zero value reads every
// run, without targets and arguments.
type EventStreamOptions struct {
	// Targets reads events.target (activity names by tool and target kind).
	Targets bool
	// Args reads events.args (a classifier needs them). They are the most
	// expensive column to read: leave them out when not needed.
	Args bool
	// Classes reads events.action_class, the class ingest gave each tool
	// call: Event.ActionClass is set for the runs classified by the current
	// default classifier (classified_by = actions.DefaultFingerprint()) and
	// "" for the others, whose calls need Args to be classified again.
	Classes bool
	// ModelFamilies, Harnesses and Formats keep only runs whose
	// model_family, harness and source_format are among these (empty: all).
	ModelFamilies, Harnesses, Formats []string
	// Reader picks the row reader: "chunks" streams the result's chunks
	// through DuckDB's C API (chunks.go; file databases only), "sql" reads
	// the driver's rows (Store.driverRows), "arrow" DuckDB's Arrow
	// interface (builds with -tags duckdb_arrow only). "" is chunks for a
	// file database and sql for an in-memory one (or when DuckDB's handle
	// of the file cannot be had). The three give the same log; chunks
	// measured fastest (BENCHMARKS.md).
	Reader string
}

// EventStreamReaders lists the row readers compiled in, the default first:
// "chunks" (DuckDB's C API, file databases only), "sql" (the driver's
// rows, always) and "arrow" (DuckDB's Arrow interface, in builds with
// -tags duckdb_arrow).
func EventStreamReaders() []string {
	if arrowReader != nil {
		return []string{"chunks", "sql", "arrow"}
	}
	return []string{"chunks", "sql"}
}

// logRow is one row of the events query, without its strings: free of
// pointers, so that the ranges and pending rows cost the garbage
// collector nothing to scan and nothing to move.
type logRow struct {
	run             uint64 // hash(run_id)
	seq, ts, tokens int64  // ts: µs since the epoch, 0 = NULL
	call, key       uint64 // hash(call_id), hash(tool_key); 0 = none
	tool            uint16 // index in the log's toolTable
	class           uint16 // index in the log's class table (action_class; 0: none)
	kind            int8   // index into logKinds
}

// logStrs are a row's target and args, kept (beside the rows, index for
// index) only when asked for.
type logStrs struct{ target, args string }

// logRange is the events query's rows of one rowid range, as one reader
// read them. Ranges are recycled: the consumer hands a finished one back
// to its reader, so reading a big log does not keep touching new memory.
type logRange struct {
	rows       []logRow
	strs       []logStrs // only when target or args are asked for
	withTarget bool
	withArgs   bool
	tools      *toolCache
	classes    *toolCache // action_class names (a small table of their own)
}

// add appends one row; target and args are dropped unless asked for.
func (w *logRange) add(run uint64, seq, ts, tokens int64, kind int8, tool string, call, key uint64, target, args, class string) {
	w.rows = append(w.rows, logRow{run: run, seq: seq, ts: ts, tokens: tokens, call: call, key: key, tool: w.tools.id(tool), class: w.classes.id(class), kind: kind})
	if w.withTarget || w.withArgs {
		var st logStrs
		if w.withTarget {
			st.target = target
		}
		if w.withArgs {
			st.args = args
		}
		w.strs = append(w.strs, st)
	}
}

// toolTable numbers the tool names of one EventStream call (its readers share
// it): index 0 is "", at most 65,536 names (later new ones read as "").
// Names are only appended, so a snapshot taken after a row was read names
// its tool.
type toolTable struct {
	mu    sync.Mutex
	names []string
	ids   map[string]uint16
}

func newToolTable() *toolTable {
	return &toolTable{names: []string{""}, ids: map[string]uint16{"": 0}}
}

// id returns the index of s, adding a copy of it when new (s may point
// into a chunk).
func (t *toolTable) id(s string) uint16 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.ids[s]; ok {
		return id
	}
	if len(t.names) >= 1<<16 {
		return 0
	}
	s = strings.Clone(s)
	id := uint16(len(t.names))
	t.names = append(t.names, s)
	t.ids[s] = id
	return id
}

func (t *toolTable) snapshot() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.names
}

// toolCache is one reader's view of the toolTable, without the lock for
// names it has met.
type toolCache struct {
	t *toolTable
	m map[string]uint16
}

func (c *toolCache) id(s string) uint16 {
	if id, ok := c.m[s]; ok {
		return id
	}
	id := c.t.id(s)
	c.m[c.t.snapshot()[id]] = id
	return id
}

// logReaders is how many rowid ranges of the events table EventStream reads
// at once, and logAhead how many read ranges each reader may hold before
// the consumer takes them.
const (
	logReaders = 2
	logAhead   = 1
)

// logRangeRows is the rowids of one range (a variable for tests). Each
// range is a query of its own, ≈ 3 ms to start: 2¹⁸ rowids make that a
// few percent of reading it (BENCHMARKS.md).
var logRangeRows int64 = 1 << 18

// runIndex maps run ids, and DuckDB's 64-bit hash() of them, to their
// index, remembering the last hit (the rows of one run are usually
// contiguous).
type runIndex struct {
	ids    map[string]int32
	hashes map[uint64]int32
	last   uint64
	idx    int32
}

func (x *runIndex) lookup(id string) int32 {
	i, ok := x.ids[id]
	if !ok {
		return -1
	}
	return i
}

func (x *runIndex) lookupHash(h uint64) int32 {
	if h == x.last && x.idx >= 0 {
		return x.idx
	}
	i, ok := x.hashes[h]
	if !ok {
		i = -1
	}
	x.last, x.idx = h, i
	return i
}

// logKinds are the event kinds EventStream reads, by the code the events
// query gives them.
var logKinds = [...]schema.EventKind{schema.KindToolCall, schema.KindToolResult, schema.KindCompaction, schema.KindContextOp}

func kindCode(code int64) int8 {
	if code < 0 || code >= int64(len(logKinds)) {
		return int8(len(logKinds) - 1)
	}
	return int8(code)
}

// idHashes turns the 64-bit hashes of ids into 8-byte strings carved from
// one block, which reset makes reusable (no allocation per row).
type idHashes struct{ block []byte }

func (h *idHashes) reset(n int) {
	if cap(h.block) < 8*n {
		h.block = make([]byte, 0, 8*n)
	}
	h.block = h.block[:0]
}

// str returns the 8 bytes of v as a string ("" for 0, no id). The block
// must have room (reset with enough rows): strings already handed out point
// into it.
func (h *idHashes) str(v uint64) string {
	if v == 0 {
		return ""
	}
	n := len(h.block)
	if cap(h.block)-n < 8 {
		h.block = make([]byte, 0, 64<<10) // only when reset was given too few rows
		n = 0
	}
	h.block = binary.LittleEndian.AppendUint64(h.block, v)
	return unsafe.String(&h.block[n], 8)
}

// rowReader runs the events query and appends its rows to out.
type rowReader func(ctx context.Context, s *Store, q string, args []any, out *logRange) error

var sqlReader rowReader = readSQL

// EventStream streams what process mining needs of every selected run to fn:
// the run (run_id, harness, model, model_family, source_format, resolved,
// started_at), its events of kinds tool_call, tool_result, compaction and
// context_op in seq order, and its context_ops rows (seq, op, tool_key,
// tokens_before, tokens_after). Of each event it reads seq, ts, kind,
// est_tokens and call_id; tool_name (and target, args and action_class
// when asked) of tool calls only; tool_key of tool results only, and only when the
// selection has disable or enable ops (their tokens are the hidden
// outputs'). CallID and ToolKey (of events and ops) are not the logged ids
// but 8-byte strings holding DuckDB's 64-bit hash() of them: equal ids give
// equal strings, which is all matching needs, and moving 8 bytes costs
// DuckDB much less than moving the ids (an id whose hash is 0, one in 2⁶⁴,
// reads as none). Rows are matched to runs by hash(run_id) too; two
// selected runs with one hash (about one in 10¹¹ for 25,000 runs) make
// EventStream fail rather than mix them. fn must not keep the slices or the
// events' strings: they are reused or freed after it returns.
//
// Runs are handed over in storage order, as soon as all their rows have
// arrived (their counts are read first), like Scan: the importer stores a
// run's rows together, so EventStream holds a few ranges of rows at a time
// (at most logReaders × (logAhead + 1) + 1, recycled, plus the rows of
// runs not yet complete), whatever the log's size. Runs with no rows, and any whose rows did
// not all arrive (rows imported meanwhile), come last, in run_id order. The
// order is fixed for a database; mining.Builder's log does not depend on
// it (its cases are sorted by id).
//
// The queries (filters, when set, add run_id IN (SELECT run_id FROM runs
// WHERE model_family IN (…) AND …)):
//
//	SELECT EXISTS (SELECT 1 FROM context_ops WHERE op = 'disable' OR op = 'enable'), max(rowid) of events
//	SELECT hash(run_id), seq, epoch_us(ts), est_tokens, <kind as 0..3>, hash(call_id), hash(tool_key) | NULL,
//	       tool_name, target | NULL, args | NULL, action_class | NULL    -- of tool calls, else NULL
//	  FROM events WHERE (starts_with(kind, 'tool_') OR starts_with(kind, 'co')) AND rowid >= ? AND rowid < ?
//	SELECT run_id, hash(run_id), harness, model, model_family, source_format, resolved, started_at FROM runs ORDER BY run_id
//	SELECT run_id, seq, op, hash(tool_key), tokens_before, tokens_after FROM context_ops ORDER BY run_id, seq, op, tool_key
//	SELECT hash(run_id), count(*) FROM events WHERE <the kinds> GROUP BY 1
//
// The events query runs once per range of logRangeRows rowids, on
// logReaders connections at once (range w by reader w mod logReaders, up
// to logAhead ranges ahead), while this goroutine reads the runs, their
// ops and row counts, then takes the ranges in order and hands over the
// runs they complete. The chunks reader (the default for database files)
// streams a range's result a chunk at a time and reads the vectors in
// place (chunks.go); the sql reader takes database/sql's driver rows,
// whose result DuckDB materialises before the first row.
//
// What the measurements (BENCHMARKS.md) chose: the events query has no
// ORDER BY, because sorting two million rows by run_id and seq costs DuckDB
// more than everything else together; a run's rows are sorted by seq only
// when out of order. kind IN (…) filters several times slower than the
// prefix tests. Each string column costs DuckDB about as much as all the
// integer columns together, so kinds travel as codes, ids as hashes, and
// strings only where needed. Streaming chunks instead of the driver's rows
// took the read from 1.46 s to 0.77 s (with the mining builder); handing
// runs over as they complete, instead of after the last row, overlaps the
// builder with the reading and keeps memory flat.
func (s *Store) EventStream(ctx context.Context, o EventStreamOptions, fn func(run *schema.Run, events []schema.Event, ops []schema.ContextOp) error) error {
	if err := s.lakeScanReady(ctx); err != nil { // a lake's events: a table for rowid ranges (lake.go)
		return err
	}
	read := sqlReader
	switch o.Reader {
	case "":
		// chunks when DuckDB's own handle is there (a database file whose
		// instance could be shared), else the driver's rows
		if _, err := s.rawDB(); err == nil {
			read = readChunks
		}
	case "chunks":
		if s.path == "" {
			return fmt.Errorf("event log: the chunks reader needs a database file (this store is in memory)")
		}
		read = readChunks
	case "sql":
	case "arrow":
		if arrowReader == nil {
			return fmt.Errorf("event log: the arrow reader needs a build with -tags duckdb_arrow")
		}
		read = arrowReader
	default:
		return fmt.Errorf("event log: unknown reader %q (want chunks, sql or arrow)", o.Reader)
	}
	where, args := eventStreamWhere(o)

	// 1. whether the selection hides or re-shows outputs (the events
	// query reads the results' tool keys only then), and the rowid ranges
	hasKeyOps, maxRow, err := s.logShape(ctx, where, args)
	if err != nil {
		return err
	}
	nRanges := maxRow/logRangeRows + 1

	// 2. the readers start on the ranges
	q := eventsQuery(o, where, hasKeyOps) + " AND rowid >= ? AND rowid < ?"
	tools, classes := newToolTable(), newToolTable()
	caches := make([]*toolCache, logReaders) // range w's reader's: w mod logReaders
	classCaches := make([]*toolCache, logReaders)
	for k := range caches {
		caches[k] = &toolCache{t: tools, m: map[string]uint16{}}
		classCaches[k] = &toolCache{t: classes, m: map[string]uint16{}}
	}
	rgs := readRanges(ctx, nRanges, logReaders, logAhead, func(ctx context.Context, w int64, rg *logRange) (*logRange, error) {
		if rg != nil {
			clear(rg.strs) // drop the strings it held
			rg.rows, rg.strs = rg.rows[:0], rg.strs[:0]
		} else {
			// room for every rowid of a range: no regrowing
			n := min(logRangeRows, maxRow+1)
			rg = &logRange{rows: make([]logRow, 0, n), withTarget: o.Targets, withArgs: o.Args, tools: caches[w%logReaders], classes: classCaches[w%logReaders]}
			if o.Targets || o.Args {
				rg.strs = make([]logStrs, 0, n)
			}
		}
		lo := w * logRangeRows
		return rg, read(ctx, s, q, append(slices.Clip(args), lo, lo+logRangeRows), rg)
	})
	defer rgs.stop() // no reader outlives EventStream

	// 3. meanwhile, the runs, their ops and how many rows each has
	runs, idx, ops, err := s.logRunsOps(ctx, where, args)
	if err != nil {
		return err
	}
	want, err := s.logCounts(ctx, where, args, idx)
	if err != nil {
		return err
	}

	// 4. the ranges in order: a run is handed over when its rows are in
	h := logHandover{runs: runs, ops: ops, fn: fn, pending: make([]logRun, len(runs)), done: make([]bool, len(runs))}
	for w := int64(0); w < nRanges; w++ {
		rg, err := rgs.next(w)
		if err != nil {
			return fmt.Errorf("event log: %w", err)
		}
		h.tools, h.classes = tools.snapshot(), classes.snapshot()
		rows, strs := rg.rows, rg.strs
		for i := 0; i < len(rows); {
			ri := idx.lookupHash(rows[i].run)
			j := i + 1
			for j < len(rows) && rows[j].run == rows[i].run {
				j++
			}
			// rows[i:j] are one run's; a run read whole within the range
			// is handed over from it, else its rows wait for the rest
			if ri >= 0 && !h.done[ri] {
				p := &h.pending[ri]
				var seg []logStrs
				if strs != nil {
					seg = strs[i:j]
				}
				switch {
				case len(p.rows) == 0 && j-i == want[ri]:
					err = h.emit(ri, rows[i:j], seg)
				default:
					p.rows = append(p.rows, rows[i:j]...)
					p.strs = append(p.strs, seg...)
					if len(p.rows) == want[ri] {
						err = h.emit(ri, p.rows, p.strs)
						*p = logRun{}
					}
				}
				if err != nil {
					return err
				}
			}
			i = j
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rgs.recycle(w, rg)
	}
	// 5. runs without rows, or not complete, in run_id order
	h.tools, h.classes = tools.snapshot(), classes.snapshot()
	for ri := range runs {
		if !h.done[ri] {
			p := &h.pending[ri]
			if err := h.emit(int32(ri), p.rows, p.strs); err != nil {
				return err
			}
			*p = logRun{}
		}
	}
	return nil
}

// logHandover builds the events of the runs EventStream hands over.
type logHandover struct {
	runs    []schema.Run
	ops     [][]schema.ContextOp
	fn      func(*schema.Run, []schema.Event, []schema.ContextOp) error
	pending []logRun // per run: rows read before the rest of the run's
	done    []bool   // per run: handed over
	tools   []string // the tool table's names so far
	classes []string // the class table's

	order []int32
	evs   []schema.Event
	tsBuf []time.Time
	ids   idHashes
}

// logRun is the rows of a run read so far (strs as in logRange).
type logRun struct {
	rows []logRow
	strs []logStrs
}

// emit hands run ri over with its rows and their strings (nil when not
// kept), in seq order.
func (h *logHandover) emit(ri int32, rows []logRow, strs []logStrs) error {
	h.done[ri] = true
	h.order = h.order[:0]
	for i := range rows {
		h.order = append(h.order, int32(i))
	}
	if !slices.IsSortedFunc(rows, cmpRowSeq) {
		slices.SortStableFunc(h.order, func(a, b int32) int { return cmp.Compare(rows[a].seq, rows[b].seq) })
	}
	h.evs = h.evs[:0]
	if cap(h.tsBuf) < len(rows) {
		h.tsBuf = make([]time.Time, 0, len(rows))
	}
	h.tsBuf = h.tsBuf[:0]
	h.ids.reset(2 * len(rows))
	id := h.runs[ri].RunID
	current := h.runs[ri].ClassifiedBy == actions.DefaultFingerprint() // its action_class can be read back
	for _, i := range h.order {
		r := &rows[i]
		e := schema.Event{RunID: id, Seq: r.seq, Kind: logKinds[r.kind], ToolName: h.tools[r.tool],
			CallID: h.ids.str(r.call), ToolKey: h.ids.str(r.key), EstTokens: r.tokens}
		if strs != nil {
			e.Target, e.Args = strs[i].target, strs[i].args
		}
		if current {
			e.ActionClass = h.classes[r.class]
		}
		if r.ts != 0 {
			h.tsBuf = append(h.tsBuf, time.UnixMicro(r.ts).UTC())
			e.TS = &h.tsBuf[len(h.tsBuf)-1]
		}
		h.evs = append(h.evs, e)
	}
	return h.fn(&h.runs[ri], h.evs, h.ops[ri])
}

func cmpRowSeq(a, b logRow) int { return cmp.Compare(a.seq, b.seq) }

// eventsQuery returns the events query (see EventStream) for o, the run filter
// where and whether the selection has disable/enable ops.
func eventsQuery(o EventStreamOptions, where string, hasKeyOps bool) string {
	callOnly := func(name string, on bool) string {
		if on {
			return "CASE WHEN kind = 'tool_call' THEN " + name + " END"
		}
		return "NULL::VARCHAR"
	}
	keys := "NULL::UBIGINT"
	if hasKeyOps {
		keys = "CASE WHEN kind = 'tool_result' AND tool_key <> '' THEN hash(tool_key) END"
	}
	return `SELECT hash(run_id), seq, epoch_us(ts), est_tokens,
  (CASE kind WHEN 'tool_call' THEN 0 WHEN 'tool_result' THEN 1 WHEN 'compaction' THEN 2 ELSE 3 END)::TINYINT,
  CASE WHEN call_id <> '' THEN hash(call_id) END, ` + keys + `,
  ` + callOnly("tool_name", true) + `, ` + callOnly("target", o.Targets) + `, ` + callOnly("args", o.Args) + `, ` + callOnly("action_class", o.Classes) + `
FROM events WHERE (starts_with(kind, 'tool_') OR starts_with(kind, 'co'))` + andWhere(where)
}

// eventStreamWhere is the run filter of o: "run_id IN (SELECT run_id FROM runs
// WHERE …)" with its arguments, or "".
func eventStreamWhere(o EventStreamOptions) (string, []any) {
	var conds []string
	var args []any
	for _, f := range []struct {
		col  string
		vals []string
	}{{schema.ColModelFamily, o.ModelFamilies}, {"harness", o.Harnesses}, {schema.ColSourceFormat, o.Formats}} {
		if len(f.vals) == 0 {
			continue
		}
		conds = append(conds, f.col+" IN (?"+strings.Repeat(", ?", len(f.vals)-1)+")")
		for _, v := range f.vals {
			args = append(args, v)
		}
	}
	if len(conds) == 0 {
		return "", nil
	}
	return "run_id IN (SELECT run_id FROM runs WHERE " + strings.Join(conds, " AND ") + ")", args
}

func andWhere(where string) string {
	if where == "" {
		return ""
	}
	return " AND " + where
}

// logShape says whether the selected runs have disable or enable ops, and
// returns the events table's largest rowid.
func (s *Store) logShape(ctx context.Context, where string, args []any) (keyOps bool, maxRow int64, err error) {
	q := "SELECT EXISTS (SELECT 1 FROM context_ops WHERE (op = ? OR op = ?)" + andWhere(where) + "), (SELECT coalesce(max(rowid), 0) FROM events)"
	a := append([]any{string(schema.OpDisable), string(schema.OpEnable)}, args...)
	if err := s.db.QueryRowContext(ctx, q, a...).Scan(&keyOps, &maxRow); err != nil {
		return false, 0, fmt.Errorf("event log: %w", err)
	}
	return keyOps, maxRow, nil
}

// logCounts returns, per run index, how many rows the events query has of
// the run.
func (s *Store) logCounts(ctx context.Context, where string, args []any, idx *runIndex) ([]int, error) {
	q := "SELECT hash(run_id), count(*) FROM events WHERE (starts_with(kind, 'tool_') OR starts_with(kind, 'co'))" + andWhere(where) + " GROUP BY 1"
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("event log counts: %w", err)
	}
	defer rows.Close()
	want := make([]int, len(idx.hashes))
	for rows.Next() {
		var h uint64
		var n int
		if err := rows.Scan(&h, &n); err != nil {
			return nil, fmt.Errorf("event log counts: %w", err)
		}
		if ri := idx.lookupHash(h); ri >= 0 {
			want[ri] = n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("event log counts: %w", err)
	}
	return want, nil
}

// logRunsOps reads the selected runs, their index and their context ops.
func (s *Store) logRunsOps(ctx context.Context, where string, args []any) ([]schema.Run, *runIndex, [][]schema.ContextOp, error) {
	runs, hashes, err := s.logRuns(ctx, where, args)
	if err != nil {
		return nil, nil, nil, err
	}
	idx := &runIndex{ids: make(map[string]int32, len(runs)), hashes: make(map[uint64]int32, len(runs)), idx: -1}
	for i := range runs {
		idx.ids[runs[i].RunID] = int32(i)
		if _, dup := idx.hashes[hashes[i]]; dup {
			return nil, nil, nil, fmt.Errorf("event log: two run ids share the 64-bit hash %#x (one in %.0e for this many runs)", hashes[i], float64(len(runs))*float64(len(runs))/0x1p65)
		}
		idx.hashes[hashes[i]] = int32(i)
	}
	ops, err := s.logOps(ctx, where, args, idx)
	if err != nil {
		return nil, nil, nil, err
	}
	return runs, idx, ops, nil
}

// logRuns reads the selected runs in run_id order, with DuckDB's hash() of
// their ids. Runs and ops are read through the driver's rows
// (Store.driverRows): database/sql's Scan took 0.13–0.28 s for 23,400 runs,
// the driver's rows 0.03–0.06 s.
func (s *Store) logRuns(ctx context.Context, where string, args []any) ([]schema.Run, []uint64, error) {
	q := "SELECT run_id, hash(run_id), harness, model, model_family, source_format, resolved, started_at, coalesce(classified_by, '') FROM runs"
	if where != "" {
		q += " WHERE " + where
	}
	var out []schema.Run
	var hashes []uint64
	intern := map[string]string{} // harness, model, family and format repeat
	str := func(v driver.Value) string {
		s, _ := v.(string)
		if c, ok := intern[s]; ok {
			return c
		}
		intern[s] = s
		return s
	}
	err := s.driverRows(ctx, q+" ORDER BY run_id", args, 9, func(v []driver.Value) error {
		id, ok0 := v[0].(string)
		h, ok1 := v[1].(uint64)
		if !ok0 || !ok1 {
			return fmt.Errorf("run id %T, hash %T", v[0], v[1])
		}
		r := schema.Run{RunID: id, Harness: str(v[2]), Model: str(v[3]), ModelFamily: str(v[4]), SourceFormat: str(v[5]), ClassifiedBy: str(v[8])}
		if b, ok := v[6].(bool); ok {
			r.Resolved = &b
		}
		if t, ok := v[7].(time.Time); ok {
			t = t.UTC()
			r.StartedAt = &t
		}
		out = append(out, r)
		hashes = append(hashes, h)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("event log runs: %w", err)
	}
	return out, hashes, nil
}

// logOps reads the selected runs' context ops, grouped by run index.
func (s *Store) logOps(ctx context.Context, where string, args []any, idx *runIndex) ([][]schema.ContextOp, error) {
	q := "SELECT run_id, seq, op, CASE WHEN tool_key <> '' THEN hash(tool_key) END, tokens_before, tokens_after FROM context_ops"
	if where != "" {
		q += " WHERE " + where
	}
	out := make([][]schema.ContextOp, len(idx.ids))
	var h idHashes // never reset: the keys live until EventStream returns
	err := s.driverRows(ctx, q+" ORDER BY run_id, seq, op, tool_key", args, 6, func(v []driver.Value) error {
		id, _ := v[0].(string)
		seq, ok := v[1].(int64)
		op, ok2 := v[2].(string)
		if !ok || !ok2 {
			return fmt.Errorf("seq %T, op %T", v[1], v[2])
		}
		i := idx.lookup(id)
		if i < 0 {
			return nil
		}
		o := schema.ContextOp{RunID: id, Seq: seq, Op: schema.OpKind(op)}
		if key, ok := v[3].(uint64); ok {
			o.ToolKey = h.str(key)
		}
		if x, ok := v[4].(int64); ok {
			o.TokensBefore = &x
		}
		if x, ok := v[5].(int64); ok {
			o.TokensAfter = &x
		}
		out[i] = append(out[i], o)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("event log context_ops: %w", err)
	}
	return out, nil
}

// readChunks reads the events query a chunk at a time (streamChunks): the
// integer columns straight from DuckDB's vectors, target and args copied
// into an arena (strArena) as they must outlive the chunk.
func readChunks(ctx context.Context, s *Store, q string, args []any, out *logRange) error {
	var arena strArena
	return s.streamChunks(ctx, q, args, eventsTypes[:], func(c *chunk) error {
		runs, seqs, tss, toks := column[uint64](c, 0), column[int64](c, 1), column[int64](c, 2), column[int64](c, 3)
		kinds, calls, keys := column[int8](c, 4), column[uint64](c, 5), column[uint64](c, 6)
		for i := range c.n {
			if c.null(0, i) || c.null(1, i) || c.null(3, i) {
				return fmt.Errorf("events query: NULL run_id, seq or est_tokens")
			}
			var ts int64
			if !c.null(2, i) {
				ts = tss[i]
			}
			kind := int8(len(logKinds) - 1)
			if !c.null(4, i) {
				kind = kindCode(int64(kinds[i]))
			}
			var call, key uint64
			if !c.null(5, i) {
				call = calls[i]
			}
			if !c.null(6, i) {
				key = keys[i]
			}
			var target, argv string
			if out.withTarget {
				target = arena.clone(c.str(8, i))
			}
			if out.withArgs {
				argv = arena.clone(c.str(9, i))
			}
			out.add(runs[i], seqs[i], ts, toks[i], kind, c.str(7, i), call, key, target, argv, c.str(10, i))
		}
		return nil
	})
}

// eventsTypes are the events query's column types.
var eventsTypes = [...]colType{colUBigInt, colBigInt, colBigInt, colBigInt, colTinyInt, colUBigInt, colUBigInt, colVarchar, colVarchar, colVarchar, colVarchar}

// strArena copies strings into large blocks (one allocation per block, not
// per string); the copies live as long as any of them is referenced.
type strArena struct{ block []byte }

func (a *strArena) clone(s string) string {
	switch {
	case s == "":
		return ""
	case len(s) > arenaBlock/16:
		return strings.Clone(s)
	}
	if cap(a.block)-len(a.block) < len(s) {
		a.block = make([]byte, 0, arenaBlock)
	}
	n := len(a.block)
	a.block = append(a.block, s...)
	return unsafe.String(&a.block[n], len(s))
}

const arenaBlock = 1 << 20

// readSQL reads the events query through the driver's rows directly
// (database/sql's per-value conversion by reflection was an eighth of the
// read): run and id hashes arrive as uint64, seq, ts and tokens as int64,
// the kind code as int8, strings as string, NULL as nil.
func readSQL(ctx context.Context, s *Store, q string, args []any, out *logRange) error {
	return s.driverRows(ctx, q, args, 11, func(vals []driver.Value) error {
		runID, ok0 := vals[0].(uint64)
		seq, ok1 := vals[1].(int64)
		tok, ok3 := vals[3].(int64)
		if !ok0 || !ok1 || !ok3 {
			return fmt.Errorf("events query: run hash %T, seq %T, est_tokens %T", vals[0], vals[1], vals[3])
		}
		ts, _ := vals[2].(int64)
		kind := int64(len(logKinds) - 1)
		switch k := vals[4].(type) {
		case int8:
			kind = int64(k)
		case int64:
			kind = k
		}
		call, _ := vals[5].(uint64)
		key, _ := vals[6].(uint64)
		tool, _ := vals[7].(string)
		target, _ := vals[8].(string)
		argv, _ := vals[9].(string)
		class, _ := vals[10].(string)
		out.add(runID, seq, ts, tok, kindCode(kind), tool, call, key, target, argv, class)
		return nil
	})
}
