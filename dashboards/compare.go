package dashboards

import (
	_ "embed"
	"html/template"
)

// The comparison of groups of real runs (trajmine compare; trajmine
// report --compare-by or --compare-group): its own section, laid out as
// the DTOC paper's Tables 3 and 4 — per model the reference's and the
// group's rows and the change with its CI, then the per-task solve matrix
// — with the plain sentences and the simulator check. The caller
// (analysis.ComparePage) formats every figure; the section only lays
// them out (assets/compare.html.tmpl, the "compare" template the page
// includes).

//go:embed assets/compare.html.tmpl
var compareTmpl string

func init() {
	// a text of define blocks only: it adds "compare" to the page's
	// templates without replacing the page's body
	template.Must(page.Parse(compareTmpl))
}

// Compare is the page's comparison section; nil in Data means none.
type Compare struct {
	Title  string         // how the runs were grouped and the reference
	Groups []CompareGroup // every group
	Tables []CompareTable // one per group compared with the reference
	Matrix CompareMatrix  // the per-task solve matrix
	// Check holds the simulator check's sentences; CheckNote why (some)
	// comparisons were not checked.
	Check     []string
	CheckNote string
	Rules     string // how the figures were computed and when they conclude
}

// CompareGroup is one group's runs and what some of them lack.
type CompareGroup struct {
	Name                                  string
	Runs, Tasks, NoOutcome, Unpriced, MCs int
}

// CompareTable is one group against the reference (the paper's Table 4):
// per model, a row for each side and one for the change.
type CompareTable struct {
	Group, Reference string
	Figures          []string // the column heads: solve rate, input tokens, …
	Models           []CompareModel
}

// CompareModel is one model's rows of a CompareTable.
type CompareModel struct {
	Model   string
	Pairing string   // "12 paired tasks", "no shared task: 10 vs 10 runs"
	Ref     []string // per figure, the reference's value
	Group   []string // the group's
	Change  []string // the change and its CI
	Verdict []string // higher, lower, no difference, not enough, too few
	// Sentence says it in words, with the tests and the rules that apply.
	Sentence string
}

// CompareMatrix is the per-task solve matrix (the paper's Table 3).
type CompareMatrix struct {
	Columns []string // model/group
	Rows    []CompareTask
	// Note says how many tasks there are and what the marks mean.
	Note string
}

// CompareTask is one task's row: a mark per column.
type CompareTask struct {
	Task    string
	Marks   []string
	Differs bool
}
