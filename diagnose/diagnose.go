package diagnose

import "github.com/trajmine/trajmine/schema"

// RunResult is one run's diagnosis.
type RunResult struct {
	RunID        string       `json:"run_id"`
	SourceFormat string       `json:"source_format"`
	Harness      string       `json:"harness"`
	Model        string       `json:"model"`
	ModelFamily  string       `json:"model_family"`
	WindowSource string       `json:"window_source"`
	Occupancy    RunOccupancy `json:"occupancy"`
	End          End          `json:"end"`
	// WhatIf is the window what-if at a --window below the run's own
	// (WindowWhatIf); nil otherwise.
	WhatIf *WindowDeath `json:"window_what_if,omitempty"`
}

// Run is RunWith with default options (FallbackClassify, stalls computed).
func Run(run schema.Run, events []schema.Event, usage []schema.Usage, ops []schema.ContextOp, override int64) RunResult {
	return RunWith(run, events, usage, ops, override, nil)
}

// RunWith diagnoses one run: its window (override > 0 wins, see Window),
// the occupancy of its calls, its end reason (EndReasonWith with o; at an
// override below the run's known own window, inferred against its own) and,
// when override is below the run's own window, where it would have died
// there (WindowWhatIf).
func RunWith(run schema.Run, events []schema.Event, usage []schema.Usage, ops []schema.ContextOp, override int64, o *EndOptions) RunResult {
	w, src := Window(run, override)
	occ := Occupancy(run, events, usage, ops, w)
	// how the run ended is a fact of the window it ran at: at an override
	// below its known own window (the window what-if) the end is inferred
	// against its own, so that a run is not said to have ended on window
	// length because its last prompt fills a window it never had
	endOcc := occ
	if own, _ := Window(run, 0); override > 0 && own > override {
		endOcc = occ.at(own)
	}
	return RunResult{
		RunID:        run.RunID,
		SourceFormat: run.SourceFormat,
		Harness:      run.Harness,
		Model:        run.Model,
		ModelFamily:  run.ModelFamily,
		WindowSource: src,
		Occupancy:    occ,
		End:          EndReasonWith(run, events, endOcc, o),
		WhatIf:       WindowWhatIf(run, usage, occ, override),
	}
}
