// Package dashboards renders trajmine's report as one self-contained HTML
// file (the design card's dashboards: go-echarts, assets embedded, works
// offline). Its sections, by importance: the verdict (the CLI's verdict
// line, six headline cards from the same figures, the recommended action
// per model family), recommendations, the policy comparison per model
// family, occupancy (every run as a point, the top runs, a sampled run
// under every policy), the run list and per-run timeline, token rent by
// tool, reading-boundary survival per policy, the process map and
// variants, manage_context behaviour profiles when the caller has them,
// and the glossary (internal/glossary.Terms, what trajmine help terms
// prints; jargon table headers link to it). Secondary tables and the
// formulas are in collapsed <details>.
//
// The data flow is one way:
//
//  1. the caller (analysis.Page) computes every figure with the CLI's own
//     functions (trajmine diagnose, simulate, recommend) and fills a Data;
//     SampleRuns chooses the runs shown call by call with every policy's
//     replay, and DefaultRun the one shown first (the longest main-agent
//     run of the sample); Data.Runs holds every run's compact record
//     (diag_runs figures and diag_calls prompts), so that every run is
//     reachable;
//  2. Charts turns Data into ECharts options built from go-echarts' option
//     types (echarts.go; no JavaScript functions) with stable chart ids
//     and series order, golden-tested per chart; a chart with nothing to
//     draw is not drawn (Chart.Empty: the page says why);
//  3. the process map is not an ECharts chart: processViewOf lays it out
//     in layers at report time (internal/layered: a Sugiyama layout in
//     pure Go, as Graphviz dot does; nothing runs at start-up), left to
//     right from start to end with self-loops and non-overlapping edge
//     labels, and draws it as inline SVG through html/template (procmap*.go);
//     a frequency and a performance view (median times between consecutive
//     events, "no timestamps" where the logs have none) share one layout,
//     for the default transitions and for all of them;
//  4. Write executes the embedded page template: ECharts 5.4.3 (npm
//     echarts' dist/echarts.min.js, the version go-echarts v2.6.7 targets;
//     see assets/), the page's script (internal/textfmt.JS, the number
//     formats every figure it writes uses, then assets/report.js) and
//     style are inlined, the options
//     and run details are JSON in <script type="application/json">
//     blocks; the run records are gzip-compressed, base64-encoded JSON in
//     one of them (at most RunPoints calls per run), which the script
//     decodes with the browser's DecompressionStream and shows 50 rows at
//     a time. A Content-Security-Policy allows only the two scripts (by
//     hash) and no network source.
//
// The drill-down also shows the opened run's conversation (conversation.go,
// assets/conversation.js): its events in order, grouped by model call with
// each call's logged tokens and cost, tool calls with their arguments,
// tool outputs, system prompts, reasoning and compaction summaries folded
// (filled when opened), context operations and what they did to each
// output. The page carries the conversations of Data.Conversations, each
// gzip-compressed alone in the runs block (decoded when its run is
// opened), within the budget the caller keeps (ConversationBudget,
// ConversationChars); a run without one says so. With Data.Live set
// (trajmine serve) the script fetches conversations, searches and
// filters from the server instead, follows new logs by polling the page's
// generation, and the CSP allows connections to the page's own origin.
//
// The script makes every table sortable (click a header) and filterable
// (a text box), draws the chosen run's timeline (prompt per call as logged
// and under a chosen policy, tool outputs, compactions, overflow), and
// opens a run from the run list, a point of the runs chart or a top-run
// chart (the address then names it: #run=<id>); bars of the end-reason,
// peak-share and runs-saved charts, the recommendation and behaviour
// charts' families and the family rows filter the run list.
//
// Invariants: the page makes no network request; text from logs reaches it
// only through html/template's contextual escaping (HTML text, or JSON
// with <, > and & escaped) and is shown by the script with textContent;
// the same Data gives the same bytes. dashboards never reads the database.
package dashboards
