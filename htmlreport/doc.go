// Package htmlreport renders trajmine's report as one self-contained HTML
// file: the diagnose verdict, occupancy curves, reading-boundary survival
// per policy, the policy comparison per model family, token rent by tool,
// recommendations and a run drill-down, plus the process map, variants and
// manage_context behaviour profiles when the caller has them.
//
// The data flow is one way:
//
//  1. the caller (analysis.Page) computes every figure with the CLI's own
//     functions (trajmine diagnose, simulate, recommend) and fills a Data;
//     SampleRuns chooses the runs shown call by call, so that the page stays
//     small whatever the number of runs;
//  2. Charts turns Data into ECharts options (typed structs, no JavaScript
//     functions) with stable chart ids, golden-tested per chart;
//  3. Write executes the embedded page template: ECharts (vendored from the
//     npm package echarts, see assets/), the page's script and style are
//     inlined, the options and run details are JSON in
//     <script type="application/json"> blocks. A Content-Security-Policy
//     allows only those two scripts (by hash) and no network source.
//
// Invariants: the page makes no network request; text from logs reaches it
// only through html/template's contextual escaping (HTML text, or JSON
// with <, > and & escaped) and is shown by the script with textContent;
// the same Data gives the same bytes. htmlreport never reads the database.
package htmlreport
