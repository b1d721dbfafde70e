package cmd

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
)

// OutcomesOptions are the flags and arguments of trajmine outcomes.
type OutcomesOptions struct {
	Terminal
	Inputs   []string
	Format   string
	All      bool
	JSON     bool
	Err      io.Writer
	Progress bool
}

// outcomesListed is how many unmatched rows trajmine outcomes lists
// without --all.
const outcomesListed = 20

// NewOutcomesCmd builds `trajmine outcomes`.
func NewOutcomesCmd(d *Deps, runF func(*OutcomesOptions) error) *cobra.Command {
	o := &OutcomesOptions{}
	c := &cobra.Command{
		Use:   "outcomes [--format auto|NAME] [--all] [--json] [PATH...]",
		Short: "Read outcome files (which runs solved their task) and say which runs have an outcome",
		Long: `Read the outcome files users keep beside their logs, which say which runs
solved their task, and report which runs have an outcome and which outcome
rows match no run. With no PATH it reports on what the database holds.

The outcome formats (trajmine formats describes each):

  swebench-report         SWE-bench harness per-instance report.json, keyed by
                          instance id, or flat in logs/<instance_id>/ (the id
                          is the folder's name); per_instance_details.json
  swebench-results        the harness's and sb-cli's run report (resolved_ids,
                          unresolved_ids, empty_patch_ids, error_ids); a
                          submission's results/results.json (resolved,
                          no_generation, no_logs …: every other run under the
                          submission is not resolved); results summaries
  swebench-preds          SWE-agent / mini-swe-agent preds.json and
                          all_preds.jsonl: an empty patch is not resolved
  harbor-result           Harbor trial and job result.json, verifier
                          reward.json: the reward is the score, 1 resolved
  terminal-bench-results  terminal-bench results.json of a run or a trial
  outcome-table           anything else: a CSV or TSV with a header, or JSONL,
                          with run_id (else task_id or instance_id), resolved
                          (true/false, 1/0, yes/no, pass/fail …) and an
                          optional score

Inspect logs carry their scores (the runs' own outcome); trajmine ingest
picks the known outcome files up during its walk (not CSV or TSV: name them
here). Directories are walked for outcome files only (.json, .jsonl,
.csv, .tsv …; logs are passed over); a file named that is not an outcome
file is an error. A file already imported (same path and sha256) is
skipped; one whose content changed replaces its rows.

How a row finds its runs: a run_id row the run with that id; a task_id
row the runs with that task id (the SWE-bench instance id for SWE-agent and
mini-swe-agent runs); a path row (a flat report.json, a Harbor or
terminal-bench trial) the runs whose task id it is or of whose path a
folder, or the file name up to its first dot, is the id
(logs/<id>/report.json speaks for trajs/<id>/<id>.traj.json); a scope row
every run under its folder. Task, path and scope rows match root runs only
(not sub-agents). When several rows match a run, a run_id row wins, then
the nearest (the outcome file sharing the most leading folders with the
run's log: each run takes its own submission's or job's outcome), then
task and path rows over scope rows, then the file sorting first and its
last row. An outcome file overrides the outcome a run's own log states
(runs.log_resolved; Inspect scores, OpenHands test results): the file is
the evaluation; a run no row matches keeps its log's. runs.outcome_source
says where each run's resolved comes from (path:line, or log);
outcomes.n_runs is 0 for a row that matches no run.

The report: root runs with an outcome (resolved or not, from outcome files
or their own logs) and the outcome rows that match no run, the first 20
(--all: every one; the table outcomes has them: n_runs = 0).`,
		Example: `  trajmine outcomes                         # what the database holds
  trajmine outcomes results.csv             # apply a plain table
  trajmine outcomes evaluation/verified/20250612_trae  # every outcome file under it`,
		Args: usageArgs(cobra.ArbitraryArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.setTerminal(c, d)
			o.Inputs, o.Err = args, c.ErrOrStderr()
			o.Progress = d.ErrIsTTY()
			if runF != nil {
				return runF(o)
			}
			return outcomesRun(c.Context(), d, o)
		},
	}
	c.Flags().StringVar(&o.Format, "format", "auto", "outcome format, or auto to detect per file")
	c.Flags().BoolVar(&o.All, "all", false, "list every outcome row that matches no run")
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	return c
}

// outcomesReport is what trajmine outcomes prints (--json).
type outcomesReport struct {
	Import    *ingestSummary       `json:"import,omitempty"`
	Store     store.OutcomeSummary `json:"store"`
	Unmatched []store.OutcomeRow   `json:"unmatched"`
}

func outcomesRun(ctx context.Context, d *Deps, o *OutcomesOptions) error {
	if o.Format != "auto" && o.Format != "" {
		if !ingest.IsOutcomeFormat(o.Format) {
			return flagErrorf("--format: %q is not an outcome format (%s)", o.Format, strings.Join(ingest.OutcomeFormats(), ", "))
		}
	}
	st, err := d.open(ctx, len(o.Inputs) == 0)
	if err != nil {
		if len(o.Inputs) > 0 && d.lakeDir() != "" {
			return fmt.Errorf("--lake: outcome files come into a lake with trajmine ingest --lake (each shard's, as its logs); trajmine outcomes without a PATH reports on them")
		}
		return err
	}
	defer st.Close()
	var rep outcomesReport
	var sum *ingest.Summary
	if len(o.Inputs) > 0 {
		opts := &ingest.Options{Format: o.Format, Outcomes: true}
		if sum, err = runIngest(ctx, st, o.Inputs, opts, newIngestLog(o.Err, false), o.Progress); err != nil {
			return err
		}
		s := ingestSummaryOf(sum)
		rep.Import = &s
	}
	if rep.Store, err = st.OutcomeSummary(ctx); err != nil {
		return err
	}
	limit := outcomesListed
	if o.All || o.JSON {
		limit = 0
	}
	if rep.Unmatched, err = st.UnmatchedOutcomes(ctx, limit); err != nil {
		return err
	}
	if rep.Unmatched == nil {
		rep.Unmatched = []store.OutcomeRow{}
	}
	if o.JSON {
		err = writeJSON(o.Out, rep)
	} else {
		err = writeOutcomes(o, &rep, sum)
	}
	if err != nil {
		return err
	}
	if sum != nil && sum.Failed > 0 {
		return &exitCodeError{code: exitFailed, msg: countOf(sum.Failed, "file") + " failed to import"}
	}
	return nil
}

// writeOutcomes prints the report as text.
func writeOutcomes(o *OutcomesOptions, rep *outcomesReport, sum *ingest.Summary) error {
	w, s := o.Out, rep.Store
	n := textfmt.Thousands
	if sum != nil {
		fmt.Fprintf(w, "read %s with %s: %s given an outcome", countOf(sum.OutcomeFiles, "outcome file"), countOf(int(sum.OutcomeRows), "outcome row"), countOf(int(sum.Outcomes.Changed), "run"))
		if sum.Skipped > 0 {
			fmt.Fprintf(w, "; %s skipped (already imported, or not outcome files)", countOf(sum.Skipped, "file"))
		}
		if sum.Failed > 0 {
			fmt.Fprintf(w, "; %s failed", n(int64(sum.Failed)))
		}
		fmt.Fprintln(w)
	}
	known := s.Resolved + s.NotResolved
	fmt.Fprintf(w, "runs with an outcome: %s of %s (%s resolved, %s not): %s from outcome files, %s from their own logs",
		n(known), n(s.Runs), n(s.Resolved), n(s.NotResolved), n(s.FromFiles), n(s.FromLogs))
	if s.Scored > 0 {
		fmt.Fprintf(w, "; %s with a score", n(s.Scored))
	}
	fmt.Fprintln(w)
	if s.ChildRuns > 0 {
		fmt.Fprintf(w, "(%s not counted: a task's outcome is its root run's; %s one)\n", countOf(int(s.ChildRuns), "sub-agent run"),
			textfmt.Plural(int(s.ChildOutcome), "has", "have"))
	}
	fmt.Fprintf(w, "outcome files: %s with %s; %s no run", n(s.Files), countOf(int(s.Rows), "row"), textfmt.Plural(int(s.UnmatchedAll), "row matches", "rows match"))
	if s.Shadowed > 0 {
		fmt.Fprintf(w, ", %s match runs that a nearer or more specific row gives their outcome", n(s.Shadowed))
	}
	fmt.Fprintln(w)
	if len(rep.Unmatched) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "outcome rows that match no run:")
	t := &table{header: []string{"FILE:LINE", "FORMAT", "KEY", "KIND", "OUTCOME", "DETAIL"}, key: []int{2}, indent: "  "}
	for _, r := range rep.Unmatched {
		t.add(r.SourcePath+":"+strconv.FormatInt(r.Line, 10), r.Format, r.Key, string(r.KeyKind), outcomeText(r.Resolved, r.Score), r.Detail)
	}
	if more := s.UnmatchedAll - int64(len(rep.Unmatched)); more > 0 {
		t.footer = append(t.footer, fmt.Sprintf("… and %s more: --all lists every one (table outcomes, n_runs = 0)", n(more)))
	}
	return t.write(w, o.Width, o.Bold)
}

// outcomeText is an outcome as the report prints it.
func outcomeText(resolved *bool, score *float64) string {
	var parts []string
	if resolved != nil {
		parts = append(parts, map[bool]string{true: "resolved", false: "not resolved"}[*resolved])
	}
	if score != nil {
		parts = append(parts, "score "+strconv.FormatFloat(*score, 'g', 4, 64))
	}
	return strings.Join(parts, ", ")
}
