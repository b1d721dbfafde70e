package analysis

import (
	"context"

	"github.com/trajmine/trajmine/actions"
	"github.com/trajmine/trajmine/internal/store"
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

// DeriveClasses gives the runs an older version imported what ingest
// stores now (store.Reclassify with the default classifier): their tool
// calls' action classes under actions.DefaultFingerprint, and whether a
// system prompt names manage_context, so that trajmine mine reads neither
// their arguments nor their system prompts. It returns how many runs it
// classified; trajmine ingest calls it after an import into a database
// file, before the uses and profiles.
func DeriveClasses(ctx context.Context, st *store.Store) (int, error) {
	classify, err := DefaultClassify()
	if err != nil {
		return 0, err
	}
	return st.Reclassify(ctx, actions.DefaultFingerprint(), classify)
}
