package actions_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/actions"
	"github.com/trajmine/trajmine/internal/testutil"
)

// TestDefaultVersion pins what the default classifier answers for every
// call of defaultCases to actions.DefaultVersion: ingest stores each tool
// call's class with the classifier's fingerprint, and readers trust a
// stored class only while the fingerprint is the same, so a change of any
// answer must bump the version (a change of the rules changes the
// fingerprint by itself). testdata/default-classes.golden holds the
// version and the answers; -update rewrites it, but only for a new
// version.
func TestDefaultVersion(t *testing.T) {
	c, err := actions.Default()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, tc := range defaultCases {
		got, _ := c.Classify(tc.harness, tc.tool, tc.args)
		fmt.Fprintf(&b, "%s\t%s\t%q\t%s\n", tc.harness, tc.tool, tc.args, got)
	}
	testutil.VersionGolden(t, filepath.Join("testdata", "default-classes.golden"), "actions.DefaultVersion", actions.DefaultVersion, b.String())
	if fp := actions.DefaultFingerprint(); !strings.HasPrefix(fp, fmt.Sprintf("v%d-", actions.DefaultVersion)) || len(fp) != len(fmt.Sprintf("v%d-", actions.DefaultVersion))+12 {
		t.Errorf("DefaultFingerprint() = %q, want v%d- and 12 hex digits", fp, actions.DefaultVersion)
	}
}
