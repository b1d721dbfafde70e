// Package serve is trajmine serve: the report page served over HTTP on a
// local address, backed by the store, for logs that keep coming (pprof's
// -http, for agent runs).
//
// The data flow:
//
//  1. Refresh (the first at start, then one per change the watcher sees)
//     closes the read-only handle, opens the database for writing, calls
//     Options.Build (the caller's import of the changed files through the
//     normal ingest, with its resume and dedupe rules, and the report's
//     analyses), closes it, reopens the database sandboxed (read-only, no
//     file, URL, extension or other database reachable, the configuration
//     locked: store.Config.Sandbox), indexes it (store.IndexRuns: every
//     run id, and where each run's rows lie, so that a conversation is read
//     from its run's rows only), renders the page (dashboards.Write with
//     Data.Live, whose Handles name the run list's runs to the API) and
//     only then raises the generation. Requests to the API
//     wait for a refresh's write phase; the page itself is served from
//     memory throughout.
//  2. Watch polls the watched paths every Options.Poll: each log file's
//     size and modification time (ingest.Expand's walk), and refreshes with
//     the files that are new or changed. Polling, not file-system events:
//     portable, and a live session's file that grows for a minute is
//     re-imported at most once per interval. Files are only read.
//  3. The handlers (Handler): the page at /, and JSON under /api/: the
//     generation (the page polls it and reloads when it changes), a run's
//     conversation whole (analysis.LoadConversation, texts up to
//     ConversationChars), one event's whole text, a search of every run's
//     text (store.SearchText: a literal in any case or a regular
//     expression over events.text, one scan whose cost the response
//     states), and the run
//     list's filters (store.FilterRuns, parameterised; or an untrusted
//     read-only query through store.QueryRunIDs on the sandboxed handle).
//     Log text in responses is redacted as on the page.
//
// Runs are named to the API by a handle, never by their id: a run id is a
// file name, which can hold a secret, and the page shows it redacted (two
// runs can even read alike). A handle is an HMAC of the store's run id
// under a key drawn at random when the server starts, so it says nothing
// of the id and stays the same across refreshes; the server maps it back
// through the index of the last refresh. The page carries the handles of
// its run list (Live.Handles, by index), a search hit carries its run's
// handle and its index in the run list (-1: not listed), a filter answers
// the runs' redacted ids (what the run list matches) and their handles.
//
// Security defaults: CheckAddr refuses to listen on an address that is
// not loopback unless the caller says public (an address without a host
// is localhost's: ListenAddr, as pprof's -http); the handlers answer only
// requests whose Host is a loopback name or address (a DNS-rebinding page
// cannot read the API), only GET and HEAD, with no CORS header (another
// origin's script cannot read a response), and the page forbids framing.
package serve
