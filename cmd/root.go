package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/trajmine/trajmine/internal/store"
)

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// DefaultDB is the database used when neither --db nor TRAJMINE_DB is set.
const DefaultDB = "trajmine.duckdb"

// Deps are the process-level things commands use, replaceable in tests.
type Deps struct {
	Getenv   func(string) string
	HomeDir  func() (string, error)
	ErrIsTTY func() bool
	OutIsTTY func() bool // nil: false
	OutWidth func() int  // the terminal's width when stdout is one; nil or ≤ 0: unknown
	DB       string      // resolved by the root's persistent flag
	Lake     string      // --lake: a Parquet lake directory instead of a database file
}

// width is how wide tables may be: the terminal's width, else $COLUMNS,
// else 0 (no limit: output to a file or pipe keeps whole cells).
func (d *Deps) width() int {
	if d.OutWidth != nil {
		if w := d.OutWidth(); w > 0 {
			return w
		}
	}
	if n, err := strconv.Atoi(d.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}

// bold reports whether headers may be bold: stdout is a terminal, NO_COLOR
// is unset (no-color.org) and TERM is not dumb.
func (d *Deps) bold() bool {
	return d.OutIsTTY != nil && d.OutIsTTY() && d.Getenv("NO_COLOR") == "" && d.Getenv("TERM") != "dumb"
}

func defaultDeps() *Deps {
	return &Deps{
		Getenv:   os.Getenv,
		HomeDir:  os.UserHomeDir,
		ErrIsTTY: func() bool { return term.IsTerminal(int(os.Stderr.Fd())) },
		OutIsTTY: func() bool { return term.IsTerminal(int(os.Stdout.Fd())) },
		OutWidth: func() int {
			w, _, err := term.GetSize(int(os.Stdout.Fd()))
			if err != nil {
				return 0
			}
			return w
		},
	}
}

// FlagError is a usage error; execute prints the failing command's usage
// and exits 2.
type FlagError struct{ err error }

func (e *FlagError) Error() string { return e.err.Error() }
func (e *FlagError) Unwrap() error { return e.err }

func flagErrorf(format string, a ...any) error { return &FlagError{fmt.Errorf(format, a...)} }

// usageArgs makes a cobra argument check's failure a usage error (exit 2).
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := check(c, args); err != nil {
			return &FlagError{err}
		}
		return nil
	}
}

// Main runs trajmine with os.Args and returns the exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	d := defaultDeps()
	var out io.Writer = os.Stdout
	if d.OutIsTTY() {
		out = safeWriter{w: out}
	}
	return execute(ctx, NewRootCmd(d), os.Args[1:], out, os.Stderr)
}

// execute runs root with args. Everything written to errw (warnings that
// quote logs, errors naming their files and runs) passes through termSafe;
// Main does the same for stdout when it is a terminal.
func execute(ctx context.Context, root *cobra.Command, args []string, out, errw io.Writer) int {
	errw = safeWriter{w: errw}
	root.SetArgs(args)
	root.SetOut(out)
	root.SetErr(errw)
	if c, err := root.ExecuteContextC(ctx); err != nil {
		var fe *FlagError
		if errors.As(err, &fe) {
			// the usage of the command that failed (cobra's ExecuteC
			// returns it), not the root's list of commands
			if c == nil {
				c = root
			}
			fmt.Fprintf(errw, "trajmine: %v\n\n%s", err, c.UsageString())
			return exitUsage
		}
		var ee *exitCodeError
		if errors.As(err, &ee) {
			if ee.msg != "" {
				fmt.Fprintf(errw, "trajmine: %s\n", ee.msg)
			}
			return ee.code
		}
		fmt.Fprintf(errw, "trajmine: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// exitCodeError carries an exit code with an optional message already formatted.
type exitCodeError struct {
	code int
	msg  string
}

func (e *exitCodeError) Error() string { return e.msg }

// NewRootCmd builds the command tree.
func NewRootCmd(d *Deps) *cobra.Command {
	root := &cobra.Command{
		Use:   "trajmine",
		Short: "Turn logged LLM-agent runs into answers about their context windows",
		Long: `trajmine ingests agent trajectories (Claude Code, Codex CLI, OpenAI/Anthropic
message logs, DTOC orchestration logs, …) into one DuckDB file and answers
questions about their context windows, offline.

The database is ./trajmine.duckdb unless --db or $TRAJMINE_DB says otherwise.`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &FlagError{err} })
	root.PersistentFlags().StringVar(&d.DB, "db", d.DB, "database file (default $TRAJMINE_DB or ./"+DefaultDB+")")
	root.PersistentFlags().StringVar(&d.Lake, "lake", d.Lake, "a Parquet lake directory instead of a database file (default $TRAJMINE_LAKE; see README, Scale-out)")
	root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		if d.Lake != "" && d.DB != "" {
			return flagErrorf("--db and --lake: give one (--db names a DuckDB file, --lake a Parquet lake directory)")
		}
		return nil
	}
	root.AddCommand(
		NewReportCmd(d, nil),
		NewServeCmd(d, nil),
		NewIngestCmd(d, nil),
		NewOutcomesCmd(d, nil),
		NewCompareCmd(d, nil),
		NewRunsCmd(d, nil),
		NewRejectsCmd(d, nil),
		NewShowCmd(d, nil),
		NewSQLCmd(d, nil),
		NewFormatsCmd(d, nil),
		NewExportCmd(d),
		NewSynthCmd(d, nil),
		NewCalibrateCmd(d, nil),
		NewClassesCmd(d, nil),
		NewDiagnoseCmd(d, nil),
		NewSimulateCmd(d, nil),
		NewPoliciesCmd(d, nil),
		NewRecommendCmd(d, nil),
		NewMineCmd(d, nil),
		NewCheckCmd(d, nil),
		NewTrainCmd(d, nil),
		NewTermsCmd(d),
	)
	return root
}

// dbPath resolves the database path: --db, then $TRAJMINE_DB, then the default.
func (d *Deps) dbPath() string {
	if d.DB != "" {
		return d.DB
	}
	if v := d.Getenv("TRAJMINE_DB"); v != "" {
		return v
	}
	return DefaultDB
}

// lakeDir is the lake the command works on: --lake, else $TRAJMINE_LAKE
// unless --db is given; "" for a database file.
func (d *Deps) lakeDir() string {
	if d.Lake != "" {
		return d.Lake
	}
	if d.DB != "" {
		return ""
	}
	return d.Getenv("TRAJMINE_LAKE")
}

// errLakeWrite refuses a command that writes tables a lake has no writer for.
var errLakeWrite = errors.New("--lake: this command writes to the database, which a lake does not take: only ingest, simulate and diagnose write a lake (each its own shard's part files); run it with --db on a DuckDB file")

func (d *Deps) open(ctx context.Context, readOnly bool) (*store.Store, error) {
	if dir := d.lakeDir(); dir != "" {
		if !readOnly {
			return nil, errLakeWrite
		}
		return store.OpenLake(ctx, store.LakeConfig{Dir: dir})
	}
	return store.Open(ctx, store.Config{Path: d.dbPath(), ReadOnly: readOnly})
}

// onStore runs run(ctx, st, o) on the database st, opened read-only or
// not, and closes it: the RunE body of a command that reads or writes the
// store and nothing else.
func onStore[O any](ctx context.Context, d *Deps, readOnly bool, o O, run func(context.Context, *store.Store, O) error) error {
	st, err := d.open(ctx, readOnly)
	if err != nil {
		return err
	}
	defer st.Close()
	return run(ctx, st, o)
}

// openLakeWriter opens the lake to write shard i of n of g's tables
// (store.OpenLake); the caller commits with CommitLake.
func (d *Deps) openLakeWriter(ctx context.Context, g store.LakeGroup, i, n int) (*store.Store, error) {
	return store.OpenLake(ctx, store.LakeConfig{Dir: d.lakeDir(), Write: g, Shard: i, Shards: n})
}

// openSandbox opens the database for untrusted queries (store.Config.Sandbox).
func (d *Deps) openSandbox(ctx context.Context) (*store.Store, error) {
	if dir := d.lakeDir(); dir != "" {
		return store.OpenLake(ctx, store.LakeConfig{Dir: dir, Sandbox: true})
	}
	return store.Open(ctx, store.Config{Path: d.dbPath(), Sandbox: true})
}
