// Package stats holds the statistics behind trajmine simulate's aggregates:
// per-model comparisons of context policies over thousands of runs.
//
// Typical steps, for one model and two policies A and B run on the same tasks:
//
//  1. Summarise each policy's per-run metric (cost, tokens, turns) with
//     [Median] and a percentile bootstrap interval from [BootstrapMedianCI].
//  2. Test whether A and B differ, pairing runs by task, with
//     [WilcoxonSignedRank] (two-sided; exact p for small untied samples).
//  3. Report the typical relative change as [GeoMeanRatio] of A over B with
//     its bootstrap interval.
//
// For real experiments (trajmine compare: the same tasks run under two
// conditions) the paired tests are [McNemarExact] on solved/failed pairs
// ([FisherExact] for two groups with no shared task) and the paired
// bootstraps [PairedMeanDiff], [SumRatio] and [PerUnitRatio] (the
// two-sample ones for unpaired groups); trajmine mine --compare tests each
// edge's per-run rate with [WelchT] and corrects for the number of
// edges tested with [BenjaminiHochberg].
//
// Invariants:
//   - Inputs are never modified.
//   - Everything random is drawn from a math/rand/v2 PCG seeded by the caller,
//     so equal inputs and seeds give bit-identical results (goldens are stable).
//   - Bad input never panics: functions without an error result return NaN.
//
// The package is a leaf: it imports nothing from trajmine. Quantiles and the
// normal distribution come from gonum (stat.Quantile, distuv.UnitNormal);
// gonum has no signed-rank test, so that is implemented here.
package stats
