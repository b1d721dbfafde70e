package tracer_test

import (
	"context"
	"fmt"

	"github.com/trajmine/trajmine/tracer"
)

// Train on planted traces, hold a fifth out per family, and evaluate.
func Example() {
	train, held := tracer.Split(tracer.PlantedTraces(40, 1), 0.2, 1)
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
	for _, r := range rep.Rows {
		if r.Policy != rep.Logged { // dtoc until the catalog has as-logged
			fmt.Println(r.Policy)
		}
	}
	// Output:
	// 32 training runs, 8 held out; 2 epochs; trajmine-tracer/1
	// keep-all
	// tracer-uniform(trigger=0.5,keep=1)
	// tracer-recency(trigger=0.5,keep=1)
	// tracer-proportional(trigger=0.5,keep=1)
	// tracer-tooltype(trigger=0.5,keep=1)
	// tracer(model)
}
