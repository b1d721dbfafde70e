package serve

import (
	"bytes"
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/trajmine/trajmine/dashboards"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/redact"
)

// Options configure a Server.
type Options struct {
	// DB is the database file the server reads and Build writes.
	DB string
	// Paths returns the paths watched for new logs (asked at every poll,
	// so that a standard place created after the start is seen); nil
	// watches nothing.
	Paths func() []string
	// Watching names what is watched, for the page's header.
	Watching string
	// Poll is the watcher's interval; 0 does not watch.
	Poll time.Duration
	// Build imports files (the watched paths themselves at the first
	// refresh, the new and changed log files after) into st, open for
	// writing, and returns the page's data: the caller's import and
	// report (cmd: ingest, then analysis.AnalyseReport and analysis.Page).
	Build func(ctx context.Context, st *store.Store, files []string) (*dashboards.Data, error)
	// Redact redacts the log text of every API response; nil keeps it as
	// logged (trajmine serve --no-redact).
	Redact *redact.Redactor
	// Public answers requests whatever their Host header (the server
	// listens on a public address: --http-public); else only requests to
	// a loopback host are answered.
	Public bool
	// Log receives a line per refresh; nil discards them.
	Log io.Writer
	// Now is the clock of the header's "updated" time (nil: time.Now).
	Now func() time.Time
}

// ConversationChars is the most characters of one event's text (and of
// one tool call's arguments) the conversation endpoint returns; the
// event endpoint returns one whole.
const ConversationChars = 256 << 10

// QueryTimeout bounds a search or a filter: the query is interrupted and
// the response says so.
const QueryTimeout = 30 * time.Second

// Server is trajmine serve's state: the sandboxed store handle, the page,
// its generation. Its methods are safe for concurrent use.
type Server struct {
	o Options

	refreshMu sync.Mutex   // one refresh at a time
	mu        sync.RWMutex // guards st: read by requests, replaced by refreshes
	st        *store.Store // the sandboxed (read-only) handle; nil during a refresh's write phase

	// base is the log files as they were before the first refresh's
	// import: Watch's first comparison (a file written during that import
	// or before Watch starts is seen at the first poll)
	base map[string]fileState

	// key is the secret of the runs' handles (handle): random per
	// server, so that a handle says nothing of its run's id
	key []byte

	page  atomic.Pointer[[]byte]
	gen   atomic.Int64
	state atomic.Pointer[status]
}

// status is what the generation endpoint reports besides the number.
type status struct {
	Updated string          `json:"updated"`
	Error   string          `json:"error,omitempty"` // the last refresh's failure; the page is the one before
	Runs    int             `json:"runs"`            // runs on the page
	Text    store.TextStats `json:"text"`            // what a search scans
	// inPage is the index in the page's run list of each run the page
	// lists, by store id; runs is the store id of every run of the store
	// by its handle (the API's run=)
	inPage map[string]int
	runs   map[string]string
}

// New returns a Server; Refresh makes its first page.
func New(o Options) *Server {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	s := &Server{o: o, key: make([]byte, 32)}
	_, _ = rand.Read(s.key) // crypto/rand.Read never fails (Go 1.24+)
	s.state.Store(&status{})
	return s
}

// handle is the API's name of the run whose store id is id (the run
// list's Live.Handles, a search hit's "run", the run= of the conversation
// and event endpoints): an HMAC of the id under the server's random key,
// so that a run whose id holds a secret (a key in a file name) is opened
// without its id reaching the browser, where the page shows it redacted.
// The same run keeps its handle across refreshes.
func (s *Server) handle(id string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(id))
	return "r" + base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:12])
}

// Generation is the number of the page served: 0 before the first
// refresh, one more after each.
func (s *Server) Generation() int64 { return s.gen.Load() }

// Refresh imports files and rebuilds the page (see the package doc):
// the read-only handle is closed while Build writes, then reopened
// sandboxed. When Build fails, the page stays the one before, the
// generation endpoint reports the error, and so does Refresh.
func (s *Server) Refresh(ctx context.Context, files []string) error {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	t0 := time.Now()
	if s.base == nil && s.o.Paths != nil {
		s.base = snapshot(s.o.Paths())
	}
	d, stats, ids, err := s.rebuild(ctx, files)
	st := *s.state.Load()
	if err != nil {
		st.Error = s.o.Redact.String(err.Error()) // an error can name a file or run id, which can hold a secret
		s.state.Store(&st)
		fmt.Fprintf(s.o.Log, "%s refresh failed (the page stays generation %d): %s\n", s.o.Now().Format("15:04:05"), s.gen.Load(), st.Error)
		return err
	}
	gen := s.gen.Load() + 1
	updated := s.o.Now().Format("2006-01-02 15:04:05")
	if n := len(files); gen > 1 {
		updated += fmt.Sprintf(", %s imported", textfmt.CountOf(n, "new or changed file"))
	}
	in := make(map[string]int, len(d.Runs))
	handles := make([]string, len(d.Runs))
	for i, r := range d.Runs {
		sid := cmp.Or(r.StoreID, r.RunID)
		if _, ok := in[sid]; !ok {
			in[sid] = i
		}
		handles[i] = s.handle(sid)
	}
	runs := make(map[string]string, len(ids))
	for _, id := range ids {
		runs[s.handle(id)] = id
	}
	d.Live = &dashboards.Live{Generation: gen, Poll: s.o.Poll.Milliseconds(), Watching: s.o.Watching, Updated: updated, Handles: handles}
	var b bytes.Buffer
	if err := dashboards.Write(&b, d, nil); err != nil {
		return err
	}
	page := b.Bytes()
	s.page.Store(&page)
	s.state.Store(&status{Updated: updated, Runs: len(d.Runs), Text: stats, inPage: in, runs: runs})
	s.gen.Store(gen) // last: the page is ready when the generation says so
	what := textfmt.CountOf(len(files), "watched path") + " imported"
	if gen > 1 {
		what = textfmt.CountOf(len(files), "new or changed file") + " imported"
	}
	fmt.Fprintf(s.o.Log, "%s generation %d: %s on the page (%s) in %.1f s\n", s.o.Now().Format("15:04:05"), gen, textfmt.CountOf(len(d.Runs), "run"), what, time.Since(t0).Seconds())
	return nil
}

// rebuild is Refresh's write phase: close the sandboxed handle, Build on a
// writable one, reopen sandboxed; it returns the page's data, what a
// search scans and the id of every run of the store.
func (s *Server) rebuild(ctx context.Context, files []string) (*dashboards.Data, store.TextStats, []string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st != nil {
		if err := s.st.Close(); err != nil {
			return nil, store.TextStats{}, nil, err
		}
		s.st = nil
	}
	rw, err := store.Open(ctx, store.Config{Path: s.o.DB})
	if err != nil {
		return nil, store.TextStats{}, nil, err
	}
	d, berr := s.o.Build(ctx, rw, files)
	if err := rw.Close(); err != nil && berr == nil {
		berr = err
	}
	// reopen read-only whatever Build did, so that the API goes on
	sb, err := store.Open(ctx, store.Config{Path: s.o.DB, Sandbox: true})
	if err != nil {
		return nil, store.TextStats{}, nil, errors.Join(berr, err)
	}
	s.st = sb
	if berr != nil {
		return nil, store.TextStats{}, nil, berr
	}
	stats, err := sb.TextStats(ctx)
	if err != nil {
		return nil, stats, nil, err
	}
	ids, err := sb.IndexRuns(ctx) // every run's handle, and one conversation read from its rows only
	return d, stats, ids, err
}

// Close closes the store handle.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st == nil {
		return nil
	}
	err := s.st.Close()
	s.st = nil
	return err
}

// Watch polls Options.Paths every Options.Poll until ctx is done and
// refreshes with the files that are new or changed since the poll before
// (the first poll compares with the files as they were before the first
// refresh imported them, or when Watch started if it came first). A failed
// refresh is logged and retried at the next change.
func (s *Server) Watch(ctx context.Context) {
	if s.o.Poll <= 0 || s.o.Paths == nil {
		return
	}
	s.refreshMu.Lock()
	prev := s.base
	s.refreshMu.Unlock()
	if prev == nil {
		prev = snapshot(s.o.Paths())
	}
	t := time.NewTicker(s.o.Poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cur := snapshot(s.o.Paths())
		if files := changed(prev, cur); len(files) > 0 {
			if err := s.Refresh(ctx, files); err != nil && ctx.Err() != nil {
				return
			}
		}
		prev = cur
	}
}

// Serve answers HTTP requests on ln with s's handler until ctx is done,
// then shuts the server down (requests in flight get 5 s).
func Serve(ctx context.Context, ln net.Listener, s *Server) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
