// Package compare measures a real change between groups of logged agent
// runs — a condition on against off, one model against another, one
// harness setting against the next batch — the way the DTOC paper reports
// its evidence (its Tables 3 and 4): per model, the solve rate, input,
// output and cached tokens, steps, duration, cost and cost per solved
// task under each condition, each difference with a confidence interval
// and a test, and the per-task solve matrix. It also sets the simulator's
// prediction of the change beside the observed one (Check).
//
// # Typical steps
//
//  1. Describe each run as a Run (the caller reads them from the store:
//     analysis.CompareStore): its task, model family, harness, path, start,
//     tags, outcome, logged tokens, model calls, duration and its cost with
//     prompt caching as trajmine diagnose prices it (diagnose.RunCost).
//  2. Choose the groups (Grouping): by model, harness, a tag given at
//     ingest (tag:KEY), detected manage_context use (manage-context: "on"
//     the runs that call manage_context, "off" the others), or explicit
//     named filters (ParseGroup: model=, harness=, path globs, since=,
//     until=, tag:K=V). Two or more groups; one is the reference (Options
//     .Reference, else "off", "no", "baseline", … when a group is so named,
//     else the first), and every other group is compared with it.
//  3. Compare pairs the runs by task: a run of group G and one of the
//     reference with the same task id (and the same model family, unless
//     the groups are models) form a pair, in the order of their start
//     times when a task was run several times; runs left over are
//     unpaired and counted. Every figure of a comparison row is computed
//     on its pairs; a row with no pair at all falls back to the two groups'
//     runs as independent samples and says so.
//  4. Check replays, when the groups differ by a context policy the
//     simulator can replay, the runs of one group under the other's policy
//     (the caller runs the replays: analysis.CompareStore) and sets the
//     predicted change in tokens and cost beside the observed one.
//
// # Statistics
//
// Paired rows (n pairs, x the group's value and y the reference's):
//
//   - solve rate: over the pairs where both runs have an outcome;
//     difference = mean(x) − mean(y) in percentage points with a paired
//     bootstrap CI (stats.PairedMeanDiff), and McNemar's exact test on the
//     discordant pairs b (only the group solved) and c (only the
//     reference): p = min(1, 2·Σ_{i≤min(b,c)} C(b+c, i)/2^(b+c))
//     (stats.McNemarExact);
//   - tokens, steps, duration, cost: over the pairs where both runs have
//     the figure, change = Σx / Σy − 1 (the ratio of the means) with a
//     paired bootstrap CI that resamples the pairs (stats.SumRatio);
//   - cost per solved task: over the pairs where both have an outcome and
//     a cost, change = (Σx / Σsolved_x) / (Σy / Σsolved_y) − 1, failed
//     runs' cost included (diagnose.CostPerSolved's rule), with a paired
//     bootstrap CI (stats.PerUnitRatio).
//
// Unpaired rows use the two-sample forms: Fisher's exact test
// (stats.FisherExact) and bootstraps that resample each group on its own
// (stats.TwoSampleMeanDiff, TwoSampleMeanRatio, TwoSamplePerUnitRatio).
// Every bootstrap draws Options.B resamples (default 2,000) from a PCG
// seeded with Options.Seed (default 1): the same runs give the same bytes.
//
// # When not to conclude
//
// A difference is called only with enough evidence, and the rule is said
// where it applies:
//
//   - solve rate, paired: fewer than Options.MinDiscordant discordant pairs
//     (default 6, stats.MinDiscordant: with 5 even all of them one way give
//     p = 2/2⁵ = 0.0625) is "not enough to conclude"; otherwise p < Alpha
//     (0.05) says higher or lower, else "no significant difference";
//   - everything else, and unpaired solve rates: fewer than
//     Options.MinPairs pairs (default 10; unpaired: runs in either group)
//     is "too few to conclude"; otherwise a 95 % interval that excludes 0
//     says higher or lower, else "no clear difference".
//
// Runs without an outcome are left out of the solve figures (and of cost
// per solved task), and every row says how many; runs without a task id
// cannot be paired. Nothing here reads the store or the events.
package compare
