package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/compare"
	"github.com/trajmine/trajmine/dashboards"
	"github.com/trajmine/trajmine/internal/store"
)

// reportCompare is trajmine report's comparison of groups of the runs
// reported on (--compare-by, --compare-group): trajmine compare's, in its
// own section of the page.
type reportCompare struct {
	By       string
	Groups   []string
	grouping compare.Grouping
}

// flags registers --compare-by and --compare-group on c.
func (rc *reportCompare) flags(c *cobra.Command) {
	c.Flags().StringVar(&rc.By, "compare-by", "", "also compare groups of the runs on the page, as trajmine compare --by: model, harness, manage-context or tag:KEY")
	c.Flags().StringArrayVar(&rc.Groups, "compare-group", nil, "also compare these groups on the page, as trajmine compare --group NAME=FILTER (repeat)")
}

// parse checks the flags (usage errors) and makes the grouping.
func (rc *reportCompare) parse() error {
	switch {
	case rc.By != "" && len(rc.Groups) > 0:
		return flagErrorf("--compare-by and --compare-group: give one")
	case rc.By != "":
		if err := compare.ParseBy(rc.By); err != nil {
			return flagErrorf("--compare-by: %v", err)
		}
		rc.grouping = compare.Grouping{By: rc.By}
	case len(rc.Groups) == 1:
		return flagErrorf("--compare-group: give two groups or more")
	case len(rc.Groups) > 1:
		for _, s := range rc.Groups {
			g, err := compare.ParseGroup(s)
			if err != nil {
				return flagErrorf("--compare-group: %v", err)
			}
			rc.grouping.Groups = append(rc.grouping.Groups, g)
		}
	}
	return nil
}

// section compares the runs so (the report's scope) select, as trajmine
// compare does with its defaults, and returns the comparison (report
// --json's "comparison", as trajmine compare --json prints it) and the
// page's section; nil, nil when no comparison was asked for.
func (rc *reportCompare) section(ctx context.Context, st *store.Store, so store.ScanOptions) (*compare.Result, *dashboards.Compare, error) {
	if rc.By == "" && len(rc.grouping.Groups) == 0 {
		return nil, nil, nil
	}
	res, err := analysis.CompareStore(ctx, st, &analysis.CompareOptions{Grouping: rc.grouping, RunIDs: so.RunIDs})
	if err != nil {
		return nil, nil, fmt.Errorf("compare (--compare-by, --compare-group): %w", err)
	}
	return res, analysis.ComparePage(res), nil
}
