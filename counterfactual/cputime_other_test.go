//go:build !unix

package counterfactual_test

import "time"

// cpuTime is 0 where getrusage is missing: the cpu-ns/op metric then reads 0.
func cpuTime() time.Duration { return 0 }
