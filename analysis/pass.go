package analysis

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
)

// The shared pass: one store.Scan feeds every analysis a command runs
// (diagnose, simulate, recommend, behaviour profiles, mining), so that
// trajmine report reads the store — event text included — once, and what
// several analyses derive from a run (its diagnosed end, its replay trace,
// its counterfactual uses) is computed once per run.
//
// Runs go from the scan to GOMAXPROCS workers and their results come back
// to one goroutine in scan order, so every result is the same as a
// sequential loop's (and byte-identical from run to run).

// Consumer is one consumer of the shared pass whose workers compute a T
// per run and whose Add takes them: the hand-over is typed (as benchstat's
// "Builder.Add" takes a "*benchfmt.Result"), with no assertion on the way.
type Consumer[T any] interface {
	// Worker returns the function a worker goroutine calls for each run,
	// with any per-worker state it needs (policies keep per-run state).
	// The function must not keep w's record slices past its return unless
	// it returns them: the pass hands each run's records to one worker and
	// drops them after add.
	Worker() (func(w *RunWork) T, error)
	// Add takes the worker's results in scan order, on one goroutine.
	Add(v T) error
}

// Analysis is a Consumer of any result type, as Pass takes it (Of).
type Analysis struct {
	// start makes one worker's function: it computes a run's result and
	// returns the call that hands it to Add.
	start func() (func(w *RunWork) (add func() error), error)
}

// Of is c as Pass takes it; T follows from c's methods (Of(c)). Each
// run's result reaches c.Add as the worker returned it.
func Of[T any](c Consumer[T]) Analysis {
	return Analysis{start: func() (func(*RunWork) func() error, error) {
		f, err := c.Worker()
		if err != nil {
			return nil, err
		}
		return func(w *RunWork) func() error {
			v := f(w)
			return func() error { return c.Add(v) }
		}, nil
	}}
}

// Env is what every run's shared values need: the action classifier
// and the stored calibration factors.
type Env struct {
	classify func(harness, tool, args string) string
	factor   func(schema.Run) float64
}

// NewEnv loads the classifier and looks calibration factors up in st,
// once per format × family × estimator.
func NewEnv(ctx context.Context, st *store.Store) (*Env, error) {
	classify, err := DefaultClassify()
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	cal := map[[3]string]float64{}
	factor := func(r schema.Run) float64 {
		k := [3]string{r.SourceFormat, r.ModelFamily, r.Estimator}
		mu.Lock()
		defer mu.Unlock()
		if f, ok := cal[k]; ok {
			return f
		}
		f := 0.0
		if c, err := st.CalibrationFor(ctx, k[0], k[1], k[2]); err == nil && c != nil && c.Factor > 0 {
			f = c.Factor
		}
		cal[k] = f
		return f
	}
	return &Env{classify: classify, factor: factor}, nil
}

// RunWork is one run on a worker: its records (owned by the pass, not
// reused) and the values analyses share, each computed on first use.
type RunWork struct {
	store.RunData
	env *Env

	diag    *diagnose.RunResult // diagnose.Run at the run's own window
	uses    []counterfactual.Use
	usesOK  bool
	trace   *simulate.Trace
	stalls  *diagnose.RunStalls
	classes map[[3]string]string
}

// Stalls is diagnose.Stalls of the run's events.
func (w *RunWork) Stalls() *diagnose.RunStalls {
	if w.stalls == nil {
		s := diagnose.Stalls(w.Events)
		w.stalls = &s
	}
	return w.stalls
}

// Classify is env.classify remembered for the run: each analysis asks for
// the class of the same calls (a run's calls are classified once, not once
// per analysis).
func (w *RunWork) Classify(harness, tool, args string) string {
	k := [3]string{harness, tool, args}
	if c, ok := w.classes[k]; ok {
		return c
	}
	c := w.env.classify(harness, tool, args)
	if w.classes == nil {
		w.classes = map[[3]string]string{}
	}
	w.classes[k] = c
	return c
}

// Diagnosed is diagnose.Run of the run at its own window (no override).
func (w *RunWork) Diagnosed() *diagnose.RunResult {
	if w.diag == nil {
		r := diagnose.RunWith(w.Run, w.Events, w.Usage, w.Ops, 0, w.endOptions())
		w.diag = &r
	}
	return w.diag
}

// endOptions are diagnose's end-rule inputs: the remembered classifier and stalls.
func (w *RunWork) endOptions() *diagnose.EndOptions {
	return &diagnose.EndOptions{Classify: w.Classify, Stalls: w.Stalls()}
}

// Uses is counterfactual.Uses of the run's events.
func (w *RunWork) Uses() []counterfactual.Use {
	if !w.usesOK {
		w.usesOK = true
		w.uses = counterfactual.Uses(w.Events)
		if w.uses == nil {
			w.uses = []counterfactual.Use{}
		}
	}
	return w.uses
}

// Trace is the run's simulate.Trace as trajmine simulate replays it:
// its diagnosed end, the stored calibration factor, the action classifier.
func (w *RunWork) Trace() *simulate.Trace {
	if w.trace == nil {
		f := w.env.factor(w.Run)
		w.trace = simulate.NewTrace(w.Run, w.Events, w.Usage, w.Ops, w.Diagnosed().End,
			&simulate.TraceOptions{Factor: f, Classify: w.Classify, Uses: w.Uses(), Stalls: w.Stalls()})
	}
	return w.trace
}

// Calibrated reports whether the run's trace uses a stored factor.
func (w *RunWork) Calibrated() bool { return w.env.factor(w.Run) > 0 }

// passInflight is how many runs per worker the pass holds between the scan
// and add at most.
const passInflight = 16

// Pass scans the runs o selects once and feeds each to every analysis:
// the workers compute, then each analysis's add receives its results in
// scan order. The first error (scan, worker setup or add) stops the pass
// and is returned.
func Pass(ctx context.Context, st *store.Store, o store.ScanOptions, env *Env, as ...Analysis) error {
	type job struct {
		seq int
		d   store.RunData
	}
	type done struct {
		seq int
		add []func() error // each analysis's hand-over of the run's result
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	nw := max(runtime.GOMAXPROCS(0), 1)
	fns := make([][]func(*RunWork) func() error, nw)
	for i := range fns {
		for _, a := range as {
			f, err := a.start()
			if err != nil {
				return err
			}
			fns[i] = append(fns[i], f)
		}
	}
	jobs := make(chan job, 4*nw)
	dones := make(chan done, 4*nw)
	// runs read but not yet added: bounded, so that a slow run holds back
	// the scan instead of letting finished runs pile up behind it
	inflight := make(chan struct{}, passInflight*nw)
	scanErr := make(chan error, 1)
	go func() {
		seq := 0
		err := st.Scan(ctx, o, func(d *store.RunData) error {
			select {
			case inflight <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			// the slices are the run's own (Scan does not reuse them)
			j := job{seq: seq, d: *d}
			seq++
			select {
			case jobs <- j:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		close(jobs)
		scanErr <- err
	}()
	var wg sync.WaitGroup
	for i := range nw {
		wg.Add(1)
		go func(fs []func(*RunWork) func() error) {
			defer wg.Done()
			for j := range jobs {
				w := &RunWork{RunData: j.d, env: env}
				add := make([]func() error, len(fs))
				for k, f := range fs {
					add[k] = f(w)
				}
				select {
				case dones <- done{seq: j.seq, add: add}:
				case <-ctx.Done():
					return
				}
			}
		}(fns[i])
	}
	go func() { wg.Wait(); close(dones) }()

	pending := map[int][]func() error{}
	next := 0
	var addErr error
	for dn := range dones {
		if addErr != nil {
			continue // drain
		}
		pending[dn.seq] = dn.add
		for {
			add, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-inflight
			for _, f := range add {
				if err := f(); err != nil {
					addErr = err
					cancel()
					break
				}
			}
			if addErr != nil {
				break
			}
		}
	}
	if addErr != nil {
		<-scanErr
		return addErr
	}
	if err := <-scanErr; err != nil {
		return err
	}
	if len(pending) > 0 {
		return fmt.Errorf("pass: %d results never handed over", len(pending))
	}
	return ctx.Err()
}
