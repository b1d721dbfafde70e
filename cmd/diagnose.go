package cmd

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/simulate"
)

// DiagnoseOptions are the flags of trajmine diagnose.
type DiagnoseOptions struct {
	Terminal
	Window simulate.Window
	By     string
	Prices string
	JSON   bool
	NoSave bool // do not write diag_runs and diag_calls (the database is opened read-only)
	Shard  string

	shard, shards int
}

// NewDiagnoseCmd builds `trajmine diagnose`.
func NewDiagnoseCmd(d *Deps, runF func(*DiagnoseOptions) error) *cobra.Command {
	o := &DiagnoseOptions{}
	c := &cobra.Command{
		Use:   "diagnose",
		Short: "Do these runs die on window length? Occupancy and end reasons per run",
		Long: `Diagnose every imported run: its context window, the prompt size of each
model call against it, and why the run ended.

The window is --window N if given, else the run's logged window, else the
embedded table of known models' windows by model family, else unknown. With
--window N below a run's own window (or its own unknown), the verdict adds
the window what-if: how many runs that did not end on window length have a
call whose logged prompt plus output exceeds N, where they would have died at
an N-token window although their logs went on (trajmine simulate --window N
replays which policy carries them to their logged end). A call
is a model call (a turn with model output or a usage row): what follows a
run's last call (the output of its last tool call, an error) was never sent
and is no call. A call's prompt is its logged input tokens (incl. cache reads
and writes) when the log has per-call usage, else the estimated prompt of
trajmine show. PEAK is the
largest single request, never a sum; ≥80% counts calls at or above 80 % of the
window; COMPACT counts the turns with a compaction, summary, continuation or
truncation.

END is the log's explicit reason where it has one. Otherwise, first rule
that applies, it is inferred: finished when the last tool call is a submit
(classes as in trajmine classes; pydantic-ai's final_result) that did not
fail and the user asked nothing after it, or when the task is recorded as
resolved (what the run did outranks what its text suggests); ended on window
length when its last turn holds an overflow error (prompt is too long,
context_length_exceeded, …) in an error event, or shaped as a provider's
error in an assistant message or tool result, or an assistant message says
the window is full ("I've hit the context window limit"), or the last prompt
is ≥ 95 % of the window; not finished (unknown) when the run ends on a reply
cut mid-sentence with the last prompt ≥ 80 % of the window, or inside an
open code block; finished when it ends on the model's reply without a tool
call; stalled when its last tool call repeats a command that failed with the
same output; else the importer's inference is kept. WHY names the rule
(--json: end.rule) and says why.

The reading boundary is the call by which half of the runs had stopped while
still reading (none of their last 3 tool calls an edit, test or submit, at
least one a read or search) without finishing: the Aalen–Johansen cumulative
incidence of that stop, finishing a competing outcome, runs that stopped
otherwise censored at their last call. It is stated only over at least 10
runs; the Kaplan–Meier curve that censors finished runs is in --json.

Carried tokens (the RENT column; the table diag_rent) are each tool
output's estimated tokens × the model calls that carried it until
compacted or hidden: what keeping it cost. Where the log shows them, the
system prompt (system events of role system or developer) and the tool
definitions (the system event of role tools) are counted the same way, as
rows "(system prompt)" and "(tool definitions)", until a compaction, summary
or continuation (keyless masking and truncation drop history, not them).
Shares are of all the tokens carried, prefix included; the verdict names
the tool whose outputs make up most of them and, when present, the system
prompt's and tool definitions' shares. A prompt part no event shows (Claude
Code and Codex logs omit the system prompt and tool schemas) is not counted
here.

A re-read reads a target again, while the earlier output was still visible
in the prompt or after it was hidden; a stall is the same command (tool and
arguments) answered by the same failing output again (is_error or a non-zero
exit code), a repeat the same with an output that did not fail. The verdict comes first; --by groups the
peak-occupancy summary by model family, harness or source format.

A resumed or forked session (Claude Code copies the earlier messages, same
message id, into the new file) is linked to the run it continues: a usage row
with the request id and tokens of a row of a run that ended earlier is a copy,
counted there (ingest marks it: usage.copy_of_run_id, runs.continues_run_id).
Its cost is priced from its own rows, its rent and re-reads are those of its
own calls (the copied calls' are the origin's), and a run whose every row is
a copy is left out of the verdict, groups, reading boundary and cost totals.

Results are stored in three tables, replaced whole (in one transaction) on
each call unless --no-save is given (which opens the database read-only):
diag_runs, one row per run (window, calls, peak, calls ≥ 50/80/95 %,
compactions, end reason with source, rule and why, rent, re-reads, stalls,
reading-boundary input, cost, outcome); diag_calls, one row per model call
(prompt_tokens, prompt_source logged|estimated, share, compaction); and
diag_rent, one row per run and tool (rent, outputs, tokens). schema/diag.go
documents every column. The figures printed follow from them:

  window ends      count(*) FROM diag_runs WHERE end_reason = 'context_overflow'
                   (explicit / inferred: by end_reason_source)
  share, peak      share = prompt_tokens / window_tokens;
                   peak_tokens = max(prompt_tokens) of the run's diag_calls
  calls ≥ 80 %     count of the run's calls with prompt_tokens × 100 ≥ window_tokens × 80
  rent share       sum(rent) of a tool in diag_rent / sum(rent_total) of diag_runs
  reading boundary over runs with boundary_turn > 0, at each distinct
                   boundary_turn t in order: F(t) = F(previous t) + S(t⁻) × d/n,
                   S(t) = S(t⁻) × (1 − (d + f)/n), n = runs with boundary_turn
                   ≥ t, d = those with boundary_turn = t and boundary_event,
                   f = those with boundary_finished; the boundary is the first
                   t with F(t) ≥ 50 %, when there are ≥ 10 runs
  spend            sum(cost_usd) (NULL: cost unknown, left out)
  per solved task  sum(cost_usd) over runs with resolved NOT NULL /
                   count(*) FILTER (WHERE resolved)

--shard i/n diagnoses every n-th run (by run_id, as simulate --shard) and
replaces only those runs' rows; the figures printed are over the shard's
runs. With --lake DIR each shard writes its own part files
(DIR/diag_runs/shard=i-of-n/, …) with no shared lock, and the figures of the
whole lake are the queries above (trajmine sql --lake DIR), or trajmine
diagnose --lake DIR --no-save.
`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.setTerminal(c, d)
			switch o.By {
			case "model", "harness", "format":
			default:
				return flagErrorf("--by must be model, harness or format")
			}
			var err error
			if o.shard, o.shards, err = parseShard(o.Shard); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			if d.lakeDir() != "" && !o.NoSave {
				st, err := d.openLakeWriter(c.Context(), store.LakeDiagnose, o.shard, o.shards)
				if err != nil {
					return err
				}
				defer st.Close()
				if err := diagnoseRun(c.Context(), st, o); err != nil {
					return err
				}
				_, err = st.CommitLake(c.Context())
				return err
			}
			// Saving needs the database read-write; a missing database is
			// opened read-only so that the error says to ingest first.
			readOnly := o.NoSave
			if _, err := os.Stat(d.dbPath()); err != nil {
				readOnly = true
			}
			return onStore(c.Context(), d, readOnly, o, diagnoseRun)
		},
	}
	c.Flags().Var(windowVar(&o.Window, false), "window", "context window for every run, in tokens (200000, 128k; overrides the log and the table) or own")
	c.Flags().StringVar(&o.By, "by", "model", "group the summary by model, harness or format")
	c.Flags().StringVar(&o.Prices, "prices", "", "YAML/JSON price file (USD per million tokens) that adds to or replaces the embedded prices")
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON: verdict, groups and every run with its calls and why")
	c.Flags().StringVar(&o.Shard, "shard", "", "diagnose shard i of n of the runs (i/n, 0-based; as simulate --shard)")
	c.Flags().BoolVar(&o.NoSave, "no-save", false, "do not store the results in diag_runs and diag_calls (open the database read-only)")
	return c
}

// analysis is what the diagnosis depends on.
func (o *DiagnoseOptions) analysis() *analysis.DiagnoseOptions {
	return &analysis.DiagnoseOptions{Window: o.Window, By: o.By, Prices: o.Prices, Shard: o.shard, Shards: o.shards}
}

func diagnoseRun(ctx context.Context, st *store.Store, o *DiagnoseOptions) error {
	out, err := analysis.DiagnoseStore(ctx, st, o.analysis())
	if err != nil {
		return err
	}
	if !o.NoSave {
		if err := analysis.SaveDiagnosisShard(ctx, st, out, o.shard, o.shards); err != nil {
			return err
		}
	}
	if o.JSON {
		return writeJSON(o.Out, out)
	}
	if o.shards > 1 {
		fmt.Fprintf(o.Out, "diagnose: shard %d/%d: the figures are over this shard's %s\n\n", o.shard, o.shards, countOf(len(out.Runs), "run"))
	}
	return writeDiagnose(o.Out, out, o.Width, o.Bold)
}

func writeDiagnose(w io.Writer, d diagnose.Summary, width int, bold bool) error {
	writeVerdict(w, d, width)
	fmt.Fprintln(w)
	printWrapped(w, width, fmt.Sprintf("Peak occupancy by %s (the largest single request per run, as a share of its window):", d.By))
	g := &table{header: []string{diagnoseByHeader(d.By), "RUNS", "WINDOW-ENDS", "MEDIAN PEAK", "MAX PEAK", "RUNS PEAK≥80%", "MAX PEAK TOKENS"}}
	for _, x := range d.Groups {
		med, mx := "-", "-"
		if x.KnownWindow > 0 {
			med, mx = pct(x.MedianPeak), pct(x.MaxPeak)
		}
		g.add(snippet(x.Key, 32), thousands(int64(x.Runs)), thousands(int64(x.WindowEnds)), med, mx, thousands(int64(x.RunsPeakGE80)), thousands(x.MaxPeakTokens))
	}
	g.key = []int{0}
	g.optional = g.columns("MAX PEAK TOKENS", "RUNS PEAK≥80%", "WINDOW-ENDS", "MAX PEAK")
	g.optionalHint = "--json has every column; widen the terminal"
	if err := g.write(w, width, bold); err != nil {
		return err
	}
	if err := writeDiagnoseExtras(w, d, width, bold); err != nil {
		return err
	}
	fmt.Fprintln(w)
	t := &table{header: []string{"RUN", "MODEL", "WINDOW", "PEAK", "PEAK%", "≥80%", "COMPACT", "END", "WHY"}, min: []int{12, 8, 10, 4, 5, 4, 7, 10, 20}, ids: 1}
	estimated, inferred := false, false
	for _, r := range d.Runs {
		o := r.Occupancy
		window, share := "? (unknown)", "-"
		if o.Window > 0 {
			window = thousands(o.Window) + " (" + r.WindowSource + ")"
			share = pct(o.PeakShare)
		}
		peak := thousands(o.PeakTokens)
		if len(o.Calls) > 0 && o.Calls[slices.IndexFunc(o.Calls, func(c diagnose.CallOccupancy) bool { return c.Call == o.PeakCall })].Source == diagnose.PromptEstimated {
			peak, estimated = "~"+peak, true
		}
		end := string(r.End.Reason)
		if r.End.Source == "inferred" {
			end, inferred = end+"?", true
		}
		t.add(idCell(r.RunID), snippet(orDash(r.Model), 28), window, peak, share, thousands(int64(o.Calls80)), thousands(int64(len(o.Compactions))), end, r.End.Rule+": "+snippet(r.End.Why, 80))
	}
	var marks []string
	if estimated {
		marks = append(marks, "~ peak estimated (no logged usage at that call)")
	}
	if inferred {
		marks = append(marks, "? end reason inferred, not logged")
	}
	if len(marks) > 0 {
		t.footer = []string{strings.Join(marks, "; ")}
	}
	// only where the table cannot fit even with every text column at its min
	t.optional = t.columns("COMPACT", "≥80%", "WINDOW", "WHY")
	t.optionalHint = "--json has every column; widen the terminal"
	return t.write(w, width, bold)
}

func diagnoseByHeader(by string) string {
	switch by {
	case "harness":
		return "HARNESS"
	case "format":
		return "FORMAT"
	}
	return "MODEL FAMILY"
}

// writeDiagnoseExtras prints the token-rent table, the reading-boundary
// curve's event points, and the re-read and stall totals.
func writeDiagnoseExtras(w io.Writer, d diagnose.Summary, width int, bold bool) error {
	fmt.Fprintln(w)
	printWrapped(w, width, "Tokens carried into later calls by tool (RENT: each output's tokens × the calls that carried it; top 10):")
	if len(d.RentByTool) == 0 {
		fmt.Fprintln(w, "  no tool outputs")
	} else {
		rt := &table{header: []string{"TOOL", "RENT", "SHARE", "OUTPUTS", "MEAN TOKENS"}}
		for i, t := range d.RentByTool {
			if i == 10 {
				break
			}
			rt.add(snippet(orDash(t.Tool), 32), thousands(t.Rent), pct(t.Share), thousands(t.Outputs), thousands(int64(math.Round(t.MeanTokens))))
		}
		if err := rt.write(w, width, bold); err != nil {
			return err
		}
	}
	b := d.ReadingBoundary
	fmt.Fprintln(w)
	printWrapped(w, width, fmt.Sprintf("Reading boundary (cumulative incidence of stopping while reading, Aalen–Johansen, finishing a competing outcome; %s: %d stopped while reading, %d finished, %d censored; calls with reading stops):",
		countOf(int(b.Runs), "run"), b.Events, b.Finished, b.Censored))
	if b.Events == 0 {
		fmt.Fprintln(w, "  no unfinished run stopped while reading")
	} else {
		bt := &table{header: []string{"CALL", "AT RISK", "READING", "FINISHED", "CENSORED", "INCIDENCE", "FINISHED INCIDENCE"}}
		for _, p := range b.CIF {
			if p.Events == 0 {
				continue
			}
			bt.add(thousands(p.Call), thousands(p.AtRisk), thousands(p.Events), thousands(p.Finished), thousands(p.Censored), pct(p.Incidence), pct(p.FinishedIncidence))
		}
		bt.optional = bt.columns("FINISHED INCIDENCE", "CENSORED", "FINISHED")
		bt.optionalHint = "--json has every column; widen the terminal"
		if err := bt.write(w, width, bold); err != nil {
			return err
		}
	}
	t := d.Totals
	fmt.Fprintln(w)
	cost := fmt.Sprintf("Cost: %s over %s (logged %d, priced from usage %d, unknown %d)", textfmt.Dollars(t.SpendUSD), countOf(int(t.CostLogged+t.CostPriced), "run"), t.CostLogged, t.CostPriced, t.CostUnknown)
	if ps := t.PerSolved; ps.USD != nil {
		cost += fmt.Sprintf("; per solved task %s (%d resolved, %d failed; %s with unknown outcome left out)", textfmt.Dollars(*ps.USD), ps.Resolved, ps.Failed, countOf(ps.Excluded, "run"))
	} else {
		cost += "; per solved task: no run with a known resolved outcome"
	}
	printWrapped(w, width,
		fmt.Sprintf("Re-reads: %s while the earlier output was visible, %s after it was hidden, %s before it reached a prompt",
			thousands(t.ReReadsVisible), thousands(t.ReReadsHidden), thousands(t.ReReadsPending)),
		fmt.Sprintf("Stalls: %s of a command with an identical failing output, in %s; %s with an identical output that did not fail, in %s",
			textfmt.Plural(int(t.Stalls), "repeat", "repeats"), countOf(int(t.StallRuns), "run"), textfmt.Plural(int(t.Repeats), "repeat", "repeats"), countOf(int(t.RepeatRuns), "run")),
		cost)
	return nil
}

// writeVerdict prints the verdict lines (also printed by trajmine report),
// each fitted to width (≤ 0: whole).
func writeVerdict(w io.Writer, d diagnose.Summary, width int) {
	printFitted(w, width, d.VerdictText())
}
