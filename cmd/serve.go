package cmd

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/dashboards"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/redact"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/serve"
	"github.com/trajmine/trajmine/simulate"
)

// ServeOptions are the flags of trajmine serve.
type ServeOptions struct {
	Inputs    []string
	HTTP      string        // --http: the address to listen on
	Public    bool          // --http-public: a non-loopback address is meant
	Poll      time.Duration // --poll: the watcher's interval; 0 does not watch
	All       bool
	NoRedact  bool
	Window    simulate.Window
	SampleTop int
	SampleN   int
	Format    string
	Out, Err  io.Writer
}

// DefaultServeAddr is where trajmine serve listens unless --http says
// otherwise: this machine only.
const DefaultServeAddr = "localhost:8080"

// NewServeCmd builds `trajmine serve`.
func NewServeCmd(d *Deps, runF func(*ServeOptions) error) *cobra.Command {
	o := &ServeOptions{}
	c := &cobra.Command{
		Use:   "serve [PATH...]",
		Short: "Serve the report on localhost, backed by the store, following new logs",
		Long: `Serve the report page over HTTP (pprof's -http, for agent runs): the page of
trajmine report, backed by the database, with every run's whole
conversation fetched when the run is opened, a search of the log text of
every run, filters of the run list that run as SQL, and new logs picked up
as the agents write them.

It imports the logs under PATH... (or the standard places, as trajmine
report: ~/.claude/projects, ~/.codex/sessions, …) into the database (--db),
reports on their runs (--all: every run of the database) and serves the
page at --http (default localhost:8080; ":8080" is localhost:8080 too, as
with pprof's -http; it opens no browser: the address is printed). Every --poll (default 5s; 0 does not watch) it looks at the
log files under the paths (their sizes and modification times), imports
the new and changed ones through the normal ingest (a grown session
replaces its earlier runs; an unchanged file is skipped), rebuilds the
report, and the page reloads itself (it polls the server for the page's
generation). A rebuild runs every analysis of trajmine report again, so
it costs what a report on the same runs costs.

Security: it listens on a loopback address only (localhost, 127.0.0.1,
::1); any other address ("0.0.0.0:8080", "[::]:8080", a LAN address) is
refused unless --http-public says it is meant, for the page shows your
logs. It answers only requests to a loopback host name (a web page that
rebinds its own name to 127.0.0.1 gets nothing) and only GET. The log
files are only read. The server reads the database through a sandboxed
read-only connection (as trajmine sql), which the imports close and
reopen around their writes. Log text is redacted as on the page
(--no-redact keeps it).

Search: a substring in any case (every character literal) or a
regular expression (RE2) over the text of every event of the database: one
full scan per search (the response states how much text it read and how
long it took), at most 100 runs listed, most matching events first, and
stopped after 30 s. DuckDB's full-text index needs an extension download,
which trajmine never makes.

Filters: model, family, format, end reason, a tool called, text in an
event, bounds on the calls and the peak share; each becomes a fixed SQL
fragment with its value as a parameter (the page shows the SQL run). A
read-only query of your own (its run_id column lists the runs) runs as it
is on the sandboxed connection, checked as trajmine sql checks queries.`,
		Example: `  trajmine serve                       # your local agent logs, at http://localhost:8080/
  trajmine serve --poll 2s runs/       # the logs under runs/, checked every 2 s
  trajmine serve --http localhost:0    # any free port (printed)
  trajmine serve --http 0.0.0.0:8080 --http-public   # on every interface, meant`,
		Args: usageArgs(cobra.ArbitraryArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.Inputs, o.Out, o.Err = args, c.OutOrStdout(), c.ErrOrStderr()
			if err := serve.CheckAddr(o.HTTP, o.Public); err != nil {
				return flagErrorf("--http %v", err)
			}
			if o.Poll < 0 {
				return flagErrorf("--poll must be ≥ 0 (0: do not watch)")
			}
			if o.SampleTop < 0 || o.SampleN < 0 {
				return flagErrorf("--sample-top and --sample must be ≥ 0")
			}
			if o.Format != "auto" && o.Format != "" {
				if _, err := ingest.Lookup(o.Format); err != nil {
					return flagErrorf("--format: %v", err)
				}
				if len(args) == 0 {
					return flagErrorf("--format names the format of the files of PATH...: give PATH (the standard places hold many formats)")
				}
			}
			if d.lakeDir() != "" {
				return flagErrorf("--lake: trajmine serve imports and reads a database file (--db); report on a lake with trajmine --lake DIR report")
			}
			for _, p := range args {
				if _, err := os.Stat(p); err != nil {
					return flagErrorf("%v", err)
				}
			}
			if runF != nil {
				return runF(o)
			}
			return serveRun(c.Context(), d, o)
		},
	}
	c.Flags().StringVar(&o.HTTP, "http", DefaultServeAddr, "the address to listen on, host:port (loopback only unless --http-public; port 0: any free port)")
	c.Flags().BoolVar(&o.Public, "http-public", false, "allow --http to be an address other machines can reach (the page shows your logs to them)")
	c.Flags().DurationVar(&o.Poll, "poll", 5*time.Second, "how often to look for new or changed log files (0: do not watch)")
	c.Flags().BoolVar(&o.All, "all", false, "report on every run in the database, not only those from PATH... (or the standard places)")
	c.Flags().BoolVar(&o.NoRedact, "no-redact", false, "show secrets found in log text as logged (default: replaced with [REDACTED:<rule>])")
	c.Flags().Var(windowVar(&o.Window, false), "window", "context window for every run (diagnose, replay and recommend): tokens (200000, 128k) or own")
	c.Flags().IntVar(&o.SampleTop, "sample-top", 10, "runs drawn call by call with every policy's replay: the top ones by peak share of the window")
	c.Flags().IntVar(&o.SampleN, "sample", 30, "runs drawn call by call besides the top ones (smallest FNV-1a hash of the run id)")
	c.Flags().StringVar(&o.Format, "format", "auto", "input format of every file of PATH..., or auto to detect per file (see trajmine ingest)")
	return c
}

// servePaths is what trajmine serve watches: PATH... when given, else the
// standard places found now (ingest.Discover, asked again at every poll:
// an agent installed after the start is watched from then on).
func servePaths(d *Deps, inputs []string) func() []string {
	if len(inputs) > 0 {
		return func() []string { return inputs }
	}
	return func() []string {
		_, paths := standardPlaces(d, nil)
		return paths
	}
}

func serveRun(ctx context.Context, d *Deps, o *ServeOptions) error {
	home, _ := d.HomeDir()
	paths := servePaths(d, o.Inputs)
	if len(o.Inputs) == 0 {
		standardPlaces(d, o.Err) // names the places found, as report does
	}
	watching := standardPlacesText()
	if len(o.Inputs) > 0 {
		watching = displayPaths(home, o.Inputs)
	}
	var red *redact.Redactor
	if !o.NoRedact {
		var err error
		if red, err = redact.New(); err != nil {
			return err
		}
	}
	addr := serve.ListenAddr(o.HTTP)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", o.HTTP, err)
	}
	defer ln.Close()
	srv := serve.New(serve.Options{DB: d.dbPath(), Paths: paths, Watching: watching, Poll: o.Poll, Redact: red, Public: o.Public, Log: o.Out,
		Build: func(ctx context.Context, st *store.Store, files []string) (*dashboards.Data, error) {
			return serveBuild(ctx, st, o, home, paths(), files)
		}})
	defer srv.Close()
	if err := srv.Refresh(ctx, paths()); err != nil {
		return err
	}
	host, _, _ := net.SplitHostPort(addr)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	url := "http://" + net.JoinHostPort(host, port) + "/"
	how := fmt.Sprintf("watching %s every %s", watching, o.Poll)
	if o.Poll == 0 {
		how = "not watching for new logs (--poll 0)"
	}
	scope := "this machine only"
	if o.Public {
		scope = "--http-public: anyone who can reach " + ln.Addr().String()
	}
	fmt.Fprintf(o.Out, "trajmine serve: serving %s (%s); %s; Ctrl-C stops\n", url, scope, how)
	go srv.Watch(ctx)
	return serve.Serve(ctx, ln, srv)
}

// serveBuild is one refresh of trajmine serve's page: import files into
// st (the watched paths at the first refresh, then the new and changed
// log files), then report on the runs under paths (every run with --all)
// as trajmine report does, with the conversations left to the server.
func serveBuild(ctx context.Context, st *store.Store, o *ServeOptions, home string, paths, files []string) (*dashboards.Data, error) {
	if len(files) > 0 {
		log := newIngestLog(o.Err, false)
		sum, err := runIngest(ctx, st, files, &ingest.Options{Format: o.Format, MaxDecompressed: ingest.DefaultMaxDecompressed}, log, false)
		if err != nil {
			return nil, err
		}
		printSummary(o.Out, 0, sum, log, true)
	}
	all, err := st.Runs(ctx, store.RunFilter{})
	if err != nil {
		return nil, err
	}
	runs, nfiles := all, sourceFiles(all)
	if !o.All {
		runs, nfiles = []schema.Run{}, 0
		if len(paths) > 0 {
			if runs, nfiles, err = runsUnder(ctx, st, paths); err != nil {
				return nil, err
			}
		}
	}
	db := shownPath(st.Path())
	sc := &reportScope{runs: runs, files: nfiles, dbRuns: len(all), all: o.All}
	switch {
	case o.All:
		sc.from, sc.note = "database "+db, "--all"
	case len(paths) == 0:
		sc.from, sc.note = "no logs yet", "watching "+standardPlacesText()
	default:
		sc.from = filesFrom(home, paths, nfiles)
		sc.note = fmt.Sprintf("database %s holds %s; --all for every run", db, textfmt.CountOf(len(all), "run"))
	}
	ro := &ReportOptions{SampleTop: o.SampleTop, SampleN: o.SampleN, Window: o.Window, NoRedact: o.NoRedact, scope: sc}
	if len(runs) == 0 {
		return &dashboards.Data{Title: "trajmine serve", Generated: "generated " + time.Now().UTC().Format("2006-01-02 15:04 UTC"), Source: ro.sourceText(), Database: db,
			Unredacted: o.NoRedact, ConversationNote: serveConversationNote}, nil
	}
	ao, err := ro.analysis(len(runs))
	if err != nil {
		return nil, err
	}
	defer reportMemoryLimit(len(runs))()
	res, err := analysis.AnalyseReport(ctx, st, ao)
	if err != nil {
		return nil, err
	}
	page := analysis.Page(res, analysis.TotalsByFormat(runs), ro.sourceText(), db)
	page.Title = "trajmine serve"
	page.ConversationNote = serveConversationNote
	return page, nil
}

// serveConversationNote is the page's note on conversations under serve.
var serveConversationNote = fmt.Sprintf("Conversations are read from the database when a run is opened, whole (each text up to %s characters; load all shows one whole).", textfmt.Thousands(serve.ConversationChars))
