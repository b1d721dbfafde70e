package analysis

import (
	"github.com/trajmine/trajmine/actions"
)

// DefaultClassify returns the default action classifier (trajmine classes)
// as a function of (harness, tool, args) giving the class name. A
// Classifier is read-only once built, so the function may be called from
// several goroutines.
func DefaultClassify() (func(harness, tool, args string) string, error) {
	cl, err := actions.Default()
	if err != nil {
		return nil, err
	}
	return func(harness, tool, args string) string {
		c, _ := cl.Classify(harness, tool, args)
		return c.String()
	}, nil
}
