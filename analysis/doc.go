// Package analysis computes what trajmine's commands report, over the
// store, in one shared pass (Pass): each command's analysis (Diagnose,
// Simulate, Recommend, Behaviour, Mine) is a consumer of the pass with its
// own small options, and Report runs them all at once for trajmine report
// and assembles the page's data (Page; PageConversations adds the runs'
// conversations within the page's budget, and Conversation builds one
// run's from its rows, for the page and trajmine serve). CompareStore
// feeds trajmine compare (package compare) from the same pass and replays
// the runs its simulator check names; ComparePage is its section of the
// page. The domain packages (diagnose, simulate, recommend, behavior,
// mining, counterfactual, compare) hold the per-run and cross-run
// arithmetic; this package feeds them runs and collects their results;
// package cmd holds the flags, the wiring and the writers.
package analysis
