package tracer_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/trajmine/trajmine/tracer"
)

// Train on planted traces, hold out every 4th run by hash (recommend's
// split), and evaluate.
func Example() {
	train, held := tracer.Split(tracer.PlantedTraces(40, 1), 4)
	m, err := tracer.Train(context.Background(), train, &tracer.Options{Seed: 1, Epochs: 2, Hidden: 8}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := tracer.Evaluate(held, m, &tracer.EvalOptions{Seed: 1, Attribution: -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(train), "training runs,", rep.Runs, "held out;", len(m.Training.Curves), "epochs;", m.Format)
	fmt.Println("tuned uniform ratio:", m.Training.Uniform.R)
	for _, r := range rep.Rows {
		if r.Policy != rep.Logged { // dtoc until the catalog has as-logged
			fmt.Println(strings.TrimSpace(r.Policy + " " + r.Label))
		}
	}
	// Output:
	// 30 training runs, 10 held out; 2 epochs; trajmine-tracer/2
	// tuned uniform ratio: 1
	// keep-all
	// tracer-uniform(r=0.5,trigger=0.5,keep=1) r = 0.5
	// tracer-uniform(r=1,trigger=0.5,keep=1) tuned
	// tracer-recency(trigger=0.5,keep=1)
	// tracer-proportional(trigger=0.5,keep=1)
	// tracer-tooltype(trigger=0.5,keep=1)
	// tracer(model)
}
