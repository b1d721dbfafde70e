package cmd

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
)

// CalibrateOptions are the flags of trajmine calibrate.
type CalibrateOptions struct {
	Terminal
	JSON bool
	Now  func() time.Time
}

// NewCalibrateCmd builds `trajmine calibrate`.
func NewCalibrateCmd(d *Deps, runF func(*CalibrateOptions) error) *cobra.Command {
	o := &CalibrateOptions{Now: time.Now}
	c := &cobra.Command{
		Use:   "calibrate",
		Short: "Fit, per format and model family, how estimated prompts track logged input tokens",
		Long: `Fit, per source format, model family and estimator,
logged_input ≈ offset + factor × estimated_prompt over every model call with
logged usage. estimated_prompt is the sum of est_tokens of the events the call
saw (see trajmine show); calls after a compaction are left out. Candidates are
least squares on absolute and on relative error, each also through the origin,
and the median ratio; the one with the lowest MdAPE is kept (offset ≥ 0).
MdAPE is the median absolute percentage error |est − logged| / logged, before
(raw) and after the fit. The offset is what the log counts but the events do
not show, typically the system prompt and tool schemas. Fits need at least 5
calls; they are stored in the calibration table.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.setTerminal(c, d)
			if runF != nil {
				return runF(o)
			}
			return onStore(c.Context(), d, false, o, calibrateRun)
		},
	}
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	return c
}

// minCalibrationCalls is the fewest logged calls a family needs for a fit.
const minCalibrationCalls = 5

type calibrationFit struct {
	SourceFormat string  `json:"source_format"`
	ModelFamily  string  `json:"model_family"`
	Estimator    string  `json:"estimator"`
	NCalls       int64   `json:"n_calls"`
	Factor       float64 `json:"factor"`
	Offset       float64 `json:"offset_tokens"`
	MdAPERaw     float64 `json:"mdape_raw"`
	MdAPEFitted  float64 `json:"mdape_fitted"`
	Fitted       bool    `json:"fitted"`
}

func calibrateRun(ctx context.Context, st *store.Store, o *CalibrateOptions) error {
	pts, err := st.CalibrationPoints(ctx)
	if err != nil {
		return err
	}
	type key struct{ format, family, est string }
	var keys []key
	byKey := map[key][2][]float64{}
	for _, p := range pts {
		k := key{p.SourceFormat, p.ModelFamily, p.Estimator}
		v, ok := byKey[k]
		if !ok {
			keys = append(keys, k) // points come ordered by format, family, estimator
		}
		v[0] = append(v[0], float64(p.Estimated))
		v[1] = append(v[1], float64(p.Logged))
		byKey[k] = v
	}
	now := o.Now().UTC().Truncate(time.Second)
	var cs []store.Calibration
	var rows []calibrationFit
	for _, k := range keys {
		fit := ingest.FitCalibration(byKey[k][0], byKey[k][1])
		row := calibrationFit{k.format, k.family, k.est, int64(fit.N), fit.Factor, fit.Offset, fit.MdAPERaw, fit.MdAPEFitted, fit.N >= minCalibrationCalls}
		if !row.Fitted { // too few calls: shown with the raw error, no fit stored
			row.Factor, row.Offset, row.MdAPEFitted = 0, 0, fit.MdAPERaw
		} else {
			cs = append(cs, store.Calibration{SourceFormat: k.format, ModelFamily: k.family, Estimator: k.est, NCalls: int64(fit.N), Factor: fit.Factor, Offset: fit.Offset, MdAPERaw: fit.MdAPERaw, MdAPEFitted: fit.MdAPEFitted, FittedAt: now})
		}
		rows = append(rows, row)
	}
	if err := st.SaveCalibration(ctx, cs); err != nil {
		return err
	}
	if o.JSON {
		if rows == nil {
			rows = []calibrationFit{}
		}
		return writeJSON(o.Out, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(o.Out, "no model calls with logged usage to calibrate against")
		return nil
	}
	return writeCalibration(o.Out, rows, o.Width, o.Bold)
}

// writeCalibration is calibrate's table: one row per format, model family
// and estimator, the calls summed under a rule; an estimator every row
// shares is said once in the footer instead of in a column.
func writeCalibration(w io.Writer, rows []calibrationFit, width int, bold bool) error {
	t := &table{header: []string{"FORMAT", "MODEL FAMILY", "ESTIMATOR", "CALLS", "FACTOR", "OFFSET", "RAW", "FITTED"}, min: []int{8, 8, 6}}
	var calls int64
	unfitted, oneEstimator := false, true
	for _, r := range rows {
		calls += r.NCalls
		oneEstimator = oneEstimator && r.Estimator == rows[0].Estimator
		if !r.Fitted {
			unfitted = true
			t.add(r.SourceFormat, r.ModelFamily, r.Estimator, thousands(r.NCalls), "-", "-", pct(r.MdAPERaw), "-")
			continue
		}
		t.add(r.SourceFormat, r.ModelFamily, r.Estimator, thousands(r.NCalls), textfmt.Ratio(r.Factor), thousands(int64(r.Offset+0.5)),
			pct(r.MdAPERaw), pct(r.MdAPEFitted))
	}
	t.totals = []string{"total", "", "", thousands(calls)}
	t.footer = []string{"logged ≈ OFFSET + FACTOR × estimated prompt (the least-squares fit with the lowest MdAPE); " +
		"RAW and FITTED: MdAPE, the median |estimate − logged| / logged, before and after the fit."}
	if unfitted {
		t.footer = append(t.footer, fmt.Sprintf("\"-\": fewer than %d calls, no fit.", minCalibrationCalls))
	}
	if oneEstimator && len(rows) > 0 {
		t.dropColumn(2)
		t.footer = append(t.footer, "Estimator: "+rows[0].Estimator+" for every row.")
	}
	return t.write(w, width, bold)
}
