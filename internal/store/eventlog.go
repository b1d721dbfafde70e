package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/trajmine/trajmine/schema"
)

// EventLogOptions select what EventLog reads. The zero value reads every
// run, without targets and arguments.
type EventLogOptions struct {
	// Targets reads events.target (activity names by tool and target kind).
	Targets bool
	// Args reads events.args (a classifier needs them). They are the most
	// expensive column to read: leave them out when not needed.
	Args bool
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

// EventLogReaders lists the row readers compiled in, the default first:
// "chunks" (DuckDB's C API, file databases only), "sql" (the driver's
// rows, always) and "arrow" (DuckDB's Arrow interface, in builds with
// -tags duckdb_arrow).
func EventLogReaders() []string {
	if arrowReader != nil {
		return []string{"chunks", "sql", "arrow"}
	}
	return []string{"chunks", "sql"}
}

// logRows is the events query's result, column by column, in blocks of
// up to blockRows rows (filled in place: nothing is copied as the result
// grows, and two readers' rows are joined by joining their block lists).
// Row i is row i&blockMask of block i>>blockShift. All columns but target
// and args are free of pointers (nothing for the garbage collector to scan
// or guard with write barriers); target and args are kept only when asked.
type logRows struct {
	blocks     []*logBlock
	withTarget bool
	withArgs   bool
	tools      []string // tool names by index; tools[0] = ""
	toolIdx    map[string]uint16
}

type logBlock struct {
	run             []uint64 // hash(run_id); EventLog maps it to the run's index
	seq, ts, tokens []int64  // ts: µs since the epoch, 0 = NULL
	kind            []int8   // index into logKinds
	tool            []uint16
	callID, toolKey []uint64 // hash(id); 0 = none
	target, args    []string
}

const (
	blockShift = 16
	blockRows  = 1 << blockShift
	blockMask  = blockRows - 1
)

func newLogRows(target, args bool) *logRows {
	return &logRows{withTarget: target, withArgs: args, tools: []string{""}, toolIdx: map[string]uint16{"": 0}}
}

// toolID interns a tool name (cloned when new: s may point into a batch).
func (r *logRows) toolID(s string) uint16 {
	if id, ok := r.toolIdx[s]; ok {
		return id
	}
	if len(r.tools) >= 1<<16 {
		return 0 // more than 65,535 tool names: the rest go unnamed
	}
	s = strings.Clone(s)
	id := uint16(len(r.tools))
	r.tools = append(r.tools, s)
	r.toolIdx[s] = id
	return id
}

// last returns the block rows are added to, starting a new one when the
// last is full.
func (r *logRows) last() *logBlock {
	if n := len(r.blocks); n > 0 && len(r.blocks[n-1].run) < blockRows {
		return r.blocks[n-1]
	}
	b := &logBlock{
		run: make([]uint64, 0, blockRows), seq: make([]int64, 0, blockRows), ts: make([]int64, 0, blockRows),
		tokens: make([]int64, 0, blockRows), kind: make([]int8, 0, blockRows), tool: make([]uint16, 0, blockRows),
		callID: make([]uint64, 0, blockRows), toolKey: make([]uint64, 0, blockRows),
	}
	if r.withTarget {
		b.target = make([]string, 0, blockRows)
	}
	if r.withArgs {
		b.args = make([]string, 0, blockRows)
	}
	r.blocks = append(r.blocks, b)
	return b
}

// add appends one row; target and args are dropped unless kept.
func (r *logRows) add(run uint64, seq, ts, tokens int64, kind int8, tool uint16, call, key uint64, target, args string) {
	b := r.last()
	b.run = append(b.run, run)
	b.seq = append(b.seq, seq)
	b.ts = append(b.ts, ts)
	b.tokens = append(b.tokens, tokens)
	b.kind = append(b.kind, kind)
	b.tool = append(b.tool, tool)
	b.callID = append(b.callID, call)
	b.toolKey = append(b.toolKey, key)
	if r.withTarget {
		b.target = append(b.target, target)
	}
	if r.withArgs {
		b.args = append(b.args, args)
	}
}

// appendRows appends p's rows (its blocks), re-interning its tool names.
func (r *logRows) appendRows(p *logRows) {
	remap := make([]uint16, len(p.tools))
	same := true
	for i, t := range p.tools {
		remap[i] = r.toolID(t)
		same = same && remap[i] == uint16(i)
	}
	for _, b := range p.blocks {
		if !same {
			for j, t := range b.tool {
				b.tool[j] = remap[t]
			}
		}
		r.blocks = append(r.blocks, b)
	}
}

// len is the number of row indexes (rows and the room left in blocks).
func (r *logRows) len() int { return len(r.blocks) << blockShift }

// logReaders is how many rowid ranges of the events table EventLog reads
// at once.
const logReaders = 2

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

// logKinds are the event kinds EventLog reads, by the code the events
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

// rowReader runs the events query and appends its rows to out. The strings
// it appends may refer to memory that release frees.
type rowReader func(ctx context.Context, s *Store, q string, args []any, out *logRows) (release func(), err error)

var sqlReader rowReader = readSQL

// EventLog streams what process mining needs of every selected run, in
// run_id order, to fn: the run (run_id, harness, model, model_family,
// source_format, resolved, started_at), its events of kinds tool_call,
// tool_result, compaction and context_op in seq order, and its context_ops
// rows (seq, op, tool_key, tokens_before, tokens_after). Of each event it
// reads seq, ts, kind, est_tokens and call_id; tool_name (and target and
// args when asked) of tool calls only; tool_key of tool results only, and
// only when the selection has disable or enable ops (their tokens are the
// hidden outputs'). CallID and ToolKey (of events and ops) are not the
// logged ids but 8-byte strings holding DuckDB's 64-bit hash() of them:
// equal ids give equal strings, which is all matching needs, and moving 8
// bytes costs DuckDB much less than moving the ids (an id whose hash is 0,
// one in 2⁶⁴, reads as none). Rows are matched to runs by hash(run_id) too;
// two selected runs with one hash (about one in 10¹¹ for 25,000 runs) make
// EventLog fail rather than mix them. fn must not keep the slices or the
// events' strings: they are reused or freed after it returns.
//
// The queries (filters, when set, add run_id IN (SELECT run_id FROM runs
// WHERE model_family IN (…) AND …)):
//
//	SELECT EXISTS (SELECT 1 FROM context_ops WHERE op = 'disable' OR op = 'enable'), max(rowid) of events
//	SELECT hash(run_id), seq, epoch_us(ts), est_tokens, <kind as 0..3>, hash(call_id), hash(tool_key) | NULL,
//	       tool_name, target | NULL, args | NULL    -- of tool calls, else NULL
//	  FROM events WHERE (starts_with(kind, 'tool_') OR starts_with(kind, 'co')) AND rowid >= ? AND rowid < ?
//	SELECT run_id, hash(run_id), harness, model, model_family, source_format, resolved, started_at FROM runs ORDER BY run_id
//	SELECT run_id, seq, op, hash(tool_key), tokens_before, tokens_after FROM context_ops ORDER BY run_id, seq, op, tool_key
//
// The runs and context ops queries run while the events are read.
// The events query runs once per rowid range, logReaders ranges at once on
// their own connections; their rows are appended in range order. The
// chunks reader (the default for database files) streams each range's
// result a chunk at a time and reads the vectors in place (chunks.go); the
// sql reader takes database/sql's driver rows, whose result DuckDB
// materialises before the first row.
//
// What the measurements (BENCHMARKS.md) chose: the events query has no
// ORDER BY, because sorting two million rows by run_id and seq costs DuckDB
// more than everything else together; rows are grouped by run in memory (a
// stable counting sort by run index) and sorted by seq within a run only
// when out of order. kind IN (…) filters several times slower than the
// prefix tests. Each string column costs DuckDB about as much as all the
// integer columns together, so kinds travel as codes, ids as hashes, and
// strings only where needed. Streaming chunks instead of the driver's
// rows took the read from 1.46 s to 0.77 s (with the mining builder).
// EventLog holds the selected rows at once (about 70 bytes a row, plus
// targets and arguments when asked).
func (s *Store) EventLog(ctx context.Context, o EventLogOptions, fn func(run *schema.Run, events []schema.Event, ops []schema.ContextOp) error) error {
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
	where, args := eventLogWhere(o)

	// 1. whether the selection hides or re-shows outputs (the events
	// query reads the results' tool keys only then), and the rowid ranges
	hasKeyOps, maxRow, err := s.logShape(ctx, where, args)
	if err != nil {
		return err
	}
	// 2. events, in logReaders rowid ranges read at once (each on its own
	// connection), appended in range order: the same rows in the same order
	// as one query, with DuckDB's work and the row conversion on as many
	// threads. Rows carry hash(run_id), mapped to runs in step 4, so the
	// reads need not wait for the runs and context ops (step 3), which
	// run meanwhile.
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	q := eventsQuery(o, where, hasKeyOps) + " AND rowid >= ? AND rowid < ?"
	parts := make([]*logRows, logReaders)
	releases := make([]func(), logReaders)
	errs := make([]error, logReaders)
	span := (maxRow + logReaders) / logReaders
	var wg sync.WaitGroup
	for k := range parts {
		parts[k] = newLogRows(o.Targets, o.Args)
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			lo := int64(k) * span
			releases[k], errs[k] = read(rctx, s, q, append(slices.Clip(args), lo, lo+span), parts[k])
		}(k)
	}
	defer func() {
		for _, rel := range releases {
			if rel != nil {
				rel()
			}
		}
	}()
	// 3. runs and their context ops
	runs, idx, ops, err := s.logRunsOps(ctx, where, args)
	if err != nil {
		cancel()
		wg.Wait()
		return err
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("event log: %w", err)
	}
	rows := parts[0]
	for _, p := range parts[1:] {
		rows.appendRows(p)
	}
	if rows.len() > math.MaxInt32 {
		return fmt.Errorf("event log: more than %d rows", math.MaxInt32)
	}

	// 4. group by run (stable), hand over in run_id order; rows of runs
	// not selected by the runs query (added since) are dropped
	runOf := make([][]int32, len(rows.blocks))
	starts := make([]int, len(runs)+1)
	for k, b := range rows.blocks {
		runOf[k] = make([]int32, len(b.run))
		for j, h := range b.run {
			r := idx.lookupHash(h)
			runOf[k][j] = r
			starts[r+1]++ // r = -1: counted in starts[0], unused
		}
	}
	starts[0] = 0
	for i := 1; i < len(starts); i++ {
		starts[i] += starts[i-1]
	}
	order := make([]int32, starts[len(runs)])
	next := slices.Clone(starts[:len(runs)])
	for k, rs := range runOf {
		for j, r := range rs {
			if r >= 0 {
				order[next[r]] = int32(k<<blockShift | j)
				next[r]++
			}
		}
	}
	seqOf := func(i int32) int64 { return rows.blocks[i>>blockShift].seq[i&blockMask] }
	tsBuf := make([]time.Time, 0, 256)
	var evs []schema.Event
	var ids idHashes
	for ri := range runs {
		if ri&255 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		part := order[starts[ri]:starts[ri+1]]
		if !slices.IsSortedFunc(part, func(a, b int32) int { return cmpInt64(seqOf(a), seqOf(b)) }) {
			slices.SortStableFunc(part, func(a, b int32) int { return cmpInt64(seqOf(a), seqOf(b)) })
		}
		evs = evs[:0]
		tsBuf = tsBuf[:0]
		if cap(tsBuf) < len(part) {
			tsBuf = make([]time.Time, 0, len(part))
		}
		ids.reset(2 * len(part))
		for _, i := range part {
			b, j := rows.blocks[i>>blockShift], i&blockMask
			e := schema.Event{RunID: runs[ri].RunID, Seq: b.seq[j], Kind: logKinds[b.kind[j]], ToolName: rows.tools[b.tool[j]],
				CallID: ids.str(b.callID[j]), ToolKey: ids.str(b.toolKey[j]), EstTokens: b.tokens[j]}
			if rows.withTarget {
				e.Target = b.target[j]
			}
			if rows.withArgs {
				e.Args = b.args[j]
			}
			if us := b.ts[j]; us != 0 {
				tsBuf = append(tsBuf, time.UnixMicro(us).UTC())
				e.TS = &tsBuf[len(tsBuf)-1]
			}
			evs = append(evs, e)
		}
		if err := fn(&runs[ri], evs, ops[ri]); err != nil {
			return err
		}
	}
	return nil
}

// eventsQuery returns the events query (see EventLog) for o, the run filter
// where and whether the selection has disable/enable ops.
func eventsQuery(o EventLogOptions, where string, hasKeyOps bool) string {
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
  ` + callOnly("tool_name", true) + `, ` + callOnly("target", o.Targets) + `, ` + callOnly("args", o.Args) + `
FROM events WHERE (starts_with(kind, 'tool_') OR starts_with(kind, 'co'))` + andWhere(where)
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// eventLogWhere is the run filter of o: "run_id IN (SELECT run_id FROM runs
// WHERE …)" with its arguments, or "".
func eventLogWhere(o EventLogOptions) (string, []any) {
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

func (s *Store) logRuns(ctx context.Context, where string, args []any) ([]schema.Run, []uint64, error) {
	q := "SELECT run_id, hash(run_id), harness, model, model_family, source_format, resolved, started_at FROM runs"
	if where != "" {
		q += " WHERE " + where
	}
	rows, err := s.db.QueryContext(ctx, q+" ORDER BY run_id", args...)
	if err != nil {
		return nil, nil, fmt.Errorf("event log runs: %w", err)
	}
	defer rows.Close()
	var out []schema.Run
	var hashes []uint64
	for rows.Next() {
		var r schema.Run
		var h uint64
		var resolved sql.NullBool
		var start sql.NullTime
		if err := rows.Scan(&r.RunID, &h, &r.Harness, &r.Model, &r.ModelFamily, &r.SourceFormat, &resolved, &start); err != nil {
			return nil, nil, fmt.Errorf("event log runs: %w", err)
		}
		if resolved.Valid {
			v := resolved.Bool
			r.Resolved = &v
		}
		if start.Valid {
			t := start.Time.UTC()
			r.StartedAt = &t
		}
		out = append(out, r)
		hashes = append(hashes, h)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("event log runs: %w", err)
	}
	return out, hashes, nil
}

// logOps reads the selected runs' context ops, grouped by run index, and
// reports whether any is a disable or enable (whose tokens need the tool
// outputs' keys).
func (s *Store) logOps(ctx context.Context, where string, args []any, idx *runIndex) ([][]schema.ContextOp, error) {
	q := "SELECT run_id, seq, op, CASE WHEN tool_key <> '' THEN hash(tool_key) END, tokens_before, tokens_after FROM context_ops"
	if where != "" {
		q += " WHERE " + where
	}
	rows, err := s.db.QueryContext(ctx, q+" ORDER BY run_id, seq, op, tool_key", args...)
	if err != nil {
		return nil, fmt.Errorf("event log context_ops: %w", err)
	}
	defer rows.Close()
	out := make([][]schema.ContextOp, len(idx.ids))
	var h idHashes // never reset: the keys live until EventLog returns
	for rows.Next() {
		var o schema.ContextOp
		var op string
		var key sql.Null[uint64]
		var before, after sql.NullInt64
		if err := rows.Scan(&o.RunID, &o.Seq, &op, &key, &before, &after); err != nil {
			return nil, fmt.Errorf("event log context_ops: %w", err)
		}
		o.Op = schema.OpKind(op)
		if key.Valid {
			o.ToolKey = h.str(key.V)
		}
		if before.Valid {
			o.TokensBefore = &before.Int64
		}
		if after.Valid {
			o.TokensAfter = &after.Int64
		}
		if i := idx.lookup(o.RunID); i >= 0 {
			out[i] = append(out[i], o)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("event log context_ops: %w", err)
	}
	return out, nil
}

// readChunks reads the events query a chunk at a time (streamChunks): the
// integer columns straight from DuckDB's vectors, target and args copied
// into an arena (strArena) as they must outlive the chunk.
func readChunks(ctx context.Context, s *Store, q string, args []any, out *logRows) (func(), error) {
	var arena strArena
	return nil, s.streamChunks(ctx, q, args, eventsTypes[:], func(c *chunk) error {
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
			out.add(runs[i], seqs[i], ts, toks[i], kind, out.toolID(c.str(7, i)), call, key, target, argv)
		}
		return nil
	})
}

// eventsTypes are the events query's column types.
var eventsTypes = [...]colType{colUBigInt, colBigInt, colBigInt, colBigInt, colTinyInt, colUBigInt, colUBigInt, colVarchar, colVarchar, colVarchar}

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
func readSQL(ctx context.Context, s *Store, q string, args []any, out *logRows) (func(), error) {
	return nil, s.driverRows(ctx, q, args, 10, func(vals []driver.Value) error {
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
		out.add(runID, seq, ts, tok, kindCode(kind), out.toolID(tool), call, key, target, argv)
		return nil
	})
}
