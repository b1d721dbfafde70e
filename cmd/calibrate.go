package cmd

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
)

// CalibrateOptions are the flags of trajmine calibrate.
type CalibrateOptions struct {
	JSON bool
	Out  io.Writer
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
			o.Out = c.OutOrStdout()
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
	tw := tabwriter.NewWriter(o.Out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "FORMAT\tMODEL FAMILY\tESTIMATOR\tCALLS\tFACTOR\tOFFSET\tMdAPE RAW\tMdAPE FITTED\t")
	for _, r := range rows {
		if !r.Fitted {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t-\t-\t%.1f%%\t-\t\n", r.SourceFormat, r.ModelFamily, r.Estimator, r.NCalls, 100*r.MdAPERaw)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.3f\t%s\t%.1f%%\t%.1f%%\t\n", r.SourceFormat, r.ModelFamily, r.Estimator, r.NCalls, r.Factor, thousands(int64(r.Offset+0.5)), 100*r.MdAPERaw, 100*r.MdAPEFitted)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "logged ≈ offset + factor × estimated prompt (the least-squares fit with the lowest MdAPE); \"-\": fewer than %d calls, no fit\n", minCalibrationCalls)
	return nil
}
