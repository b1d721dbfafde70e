package schema

// TableTrainCurves holds training curves, written by trajmine train: one
// row per model × epoch. A training run replaces its model file's rows.
const TableTrainCurves = "train_curves"

// TrainCurves describes the train_curves table.
var TrainCurves = Table{Name: TableTrainCurves, Doc: "trajmine train tracer: one row per model file × epoch (training curves)", Columns: []Column{
	col("model", Varchar, "the model file written (-o), as given"),
	col("epoch", BigInt, "epoch, from 1"),
	col("reward", Double, "mean reward of the epoch's sampled replays"),
	col("token_ratio", Double, "sampled replays: Σ (prompt + re-invocation tokens) / Σ keep-all prompt tokens"),
	col("reinv_per_100", Double, "sampled replays: predicted re-invocations per 100 replayed calls"),
	col("overflows", BigInt, "sampled replays that overflowed"),
	col("mean_ratio", Double, "mean sampled retention ratio"),
	col("decisions", BigInt, "sampled decisions (outputs × events)"),
	col("mean_reward", Double, "the mean (deterministic) policy's reward on the training runs after the epoch"),
	col("mean_token_ratio", Double, "the mean policy's token ratio on the training runs after the epoch"),
	col("outcome_logloss", Double, "the outcome model's log loss on the epoch's decisions before refitting; -1 before the first fit"),
}}
