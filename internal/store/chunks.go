package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	bindings "github.com/duckdb/duckdb-go-bindings"
	"github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// This file reads query results a chunk (up to 2,048 rows) and a column at
// a time through DuckDB's C API (duckdb-go's mapping package), as a
// streaming query: DuckDB produces the next chunks while the caller
// consumes one, and values are read from the vectors in place, without
// database/sql's driver.Value per value (an allocation for most integers
// and a copy of every string). For the event log's two million rows this
// read took 0.16–0.2 s against 0.5 s for the driver's bare Next loop
// (BENCHMARKS.md, issue 6).
//
// The C API needs DuckDB's own handle of the database, which database/sql
// does not expose; duckdb-go opens every file database through DuckDB's
// instance cache, so rawDB asks the cache for the same path with the same
// options and gets the database the Store's connections use (the same
// buffer pool, catalog and transactions). In-memory stores have no path
// to share and so no raw handle: their callers read through database/sql.

// errNoRaw says the store has no raw handle (an in-memory database).
var errNoRaw = errors.New("no raw DuckDB handle for an in-memory database")

// rawHandle is the Store's DuckDB database handle for the C API, opened on
// first use and closed with the Store.
type rawHandle struct {
	once sync.Once
	db   mapping.Database
	err  error
}

// dsnOptions are the DuckDB options Open passes in the DSN, which rawDB
// must pass again (the instance cache refuses a second opening of a file
// with other options).
func dsnOptions(c Config) [][2]string {
	o := [][2]string{{"storage_compatibility_version", storageVersionValue}}
	if c.ReadOnly && c.Path != "" {
		o = append([][2]string{{"access_mode", "read_only"}}, o...)
	} else {
		o = append(o, [2]string{"write_buffer_row_group_count", writeBufferRowGroups})
	}
	if c.Sandbox {
		o = append(o, sandboxOptions(c)...)
	}
	return o
}

// writeBufferRowGroups is DuckDB's write_buffer_row_group_count for a
// store opened for writing: an import writes each full row group (122,880
// rows) to the file as soon as it is full, during the appends, on the
// writer's goroutine. DuckDB's default, 5, kept up to five of them in
// memory and wrote them together, at the latest in the final COMMIT, on
// one core, after the last line: on a 1.07 GB file of 174,784 events that
// commit took 0.99–2.2 s of CPU, with 1 0.41 s, and peak RSS fell from 868
// to 737 MB (medians of nine runs; BENCHMARKS.md issue 33, fifth pass),
// the import's CPU unchanged. A file of fewer events than a row group is
// unchanged: nothing of it is full before the commit. What is stored, and
// the row groups' size, are the same.
const writeBufferRowGroups = "1"

// sandboxOptions are the DuckDB settings of a sandboxed store (Config.Sandbox),
// the engine's own guarantees rather than a filter on query text:
//
//   - enable_external_access=false: no file, URL or other database can be
//     read or written (COPY … TO, EXPORT DATABASE, ATTACH, read_csv('…'),
//     httpfs); only the store's own tables are reachable;
//   - autoinstall/autoload_known_extensions=false, allow_community_extensions
//     =false: no extension is downloaded or loaded (INSTALL httpfs fails);
//   - max_temp_directory_size: what a query may spill to disk is capped
//     (sandboxSpill, fixed when the store is opened);
//   - memory_limit as the store's, then lock_configuration=true: no SET,
//     RESET or configuration PRAGMA can change any of the above.
func sandboxOptions(c Config) [][2]string {
	return [][2]string{
		{"enable_external_access", "false"},
		{"autoinstall_known_extensions", "false"},
		{"autoload_known_extensions", "false"},
		{"allow_community_extensions", "false"},
		{"memory_limit", c.memoryLimit()},
		{"max_temp_directory_size", c.spill},
		{"lock_configuration", "true"},
	}
}

// rawDB returns DuckDB's handle of the store's database, or errNoRaw.
func (s *Store) rawDB() (mapping.Database, error) {
	if s.path == "" {
		return mapping.Database{}, errNoRaw
	}
	s.raw.once.Do(func() {
		var cfg mapping.Config
		if mapping.CreateConfig(&cfg) == mapping.StateError {
			s.raw.err = errors.New("raw handle: cannot create a DuckDB config")
			return
		}
		defer mapping.DestroyConfig(&cfg)
		// duckdb-go names itself the client, as its own connector does
		for _, kv := range append([][2]string{{"duckdb_api", "go"}}, dsnOptions(s.cfg)...) {
			if mapping.SetConfig(cfg, kv[0], kv[1]) == mapping.StateError {
				s.raw.err = fmt.Errorf("raw handle: cannot set DuckDB option %s=%s", kv[0], kv[1])
				return
			}
		}
		var msg string
		if mapping.GetOrCreateFromCache(duckdb.GetInstanceCache(), s.path, &s.raw.db, cfg, &msg) == mapping.StateError {
			mapping.Close(&s.raw.db)
			s.raw.err = fmt.Errorf("raw handle: %s", msg)
		}
	})
	return s.raw.db, s.raw.err
}

// rawConn connects to DuckDB's handle of the store's database (rawDB);
// op names the caller in the error when it cannot. The caller
// disconnects (mapping.Disconnect).
func (s *Store) rawConn(op string) (mapping.Connection, error) {
	db, err := s.rawDB()
	if err != nil {
		return mapping.Connection{}, err
	}
	var conn mapping.Connection
	if mapping.Connect(db, &conn) == mapping.StateError {
		return conn, errors.New(op + ": cannot connect")
	}
	return conn, nil
}

// closeRaw closes the raw handle if it was opened.
func (s *Store) closeRaw() {
	s.raw.once.Do(func() {}) // a later rawDB must not open it again
	if s.raw.db.Ptr != nil {
		mapping.Close(&s.raw.db)
	}
	s.raw.err = errors.New("raw handle: the store is closed")
}

// colType is a result column type streamChunks checks before reading.
type colType = mapping.Type

const (
	colTinyInt   = mapping.TypeTinyInt
	colBigInt    = mapping.TypeBigInt
	colUBigInt   = mapping.TypeUBigInt
	colVarchar   = mapping.TypeVarchar
	colBoolean   = mapping.TypeBoolean
	colTimestamp = mapping.TypeTimestamp // µs since the epoch, as an int64
)

// chunk is one result chunk; its values are valid until fn returns.
type chunk struct {
	n     int
	data  []unsafe.Pointer // per column
	valid []unsafe.Pointer // per column; nil when no row is NULL
}

// column returns column col as a slice of n values of T, which must be the
// column's type (streamChunks checked it). Values at NULL rows are
// undefined: see null.
func column[T int8 | uint8 | int64 | uint64](c *chunk, col int) []T {
	return unsafe.Slice((*T)(c.data[col]), c.n)
}

// null says whether row is NULL in column col.
func (c *chunk) null(col, row int) bool {
	m := c.valid[col]
	if m == nil {
		return false
	}
	return *(*uint64)(unsafe.Add(m, (row>>6)*8))&(1<<(row&63)) == 0
}

// str returns the VARCHAR at row of column col ("" at NULL). The string
// points into the chunk: copy it to keep it after fn returns.
func (c *chunk) str(col, row int) string {
	if c.null(col, row) {
		return ""
	}
	// duckdb_string_t: a uint32 length, then up to 12 bytes inline, or
	// (longer strings) a 4-byte prefix and a pointer at offset 8
	p := unsafe.Add(c.data[col], row*16)
	n := *(*uint32)(p)
	if n <= 12 {
		return unsafe.String((*byte)(unsafe.Add(p, 4)), int(n))
	}
	return unsafe.String(*(**byte)(unsafe.Add(p, 8)), int(n))
}

// streamChunks runs the query q, with args bound to its ? placeholders
// (string, int64, int, or []string as a VARCHAR[] list), as a streaming query on a connection of its own
// and calls fn with each chunk of its result, in order. The result must
// have the column types types. Cancelling ctx interrupts the query.
// errNoRaw: the store has no raw handle.
func (s *Store) streamChunks(ctx context.Context, q string, args []any, types []colType, fn func(*chunk) error) (err error) {
	conn, err := s.rawConn("raw handle")
	if err != nil {
		return err
	}
	defer mapping.Disconnect(&conn)
	// cancelling ctx interrupts the query; the interrupt must be over
	// before the connection is closed (the deferred Disconnect runs after)
	interrupted := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(interrupted)
		mapping.Interrupt(conn)
	})
	defer func() {
		if !stop() {
			<-interrupted
		}
	}()

	var ps mapping.PreparedStatement
	state := mapping.Prepare(conn, q, &ps)
	defer mapping.DestroyPrepare(&ps)
	if state == mapping.StateError {
		return errors.New(mapping.PrepareError(ps))
	}
	for i, a := range args {
		idx := mapping.IdxT(i + 1)
		switch v := a.(type) {
		case string:
			state = mapping.BindVarchar(ps, idx, v)
		case int64:
			state = mapping.BindInt64(ps, idx, v)
		case int:
			state = mapping.BindInt64(ps, idx, int64(v))
		case []string:
			state = bindStrings(ps, idx, v)
		default:
			return fmt.Errorf("argument %d: cannot bind a %T", i+1, a)
		}
		if state == mapping.StateError {
			return fmt.Errorf("argument %d: %s", i+1, mapping.PrepareError(ps))
		}
	}
	// A streaming result: DuckDB computes chunks as they are fetched
	// instead of materialising the whole result first. (The C API marks
	// duckdb_pending_prepared_streaming deprecated in favour of an API
	// not yet in the Go bindings; it is still supported.)
	var pending mapping.PendingResult
	state = bindings.PendingPreparedStreaming(ps, &pending)
	defer mapping.DestroyPending(&pending)
	if state == mapping.StateError {
		return errors.New(mapping.PendingError(pending))
	}
	var res mapping.Result
	state = mapping.ExecutePending(pending, &res)
	defer mapping.DestroyResult(&res)
	if state == mapping.StateError {
		return queryErr(ctx, mapping.ResultError(&res))
	}
	if n := int(mapping.ColumnCount(&res)); n != len(types) {
		return fmt.Errorf("query has %d columns, want %d", n, len(types))
	}
	for i, want := range types {
		if got := mapping.ColumnType(&res, mapping.IdxT(i)); got != want {
			return fmt.Errorf("query column %d has DuckDB type %d, want %d", i, got, want)
		}
	}
	c := chunk{data: make([]unsafe.Pointer, len(types)), valid: make([]unsafe.Pointer, len(types))}
	for {
		// the interrupt reaches DuckDB asynchronously (AfterFunc), and
		// chunks already computed still arrive: stop at once (under the
		// race detector 1,259 chunks came after the cancel)
		if err := ctx.Err(); err != nil {
			return err
		}
		ch := mapping.FetchChunk(res)
		if ch.Ptr == nil {
			break
		}
		c.n = int(mapping.DataChunkGetSize(ch))
		for i := range types {
			v := mapping.DataChunkGetVector(ch, mapping.IdxT(i))
			c.data[i] = mapping.VectorGetData(v)
			c.valid[i] = mapping.VectorGetValidity(v)
		}
		err := error(nil)
		if c.n > 0 {
			err = fn(&c)
		}
		mapping.DestroyDataChunk(&ch)
		if err != nil {
			return err
		}
	}
	if msg := mapping.ResultError(&res); msg != "" {
		return queryErr(ctx, msg)
	}
	return ctx.Err()
}

// queryErr is DuckDB's error message, or ctx's error when the query was
// interrupted because ctx ended.
func queryErr(ctx context.Context, msg string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.New(msg)
}

// bindStrings binds vs as a VARCHAR[] list value to parameter idx.
func bindStrings(ps mapping.PreparedStatement, idx mapping.IdxT, vs []string) mapping.State {
	vals := make([]mapping.Value, len(vs))
	for i, v := range vs {
		vals[i] = mapping.CreateVarchar(v)
	}
	lt := mapping.CreateLogicalType(mapping.TypeVarchar)
	list := mapping.CreateListValue(lt, vals)
	state := mapping.BindValue(ps, idx, list)
	mapping.DestroyValue(&list)
	mapping.DestroyLogicalType(&lt)
	for i := range vals {
		mapping.DestroyValue(&vals[i])
	}
	return state
}
