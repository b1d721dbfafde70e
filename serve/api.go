package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
)

// Handler answers the page and the API:
//
//	GET /                                 the page (generation Generation)
//	GET /api/generation                   {"generation", "updated", "error", "runs", "text"}
//	GET /api/conversation?run=H           the run's conversation (dashboards.Conversation), texts up to ConversationChars
//	GET /api/event?run=H&seq=N            {"text", "args"}: one event whole
//	GET /api/search?q=Q[&regex=1][&limit=N]  the runs whose text matches Q (searchHit) and a "note" stating the scan
//	GET /api/runs?model=&family=&format=&harness=&end=&tool=&text=&min_calls=&max_calls=&min_peak=&resolved=&sql=
//	                                      {"run_ids", "runs", "sql", "args"}: the runs the filters select
//
// A run is named to the API by its handle H (Server.handle: the page's
// Live.Handles, a search hit's or a filter's "runs"), never by its id: a
// run id is a file name, which can hold a secret, and the answers carry
// run ids redacted as the page shows them. Every request must be GET or
// HEAD and, unless Options.Public, name a loopback host; log text in the
// answers is redacted (Options.Redact).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", s.handlePage)
	mux.HandleFunc("/api/generation", s.handleGeneration)
	mux.HandleFunc("/api/conversation", s.handleConversation)
	mux.HandleFunc("/api/event", s.handleEvent)
	mux.HandleFunc("/api/search", s.handleSearch)
	mux.HandleFunc("/api/runs", s.handleRuns)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		if !s.o.Public && !loopbackRequestHost(r.Host) {
			writeError(w, http.StatusMisdirectedRequest, fmt.Errorf("host %q: trajmine serve answers requests to localhost only (start it with --http-public to serve other names)", r.Host))
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, fmt.Errorf("%s: only GET reads from trajmine serve", r.Method))
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func (s *Server) handlePage(w http.ResponseWriter, r *http.Request) {
	p := s.page.Load()
	if p == nil {
		writeError(w, http.StatusServiceUnavailable, errors.New("the first page is being built"))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "frame-ancestors 'none'")
	_, _ = w.Write(*p)
}

func (s *Server) handleGeneration(w http.ResponseWriter, r *http.Request) {
	st := s.state.Load()
	writeJSON(w, struct {
		Generation int64 `json:"generation"`
		*status
	}{s.gen.Load(), st})
}

// store runs f with the sandboxed handle, waiting for a refresh's write
// phase to end.
func (s *Server) store(w http.ResponseWriter, f func(st *store.Store)) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.st == nil {
		writeError(w, http.StatusServiceUnavailable, errors.New("the store is not open (a refresh failed; see the server's log)"))
		return
	}
	f(s.st)
}

// errNoRun is the answer to a run= that names no run of the store: the
// value given, redacted (a run's id given for its handle may hold a
// secret).
func (s *Server) errNoRun(h string) error {
	return fmt.Errorf("run %q: no such run (run= takes a run's handle, as the page and the search give it; the store may have changed: reload the page)", s.shownID(h))
}

// runOf is the store id of the run handle h names ("" and false for
// none): run= of the conversation and event endpoints.
func (s *Server) runOf(h string) (string, bool) {
	id, ok := s.state.Load().runs[h]
	return id, ok
}

// shownID is a run id as the page shows it: redacted.
func (s *Server) shownID(id string) string { return s.o.Redact.String(id) }

func (s *Server) handleConversation(w http.ResponseWriter, r *http.Request) {
	h := r.URL.Query().Get("run")
	if h == "" {
		writeError(w, http.StatusBadRequest, errors.New("run: give a run's handle (?run=H)"))
		return
	}
	id, ok := s.runOf(h)
	if !ok {
		writeError(w, http.StatusNotFound, s.errNoRun(h))
		return
	}
	s.store(w, func(st *store.Store) {
		c, err := analysis.LoadConversation(r.Context(), st, id, &analysis.ConversationOptions{Limit: ConversationChars, Redact: s.o.Redact})
		if err != nil {
			// the error names the run by its id: say it by its handle
			if errors.Is(err, analysis.ErrNoRun) {
				err = s.errNoRun(h)
			}
			writeError(w, statusOf(err), err)
			return
		}
		c.RunID = s.shownID(id)
		writeJSON(w, c)
	})
}

func (s *Server) handleEvent(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	h := q.Get("run")
	seq, err := strconv.ParseInt(q.Get("seq"), 10, 64)
	if h == "" || err != nil {
		writeError(w, http.StatusBadRequest, errors.New("give a run's handle and an event's seq (?run=H&seq=N)"))
		return
	}
	id, ok := s.runOf(h)
	if !ok {
		writeError(w, http.StatusNotFound, s.errNoRun(h))
		return
	}
	s.store(w, func(st *store.Store) {
		text, args, err := st.EventText(r.Context(), id, seq)
		if err != nil {
			if errors.Is(err, store.ErrNoEvent) {
				err = fmt.Errorf("run %q, seq %d: %w", s.shownID(h), seq, store.ErrNoEvent)
			}
			writeError(w, statusOf(err), err)
			return
		}
		writeJSON(w, struct {
			Text string `json:"text"`
			Args string `json:"args"`
		}{s.o.Redact.String(text), s.o.Redact.String(args)})
	})
}

// searchHit is a store.SearchHit on the page: its run id redacted as the
// page shows it, the run's handle (Run: run= of the conversation
// endpoint) and its place in the page's run list (Index, -1 when the
// page does not list it).
type searchHit struct {
	store.SearchHit
	Run    string `json:"run"`
	InPage bool   `json:"in_page"`
	Index  int    `json:"index"`
}

func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ts := store.TextSearch{Query: q.Get("q"), Regexp: q.Get("regex") == "1" || q.Get("regex") == "true"}
	if ts.Query == "" {
		writeError(w, http.StatusBadRequest, errors.New("q: give the text to look for (?q=TEXT)"))
		return
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			writeError(w, http.StatusBadRequest, fmt.Errorf("limit %q: a number of runs from 1 to 1000", v))
			return
		}
		ts.Limit = n
	}
	s.store(w, func(st *store.Store) {
		ctx, cancel := context.WithTimeout(r.Context(), QueryTimeout)
		defer cancel()
		t0 := time.Now()
		res, err := st.SearchText(ctx, ts)
		took := time.Since(t0)
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				err = fmt.Errorf("search stopped after %s (it scans every event's text)", QueryTimeout)
			}
			writeError(w, http.StatusBadRequest, err)
			return
		}
		stat := s.state.Load()
		out := struct {
			Runs      []searchHit `json:"runs"`
			TotalRuns int64       `json:"total_runs"`
			TotalHits int64       `json:"total_hits"`
			Note      string      `json:"note"`
			Millis    int64       `json:"ms"`
		}{Runs: []searchHit{}, TotalRuns: res.TotalRuns, TotalHits: res.TotalHits, Millis: took.Milliseconds()}
		for _, h := range res.Runs {
			// the snippet as the page shows log text; the match is given
			// only where the redacted snippet still shows it (a match on a
			// secret is not repeated beside its redaction)
			h.Snippet, h.Tool = s.o.Redact.String(h.Snippet), s.o.Redact.String(h.Tool)
			if !strings.Contains(strings.ToLower(h.Snippet), strings.ToLower(h.Match)) {
				h.Match = ""
			}
			i, in := stat.inPage[h.RunID]
			if !in {
				i = -1
			}
			hit := searchHit{Run: s.handle(h.RunID), InPage: in, Index: i}
			h.RunID = s.shownID(h.RunID)
			hit.SearchHit = h
			out.Runs = append(out.Runs, hit)
		}
		how := "substring in any case"
		if ts.Regexp {
			how = "regular expression (RE2)"
		}
		out.Note = fmt.Sprintf("%s in %s, %s listed (most matches first). The search scanned the text of all %s events of the store (%s characters) as a %s in %s ms; it stops after %s.",
			textfmt.CountOf(int(res.TotalHits), "matching event"), textfmt.CountOf(int(res.TotalRuns), "run"), textfmt.Thousands(int64(len(out.Runs))),
			textfmt.Thousands(stat.Text.Events), textfmt.Thousands(stat.Text.Chars), how, textfmt.Thousands(out.Millis), QueryTimeout)
		writeJSON(w, out)
	})
}

// runQuery reads the filter fields of /api/runs; a value that is not a
// number where one is wanted is an error naming the field.
func runQuery(q map[string][]string) (store.RunQuery, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return strings.TrimSpace(v[0])
		}
		return ""
	}
	rq := store.RunQuery{Model: get("model"), Family: get("family"), Format: get("format"), Harness: get("harness"), EndReason: get("end"), Tool: get("tool"), Text: get("text")}
	for _, f := range []struct {
		key string
		dst **int64
	}{{"min_calls", &rq.MinCalls}, {"max_calls", &rq.MaxCalls}} {
		if v := get(f.key); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return rq, fmt.Errorf("%s %q: a whole number of model calls", f.key, v)
			}
			*f.dst = &n
		}
	}
	if v := get("min_peak"); v != "" {
		p, err := strconv.ParseFloat(v, 64)
		if err != nil || p < 0 {
			return rq, fmt.Errorf("min_peak %q: a peak share of the window in %%", v)
		}
		p /= 100
		rq.MinPeakShare = &p
	}
	if v := get("resolved"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return rq, fmt.Errorf("resolved %q: true or false", v)
		}
		rq.Resolved = &b
	}
	return rq, nil
}

func (s *Server) handleRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rq, err := runQuery(q)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	userSQL := strings.TrimSpace(q.Get("sql"))
	s.store(w, func(st *store.Store) {
		ctx, cancel := context.WithTimeout(r.Context(), QueryTimeout)
		defer cancel()
		ids, query, args, err := st.FilterRuns(ctx, rq)
		if err == nil && userSQL != "" {
			// the untrusted query, as it is, on the sandboxed handle; the
			// runs are those both select
			var sel []string
			if sel, err = st.QueryRunIDs(ctx, userSQL, 0); err == nil {
				keep := make(map[string]bool, len(sel))
				for _, id := range sel {
					keep[id] = true
				}
				kept := ids[:0]
				for _, id := range ids {
					if keep[id] {
						kept = append(kept, id)
					}
				}
				ids = kept
				query += "; and the runs of your query: " + userSQL
			}
		}
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				err = fmt.Errorf("filter stopped after %s", QueryTimeout)
			}
			writeError(w, http.StatusBadRequest, err)
			return
		}
		// the runs as the page names them (redacted ids) and as the API
		// does (handles)
		shown, handles := make([]string, len(ids)), make([]string, len(ids))
		for i, id := range ids {
			shown[i], handles[i] = s.shownID(id), s.handle(id)
		}
		if args == nil {
			args = []any{}
		}
		writeJSON(w, struct {
			RunIDs []string `json:"run_ids"`
			Runs   []string `json:"runs"`
			SQL    string   `json:"sql"`
			Args   []any    `json:"args"`
		}{shown, handles, query, args})
	})
}

// statusOf is the HTTP status of a store error: 404 for a run or event
// that is not there, else 500.
func statusOf(err error) int {
	if errors.Is(err, store.ErrNoEvent) || errors.Is(err, analysis.ErrNoRun) {
		return http.StatusNotFound
	}
	return http.StatusInternalServerError
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	enc := json.NewEncoder(w)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, code int, err error) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(struct {
		Error string `json:"error"`
	}{err.Error()})
}
