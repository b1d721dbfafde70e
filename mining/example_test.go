package mining_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/trajmine/trajmine/mining"
)

func ExampleNewDFG() {
	l := mining.NewLog([]string{"read", "edit", "test"}, []string{"read", "test"})
	mining.NewDFG(l).WriteText(os.Stdout)
	// Output:
	// dfg: 2 cases, 5 events, 3 activities, 5 edges
	// node edit count=1 cases=1 tokens=0
	// node read count=2 cases=2 tokens=0
	// node test count=2 cases=2 tokens=0
	// edge ▶ -> read count=2 cases=2 timed=0 mean=- median=- tokens=0 mean_tokens=0.0
	// edge edit -> test count=1 cases=1 timed=0 mean=- median=- tokens=0 mean_tokens=0.0
	// edge read -> edit count=1 cases=1 timed=0 mean=- median=- tokens=0 mean_tokens=0.0
	// edge read -> test count=1 cases=1 timed=0 mean=- median=- tokens=0 mean_tokens=0.0
	// edge test -> ■ count=2 cases=2 timed=0 mean=- median=- tokens=0 mean_tokens=0.0
}

func ExampleConform() {
	l := mining.NewLog([]string{"read", "edit", "test"}, []string{"read", "submit"})
	m, err := mining.ParseModel("model.txt", strings.NewReader("start read\nread -> edit -> test\nend test\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range mining.Conform(l, m).Cases {
		fmt.Printf("%s %.3f %v\n", c.Case, c.Fitness, c.Deviations)
	}
	// c2: submit is not in the model (a missing token; the token in read
	// stays), nor is anything before ■ marked (a second missing token; the
	// one in submit stays): p = c = 4, m = r = 2, fitness 1 − ½·2/4 − ½·2/4.

	// Output:
	// c1 1.000 []
	// c2 0.500 [{2 read submit} {3 submit ■}]
}

func ExampleNewHeuristics() {
	var traces [][]string
	for range 9 {
		traces = append(traces, []string{"read", "edit", "test"})
	}
	traces = append(traces, []string{"read", "test"})
	h := mining.NewHeuristics(mining.NewLog(traces...), nil)
	// read ⇒ test = 1/2: neither above the threshold nor the best of read
	// or test, so it is not an arc.
	for _, a := range h.Arcs {
		fmt.Printf("%s -> %s %.3f %v\n", a.From, a.To, a.Dependency, a.Reasons)
	}
	// Output:
	// ▶ -> read 0.909 [best-cause best-follower threshold]
	// edit -> test 0.900 [best-cause best-follower threshold]
	// read -> edit 0.900 [best-cause best-follower threshold]
	// test -> ■ 0.909 [best-cause best-follower threshold]
}
