package cmd

import (
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReportRecommendsAsRecommend: the report's recommendation is trajmine
// recommend's with the same --window and no other flag: the same
// analysis options (recommend's named defaults, not a copy of them), so a
// changed default changes both.
func TestReportRecommendsAsRecommend(t *testing.T) {
	for _, args := range [][]string{nil, {"--window", "32k"}, {"--window", "own"}} {
		var ro *ReportOptions
		rc := NewReportCmd(testDeps(t, nil), func(o *ReportOptions) error { ro = o; return nil })
		rc.SetArgs(args)
		rc.SetOut(io.Discard)
		if err := rc.Execute(); err != nil {
			t.Fatal(err)
		}
		var co *RecommendOptions
		cc := NewRecommendCmd(testDeps(t, nil), func(o *RecommendOptions) error { co = o; return nil })
		cc.SetArgs(args)
		cc.SetOut(io.Discard)
		if err := cc.Execute(); err != nil {
			t.Fatal(err)
		}
		ao, err := ro.analysis(0)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(co.analysis(), ao.RecommendOptions()); diff != "" {
			t.Errorf("%v: report's recommend options differ from trajmine recommend's (-recommend +report):\n%s", args, diff)
		}
	}
}
