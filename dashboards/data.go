package dashboards

// Data is everything the report shows. The caller (analysis.Page) fills it
// from the same functions and tables as the CLI (trajmine diagnose,
// simulate and recommend); dashboards computes no figure of its own except
// the peak-share histogram's counts, the sample's order, and on the first
// screen the median of Peaks. It makes no choice: the best-policy card
// shows Decision, the CLI's. Optional parts are nil when not computed, and
// the page then says so.
type Data struct {
	// Title heads the page; Generated is the label shown under it, as the
	// caller writes it (analysis.Page: the wall clock's UTC minute from
	// time.Now; tests: a constant). htmlreport reads no clock.
	Title     string
	Generated string
	Source    string // what was ingested (e.g. "local agent logs")
	Database  string // the DuckDB file the tables are in

	Formats []FormatTotals // runs per source format (trajmine report's table)

	Verdict  Verdict    // trajmine diagnose's verdict and totals
	Groups   []Group    // peak occupancy by model family (diagnose --by model)
	Ends     []Count    // runs per end reason (diag_runs.end_reason)
	Peaks    []float64  // every run's peak share (diag_runs.peak_share), runs with a known window
	Rent     []ToolRent // token rent by tool (diagnose's rent table; all tools)
	Boundary []Survival // reading-boundary curves: diagnose's first, then one per policy

	// Policies are the replayed policies in simulate's order (keep-all first).
	Policies []Policy
	// Headline is the report's answer in plain sentences, as the CLI
	// prints it first (analysis.Headline); Decision is the choice it
	// states (analysis.Decide), which the best-policy card shows;
	// BestPolicy is the short name of its policy when the report replayed
	// it (the run timelines draw it), else "".
	Headline   []string
	Decision   Decision
	BestPolicy string
	// Accuracy is simulate's keep-all accuracy line, as the CLI prints it.
	Accuracy string
	// Comparison is simulate's comparison over all runs (Group ""), then
	// per model family (Group set): trajmine simulate --by model.
	Comparison []PolicyAgg

	// Recommendations are trajmine recommend's results, one per model family;
	// nil when not computed.
	Recommendations []Recommendation

	// Sample holds the runs shown call by call (see SampleRuns), with
	// Rule stating how they were chosen.
	Sample     []RunDetail
	SampleRule string

	// Runs is every run's compact record (diag_runs and its diag_calls),
	// in diagnose's order: the run list and the per-run timeline of the
	// drill-down, so that every run is reachable, not only the sample. The
	// page carries it gzip-compressed (see RunPoints) and the script
	// decodes it on demand; nil when not computed.
	Runs []RunRecord
	// TimelinePolicies are the short names of the policies whose per-call
	// prompts every run record carries (RunRecord.Replays): as-logged,
	// keep-all and BestPolicy, when replayed.
	TimelinePolicies []string

	// Conversations are the runs whose conversation the page carries
	// (each gzip-compressed alone, decoded when the run is opened);
	// ConversationNote says which runs and how their texts were cut. A
	// run of Runs with no conversation here shows the note (and, under
	// Live, fetches its conversation from the server).
	Conversations    []Conversation
	ConversationNote string
	// Live is set when trajmine serve serves the page; nil for a file.
	Live *Live

	// Optional sections filled by other analyses; nil means not computed.
	// Compare: trajmine report --compare-by / --compare-group (compare.go).
	Compare    *Compare
	ProcessMap *ProcessMap
	Variants   []Variant
	Behaviour  []BehaviourProfile

	// Redacted is how many secrets (API keys, tokens, passwords, private
	// keys) were replaced in the log text the page shows; Unredacted means
	// redaction was off (trajmine report --no-redact). The header says which.
	Redacted   int
	Unredacted bool
}

// FormatTotals are one source format's run totals (trajmine report's table).
type FormatTotals struct {
	Format          string
	Runs            int64
	Calls           int64
	InputTokens     int64
	OutputTokens    int64
	CacheReadTokens int64
	EstTokens       int64
	NoUsage         int64
	Overflow        int64
}

// Verdict is trajmine diagnose's headline with its key figures.
type Verdict struct {
	// Text is the verdict as the CLI prints it (writeVerdict).
	Text          string
	Runs          int
	WindowEnds    int
	Share         float64
	Explicit      int
	Inferred      int
	UnknownWindow int

	BoundaryFound  bool
	BoundaryCall   int64
	BoundaryEvents int64

	TopRentTool          string
	TopRentShare         float64
	SystemPromptShare    float64
	ToolDefinitionsShare float64

	ReReadsVisible, ReReadsHidden, ReReadsPending int64
	Stalls, StallRuns                             int64

	SpendUSD                            float64
	CostLogged, CostPriced, CostUnknown int64
	PerSolvedUSD                        *float64 // nil: no run with a known outcome
	Resolved, Failed, Excluded          int
}

// Group is the peak-occupancy summary of one model family.
type Group struct {
	Key           string
	Runs          int
	WindowEnds    int
	KnownWindow   int
	MedianPeak    float64
	MaxPeak       float64
	RunsPeakGE80  int
	MaxPeakTokens int64
}

// Count is a labelled count.
type Count struct {
	Label string
	N     int
}

// ToolRent is one tool's token rent (diagnose.ToolRent).
type ToolRent struct {
	Tool       string
	Rent       int64
	Share      float64
	Outputs    int64
	Tokens     int64
	MeanTokens float64
}

// KMPoint is one step of a reading-boundary curve: cmd fills Survival with
// 1 − the Aalen–Johansen incidence of reading stops (diagnose.CIFPoint),
// Censored with the finished and censored runs.
type KMPoint struct {
	Call     int64
	AtRisk   int64
	Events   int64
	Censored int64
	Survival float64
}

// Survival is one reading-boundary curve (diagnose.ReadingBoundary): the
// logged runs' (Name "logged") or a policy's replay (Name its short spec).
type Survival struct {
	Name     string
	Runs     int64
	Events   int64
	Censored int64
	Found    bool
	Call     int64
	Curve    []KMPoint
}

// Policy is one replayed policy: its canonical spec and short name.
type Policy struct {
	Spec  string
	Short string
}

// Decision is the report's decision (analysis.Decide): the policy it names
// for one model family with its figures on that family's held-out runs,
// or none and why.
type Decision struct {
	Policy   string // short name; "" none
	Family   string
	Currency string  // what the choice was made in: "cost", "cost per solved task" or "tokens" (nothing priced)
	Ratio    float64 // Σ policy / Σ what ran in Currency, held out
	Lo, Hi   float64 // its run-level bootstrap 95 % CI
	Tokens   float64 // Σ effective / Σ as-logged tokens, held out
	HeldOut  int     // held-out runs
	// Saved and Lost are runs against what ran; LostLogged the runs what
	// ran loses among them
	Saved, Lost, LostLogged int
	ReinvPer100             float64 // predicted re-invocations per 100 calls
	More                    int     // further families with a policy (the actions table)
	Note                    string  // what applying it takes beyond the setting ("" nothing)
	Reason                  string  // when none: why, as the headline says it
}

// PolicyAgg is one policy's simulate.Agg (own windows), over all runs
// (Group "") or one model family, in the CLI's names and units (trajmine
// simulate's table: COST ×, $ SAVED, TOKENS ×, REINV/100 CALLS).
type PolicyAgg struct {
	Group   string
	Policy  string // short name
	Runs    int
	Acted   int
	Ratio   float64 // tokens ×: Σ policy / Σ as-logged effective tokens (simulate.Agg.EffectiveRatio)
	RatioLo float64 // 95 % bootstrap CI
	RatioHi float64

	TokensSaved                            int64
	Overflow, KeepAllOverflow, Saved, Lost int
	BoundaryFound                          bool
	BoundaryCall                           int64
	Reinvocations                          int64
	ReinvPer100                            float64 // predicted re-invocations per 100 replayed calls
	ReinvocationTokens                     int64

	Priced int
	// Cost is cost × with prompt caching, the objective: Σ policy / Σ
	// as-logged cost over the priced runs (simulate.Agg.CostCachedRatio),
	// with its CI; Uncached the same without caching
	Cost, CostLo, CostHi float64
	Uncached             float64
	SavedUSD             float64 // $ SAVED: Σ as-logged − Σ policy cost with caching
	CostCachedUSD        float64
}

// Recommendation is one model family's recommend.Result.
type Recommendation struct {
	Family      string
	Label       string
	Runs        int
	Train       int
	HeldOut     int
	Policy      string
	Short       string
	Mechanism   string
	Currency    string   // what Saving is in: cost, cost per solved task, tokens
	Saving      *float64 // held-out expected saving (1 − ratio in Currency); nil when not split
	SavingLo    *float64
	SavingHi    *float64
	ReinvPer100 *float64
	SavedRuns   int
	Why         string
	Note        string // what applying Policy takes beyond its setting (remove the manage_context tool; API-level); "" nothing
}

// RunDetail is one sampled run, call by call.
type RunDetail struct {
	RunID        string
	Model        string
	Family       string
	Harness      string
	Format       string
	Window       int64 // 0 unknown
	WindowSource string
	PeakTokens   int64
	PeakShare    float64
	EndReason    string
	EndSource    string
	EndWhy       string
	Why          string // why it is in the sample: "top" or "sample"
	// Parent is the run this one is a sub-agent or side-call of
	// (runs.parent_run_id); "" for a main-agent run.
	Parent string

	Calls    []Call       // diag_calls, by call
	Policies []RunPolicy  // sim_runs and sim_calls, in Data.Policies order
	Outputs  []ToolOutput // tool_result events in seq order
}

// RunRecord is one run's compact record: its diag_runs figures and its
// diag_calls prompts.
type RunRecord struct {
	RunID string // redacted as the rest of the page
	// StoreID is the store's id of the run (RunID before redaction), by
	// which analysis loads its conversation; never written into the page.
	StoreID    string
	Model      string
	Family     string
	Format     string
	Window     int64 // 0 unknown
	PeakTokens int64
	PeakShare  float64
	EndReason  string
	EndSource  string
	Calls      []Call // diag_calls, by call
	// CostUSD is diagnose's cost of the run (logged, else priced); unknown
	// when CostKnown is false.
	CostUSD   float64
	CostKnown bool
	// Policies are the run's sim_runs rows at its own window, in
	// Data.Policies order; nil when not simulated.
	Policies []PolicyOutcome
	// Replays are the run's prompt tokens per replayed call (sim_calls.
	// prompt_tokens by call, 0-based) under each of Data.TimelinePolicies,
	// in that order; nil when not simulated.
	Replays [][]int64
}

// PolicyOutcome is what one policy did to a whole run (a sim_runs row).
type PolicyOutcome struct {
	Status       string
	OverflowCall int     // -1 none
	TokenRatio   float64 // prompts against what ran's (simulate.RunResult.TokenRatio)
	Saved, Lost  bool    // sim_runs.saved, sim_runs.lost: against what ran (as-logged)
}

// Call is one diag_calls row; Index is the model call's index in the run
// (diag_calls.turn, the stored column's name).
type Call struct {
	Index      int64
	Prompt     int64
	Estimated  bool // prompt_source = estimated
	Compaction bool
}

// RunPolicy is one sim_runs row of a sampled run with its sim_calls prompts.
type RunPolicy struct {
	Policy          string // short name
	Status          string
	OverflowCall    int     // -1 none
	FirstActivation int     // -1 never
	TokenRatio      float64 // prompts against what ran's (simulate.RunResult.TokenRatio), as PolicyOutcome's
	PeakTokens      int64
	Reinvocations   int
	PlaceholdersMax int
	CharsRemoved    float64 // chars_removed_share
	// Prompts are sim_calls.prompt_tokens by call index (0-based).
	Prompts []int64
}

// ToolOutput is one tool result of a sampled run and what each policy did to it.
type ToolOutput struct {
	Seq       int64
	Call      int64
	Tool      string
	Key       string
	Target    string
	EstTokens int64
	Chars     int64
	Preview   string // the first characters of the output text
	// Actions, per Data.Policies entry: "" when the policy never changed
	// the output, else its first change: "placeholder", "truncated",
	// "dropped" or "summarized", and the call (see Action).
	Actions []Action
}

// Action is what one policy first did to one output.
type Action struct {
	Mode string // "" untouched
	Call int
}

// ProcessMap is a process map (mining's directly-follows graph):
// activities and the transitions between them, with frequency and median
// duration.
type ProcessMap struct {
	Nodes []ProcessNode
	Edges []ProcessEdge
}

// ProcessNode is one activity: its events, and the median time from one
// of them to the next event of its run (mining.Node's MedianSeconds, in
// ms) over the Timed events where both had a timestamp; Timed 0: the logs
// have no timestamps to measure it from.
type ProcessNode struct {
	ID       string
	Label    string
	Count    int64
	Timed    int64
	MedianMS float64
}

// ProcessEdge is one transition between activities (From → To, StartNode
// and EndNode included): how often To directly follows From, and the
// median time between the two events (mining.Edge's MedianSeconds, in ms)
// over the Timed transitions where both had a timestamp.
type ProcessEdge struct {
	From, To string
	Count    int64
	Timed    int64
	MedianMS float64
}

// Variant is one process variant: a distinct activity sequence.
type Variant struct {
	Activities []string
	Runs       int64
	Share      float64
}

// BehaviourProfile is one model family's manage_context behaviour.
type BehaviourProfile struct {
	Family  string
	Label   string
	Runs    int
	Metrics []Metric
}

// Metric is one named figure of a behaviour profile.
type Metric struct {
	Name  string
	Value float64
	Unit  string // "%" for shares in [0, 1], "" otherwise
}
