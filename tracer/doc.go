// Package tracer trains TRACER's learned per-tool retention policy offline
// (the TRACER seed paper): the replay engine (package simulate) is the
// environment and the agent's logged actions are held fixed, so only the
// context policy is learned.
//
// The typical steps:
//
//  1. Split the runs by run with recommend's split (Split, package
//     internal/holdout: held out when FNV-1a-32(run id) mod every is 0), so
//     a model is never trained on a run recommend holds out to measure it;
//     the model records the rule and its training runs (Training).
//
//  2. Train (Train) a two-layer MLP giving a Beta distribution over each
//     candidate output's retention ratio at each compression event
//     (simulate.NewLearned's features, the target kind of the output's
//     call among them; Options.Ablate holds chosen ones at zero). Per epoch, every training run is
//     replayed Samples times with ratios drawn from the Beta; a replay's
//     reward (Options.Reward; RewardCost by default) is
//
//     R = −C / C_keep-all − λ × predicted re-invocations − Options.Overflow × [overflowed]
//
//     C = ρr × cached + ρw × written + uncached + re-invocation tokens
//
//     the replay's prompts priced under its run's prompt-cache rule
//     (PromptCost, in input tokens: cached and written are the rule's
//     predicted cache reads and writes, package simulate's cache.go; ρr and
//     ρw the run's cache-read and cache-write prices over its input price,
//     StandInPrice's 0.1 and 1.25 or 1 when the price table has no entry;
//     re-invocations billed uncached), and C_keep-all keep-all's on the same
//     calls. RewardTokens is the reward before issue 27, every prompt token
//     at the input price: C = prompt + re-invocation tokens, C_keep-all =
//     keep-all's prompt tokens. Re-invocations come from the provenance
//     model, package counterfactual, as the engine predicts them. REINFORCE
//     with a leave-one-out baseline over the run's samples gives every
//     decision of a replay the uniform floor R − b; the outcome model adds
//     each decision's own channel, the single-tool counterfactual credit
//
//     c = Credit × [(1 − r)·T·ρr·(calls left)/C_keep-all − (P̂(x, r) − P̂(x, 1))·(Ĉ(x)/C_keep-all + λ)]
//
//     (what its compression saves — the cut tokens would have been read
//     from the cache at every later call, ρr = 1 under RewardTokens —
//     against the predicted harm of its ratio relative to keeping the
//     output whole; the cache break a cut causes is an event's, not one
//     decision's, and is left to the floor). Adam ascends
//     Σ (R − b + c)·∇log Beta(r; α, β).
//
//  3. The outcome model (Outcome) is refitted after every epoch on its
//     decisions: a logistic model of "a later use lost its evidence" on the
//     features and ratio × features (gonum optimize, L-BFGS), and a ridge
//     regression of the log token cost of the re-invocation (gonum mat).
//
//  4. Tune TRACER's uniform baseline on the training runs (TuneUniform):
//     tracer-uniform at every ratio of UniformGrid, the one with the best
//     mean reward R kept in the model (Training.Uniform).
//
//  5. Evaluate (Evaluate) the mean policy on held-out runs against keep-all,
//     as-logged when the catalog has it, tracer-uniform at r = 0.5 and at
//     its tuned ratio, and the other tracer-* baselines, in tokens and in
//     cost with caching against as-logged; say whether the learned policy
//     beats the tuned rule on cost (Report.Verdict); and check the
//     attributor (Attribution) by single-output interventions.
//
// A model records the model families of its training runs
// (Training.Families); FamilyWarning says when it is applied to another.
//
// Everything is deterministic for Options.Seed: one math/rand/v2 PCG drives
// initialisation, run order and sampling.
package tracer
