package dashboards

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/trajmine/trajmine/internal/glossary"
	"github.com/trajmine/trajmine/internal/textfmt"
)

// EChartsVersion is the vendored ECharts (assets/echarts.min.js, the npm
// package echarts@5.4.3's dist/echarts.min.js, byte for byte): the version
// go-echarts v2.6.7, whose option types build the charts, targets.
const EChartsVersion = "5.4.3"

var (
	//go:embed assets/echarts.min.js
	echartsJS string
	//go:embed assets/page.html.tmpl
	pageTmpl string
	//go:embed assets/report.css
	reportCSS string
	//go:embed assets/report.js
	reportJS string
	//go:embed assets/conversation.js
	conversationJS string
	//go:embed assets/conversation.css
	conversationCSS string
)

// inlineJS is script text as the browser executes it: HTML parsing turns
// CR LF and CR into LF (echarts.min.js has some), so the CSP hash must be
// of the normalised text.
func inlineJS(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

var (
	libraryJS = inlineJS(echartsJS)
	// the page's one script: textfmt's formatters (trajmineFmt), then
	// report.js, which formats every figure with them, then the
	// conversation view's and trajmine serve's (conversation.js), which
	// uses the report's hooks
	pageJS = inlineJS(textfmt.JS + "\n" + reportJS + "\n" + conversationJS)
)

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"num":      num,
	"pct":      pct,
	"usd":      textfmt.Dollars,
	"usdp":     usdp,
	"ratio":    textfmt.Ratio,
	"ratioci":  textfmt.RatioCI,
	"pctbound": textfmt.PctBound,
	"saving":   func(ratio float64) string { return textfmt.PctBound(1 - ratio) },
	"optpctci": func(lo, hi *float64) string {
		if lo == nil || hi == nil {
			return ""
		}
		return textfmt.PctCI(*lo, *hi)
	},
	"signed":   func(n int64) string { return textfmt.Thousands(n) },
	"per100":   func(f float64) string { return fmt.Sprintf("%.1f", f) },
	"optreinv": func(p *float64) string { return optFloat(p, "%.1f") },
	"snippet":  snippet,
	"dash":     orDash,
	"window":   windowText,
	"optpct":   optPct,
	"optnum":   func(p *float64) string { return optFloat(p, "%.2f") },
	"metric":   metricText,
	"join":     strings.Join,
	"inc":      func(i int) int { return i + 1 },
	"neg":      func(f float64) float64 { return -f },
	"runkey":   RunKey,
	"termth":   termTH,
	"termid":   TermID,
	"groupkey": func(g string) string {
		return GroupKey(g)
	},
	"chartsOf": func(cs []Chart, section string) []Chart {
		var out []Chart
		for _, c := range cs {
			if c.Section == section {
				out = append(out, c)
			}
		}
		return out
	},
}).Parse(pageTmpl))

func num(v any) string {
	switch n := v.(type) {
	case int:
		return thousands(int64(n))
	case int64:
		return thousands(n)
	case float64:
		return thousands(int64(n + 0.5))
	}
	return fmt.Sprint(v)
}

func usdp(p *float64) string {
	if p == nil {
		return "-"
	}
	return textfmt.Dollars(*p)
}

func optPct(p *float64) string {
	if p == nil {
		return "-"
	}
	return pct(*p)
}

func optFloat(p *float64, f string) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf(f, *p)
}

func metricText(m Metric) string {
	if m.Unit == "%" {
		return pct(m.Value)
	}
	return fmt.Sprintf("%.2f%s", m.Value, m.Unit)
}

// Options configures Write. A nil *Options means defaults.
type Options struct {
	// noLibrary replaces the inlined ECharts with a stub (page goldens).
	noLibrary bool
	// charts, when set, replaces the charts Charts computes (tests of the
	// browser checks draw deliberately broken charts).
	charts func([]Chart) []Chart
	// terms, when set, replaces the glossary (glossary.Terms) the page
	// embeds (the escaping test's hostile terms).
	terms []glossary.Term
}

// view is what the template sees.
type view struct {
	D      *Data
	Head   headline
	Charts []Chart
	// Process is the process map, laid out in layers (internal/layered) and drawn as inline SVG.
	Process processView
	// VariantKey is the variants chart's activity colours.
	VariantKey []ActivityColour
	Groups     []string // comparison groups, "" (all runs) first
	// Terms is the glossary the Terms section lists (glossary.Terms).
	Terms []glossary.Term
	// DefaultRun is the sampled run shown first (DefaultRun), and
	// DefaultRunText says which and why.
	DefaultRun     int
	DefaultRunText string

	// JSON blocks (marshalled and escaped by html/template in
	// <script type="application/json">)
	ChartsJSON []chartJSON
	RunsJSON   runsJSON

	Library template.JS
	Script  template.JS
	// CSP hashes of the two inline scripts: nothing else may run
	LibraryHash, ScriptHash string
	Style                   template.CSS
	Version                 string
}

type chartJSON struct {
	ID       string        `json:"id"`
	Option   Option        `json:"option"`
	Variants []variantJSON `json:"variants,omitempty"`
}

type variantJSON struct {
	Key    string `json:"key"`
	Label  string `json:"label"`
	Option Option `json:"option"`
}

type runsJSON struct {
	Policies []string  `json:"policies"`
	Runs     []runJSON `json:"runs"`
	// Recommended is each family's recommended policy (short name): the
	// timeline's default policy for the family's runs.
	Recommended map[string]string `json:"recommended"`
	// Default is the key of the sampled run shown first (DefaultRun); ""
	// none.
	Default string `json:"default"`
	// All is every run's compact record (allRunsJSON), gzip-compressed and
	// base64-encoded; AllRuns is their number.
	All     string `json:"all"`
	AllRuns int    `json:"all_runs"`
	// Conversations are Data.Conversations by their run's index in
	// Data.Runs, each gzip-compressed and base64-encoded JSON
	// (encodeConversations); ConversationNote is Data.ConversationNote.
	Conversations    map[string]string `json:"conversations,omitempty"`
	ConversationNote string            `json:"conversation_note"`
	// Live is set when trajmine serve serves the page.
	Live *liveJSON `json:"live,omitempty"`
}

type runJSON struct {
	Key          string         `json:"key"`
	RunID        string         `json:"run_id"`
	Model        string         `json:"model"`
	Family       string         `json:"family"`
	Harness      string         `json:"harness"`
	Format       string         `json:"format"`
	Window       int64          `json:"window"`
	WindowSource string         `json:"window_source"`
	PeakTokens   int64          `json:"peak_tokens"`
	PeakShare    float64        `json:"peak_share"`
	EndReason    string         `json:"end_reason"`
	EndSource    string         `json:"end_source"`
	EndWhy       string         `json:"end_why"`
	Why          string         `json:"why"`
	Calls        [][4]int64     `json:"calls"` // call, prompt, estimated 0/1, compaction 0/1
	Policies     []runPolicyRow `json:"policies"`
	Outputs      []outputJSON   `json:"outputs"`
}

type runPolicyRow struct {
	Policy          string  `json:"policy"`
	Status          string  `json:"status"`
	OverflowCall    int     `json:"overflow_call"`
	FirstActivation int     `json:"first_activation"`
	TokenRatio      float64 `json:"token_ratio"`
	PeakTokens      int64   `json:"peak_tokens"`
	Reinvocations   int     `json:"reinvocations"`
	PlaceholdersMax int     `json:"placeholders_max"`
	CharsRemoved    float64 `json:"chars_removed_share"`
}

type outputJSON struct {
	Seq       int64  `json:"seq"`
	Call      int64  `json:"call"`
	Tool      string `json:"tool"`
	Key       string `json:"key"`
	Target    string `json:"target"`
	EstTokens int64  `json:"est_tokens"`
	Chars     int64  `json:"chars"`
	Preview   string `json:"preview"`
	// Actions per policy: "" untouched, else the mode's first letter
	// (p placeholder, t truncated, d dropped, s summarized) and the call.
	Actions []string `json:"actions"`
}

// PreviewChars is the most characters of a tool output the page shows.
const PreviewChars = 240

func runsOf(d *Data) runsJSON {
	out := runsJSON{Policies: make([]string, len(d.Policies)), Runs: make([]runJSON, len(d.Sample)), Recommended: map[string]string{}, AllRuns: len(d.Runs)}
	for _, r := range d.Recommendations {
		out.Recommended[r.Family] = r.Short
	}
	if i := DefaultRun(d); i >= 0 {
		out.Default = RunKey(i)
	}
	for i, p := range d.Policies {
		out.Policies[i] = p.Short
	}
	for i := range d.Sample {
		r := &d.Sample[i]
		j := runJSON{Key: RunKey(i), RunID: r.RunID, Model: r.Model, Family: r.Family, Harness: r.Harness, Format: r.Format, Window: r.Window,
			WindowSource: r.WindowSource, PeakTokens: r.PeakTokens, PeakShare: round4(r.PeakShare), EndReason: r.EndReason, EndSource: r.EndSource,
			EndWhy: r.EndWhy, Why: r.Why, Calls: make([][4]int64, len(r.Calls)), Policies: make([]runPolicyRow, len(r.Policies)), Outputs: make([]outputJSON, len(r.Outputs))}
		for k, c := range r.Calls {
			j.Calls[k] = [4]int64{c.Index, c.Prompt, b01(c.Estimated), b01(c.Compaction)}
		}
		for k, p := range r.Policies {
			j.Policies[k] = runPolicyRow{Policy: p.Policy, Status: p.Status, OverflowCall: p.OverflowCall, FirstActivation: p.FirstActivation,
				TokenRatio: round4(p.TokenRatio), PeakTokens: p.PeakTokens, Reinvocations: p.Reinvocations, PlaceholdersMax: p.PlaceholdersMax, CharsRemoved: round4(p.CharsRemoved)}
		}
		for k, o := range r.Outputs {
			acts := make([]string, len(o.Actions))
			for a, x := range o.Actions {
				if x.Mode != "" {
					acts[a] = fmt.Sprintf("%c%d", x.Mode[0], x.Call)
				}
			}
			j.Outputs[k] = outputJSON{Seq: o.Seq, Call: o.Call, Tool: o.Tool, Key: o.Key, Target: snippet(o.Target, 160), EstTokens: o.EstTokens,
				Chars: o.Chars, Preview: snippet(o.Preview, PreviewChars), Actions: acts}
		}
		out.Runs[i] = j
	}
	return out
}

func b01(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Write renders d as one self-contained HTML page to w: ECharts, the
// script, the style and every figure are inline, and the page requests
// nothing (no CDN, fonts or images). Log text reaches the page only through
// html/template's contextual escaping: as HTML text, or as JSON in
// <script type="application/json"> blocks (with <, > and & escaped) that
// the page's script reads and shows with textContent.
func Write(w io.Writer, d *Data, o *Options) error {
	if o == nil {
		o = &Options{}
	}
	charts := Charts(d)
	if o.charts != nil {
		charts = o.charts(charts)
	}
	all, _, err := encodeRuns(d)
	if err != nil {
		return err
	}
	v := view{D: d, Head: headlineOf(d), Charts: charts, Process: processViewOf(d.ProcessMap), VariantKey: activityColours(d.Variants), Groups: policyGroups(d), RunsJSON: runsOf(d), Library: template.JS(libraryJS),
		Script: template.JS(pageJS), Style: template.CSS(reportCSS + conversationCSS), Version: EChartsVersion, DefaultRun: DefaultRun(d), DefaultRunText: defaultRunText(d)}
	if o.noLibrary {
		v.Library = "/* echarts.min.js " + EChartsVersion + " */"
	}
	v.RunsJSON.All = all
	if v.RunsJSON.Conversations, err = encodeConversations(d.Conversations, d.Runs); err != nil {
		return err
	}
	v.RunsJSON.ConversationNote = d.ConversationNote
	if d.Live != nil {
		v.RunsJSON.Live = &liveJSON{Generation: d.Live.Generation, Poll: d.Live.Poll, Handles: d.Live.Handles}
	}
	v.Terms = glossary.Terms
	if o.terms != nil {
		v.Terms = o.terms
	}
	v.LibraryHash, v.ScriptHash = cspHash(string(v.Library)), cspHash(pageJS)
	for _, c := range charts {
		if c.Empty != "" {
			continue // not drawn: the page says why
		}
		cj := chartJSON{ID: c.ID, Option: c.Option}
		for _, x := range c.Variants {
			cj.Variants = append(cj.Variants, variantJSON(x))
		}
		v.ChartsJSON = append(v.ChartsJSON, cj)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := page.Execute(bw, v); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// headline is the first screen's figures beside the Verdict's and the
// Decision: the median peak share over every run with a known window
// (diagnose's median, over all runs instead of per family) and the runs at
// ≥ 80 % (Σ of Groups).
type headline struct {
	MedianPeak  float64
	KnownWindow int
	PeakGE80    int
}

func headlineOf(d *Data) headline {
	var h headline
	ps := slices.Clone(d.Peaks)
	slices.Sort(ps)
	if n := len(ps); n > 0 {
		h.MedianPeak = ps[n/2]
		if n%2 == 0 {
			h.MedianPeak = (ps[n/2-1] + ps[n/2]) / 2
		}
	}
	h.KnownWindow = len(ps)
	for _, g := range d.Groups {
		h.PeakGE80 += g.RunsPeakGE80
	}
	return h
}

// cspHash is the Content-Security-Policy source of an inline script.
func cspHash(script string) string {
	h := sha256.Sum256([]byte(script))
	return "sha256-" + base64.StdEncoding.EncodeToString(h[:])
}
