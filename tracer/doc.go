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
//     reward is
//
//     R = −(prompt tokens + re-invocation tokens) / keep-all tokens
//     − λ × predicted re-invocations − OverflowPenalty × [overflowed]
//
//     (re-invocations from the provenance model, package counterfactual,
//     as the engine predicts them). REINFORCE with a leave-one-out baseline
//     over the run's samples gives every decision of a replay the uniform
//     floor R − b; the outcome model adds each decision's own channel, the
//     single-tool counterfactual credit
//
//     c = Credit × [(1 − r)·T·(calls left)/keep-all − (P̂(x, r) − P̂(x, 1))·(Ĉ(x)/keep-all + λ)]
//
//     (the tokens its compression saves against the predicted harm of its
//     ratio relative to keeping the output whole). Adam ascends
//     Σ (R − b + c)·∇log Beta(r; α, β).
//
//  3. The outcome model (Outcome) is refitted after every epoch on its
//     decisions: a logistic model of "a later use lost its evidence" on the
//     features and ratio × features (gonum optimize, L-BFGS), and a ridge
//     regression of the log token cost of the re-invocation (gonum mat).
//
//  4. Evaluate (Evaluate) the mean policy on held-out runs against keep-all,
//     as-logged when the catalog has it, and the four tracer-* baselines,
//     and check the attributor (Attribution) by single-output
//     interventions.
//
// Everything is deterministic for Options.Seed: one math/rand/v2 PCG drives
// initialisation, run order and sampling.
package tracer
