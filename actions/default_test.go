package actions_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
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
	var b bytes.Buffer
	fmt.Fprintf(&b, "version %d\n", actions.DefaultVersion)
	for _, tc := range defaultCases {
		got, _ := c.Classify(tc.harness, tc.tool, tc.args)
		fmt.Fprintf(&b, "%s\t%s\t%q\t%s\n", tc.harness, tc.tool, tc.args, got)
	}
	path := filepath.Join("testdata", "default-classes.golden")
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	oldVersion := ""
	if sc := bufio.NewScanner(bytes.NewReader(old)); sc.Scan() {
		oldVersion = strings.TrimPrefix(sc.Text(), "version ")
	}
	sameVersion := oldVersion == fmt.Sprint(actions.DefaultVersion)
	switch {
	case bytes.Equal(old, b.Bytes()):
	case sameVersion:
		t.Errorf("the default classifier's answers changed but actions.DefaultVersion is still %s: bump it (stored classes of older imports must not be read back), then run with -update\n%s",
			oldVersion, diffLines(string(old), b.String()))
	case *testutil.Update:
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	default:
		t.Errorf("%s is for version %q, the classifier is version %d: run with -update", path, oldVersion, actions.DefaultVersion)
	}
	if fp := actions.DefaultFingerprint(); !strings.HasPrefix(fp, fmt.Sprintf("v%d-", actions.DefaultVersion)) || len(fp) != len(fmt.Sprintf("v%d-", actions.DefaultVersion))+12 {
		t.Errorf("DefaultFingerprint() = %q, want v%d- and 12 hex digits", fp, actions.DefaultVersion)
	}
}

// diffLines lists the lines of b not in a (+) and of a not in b (−).
func diffLines(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ia, ib := in(a), in(b)
	var out strings.Builder
	for _, l := range strings.Split(a, "\n") {
		if !ib[l] {
			out.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(b, "\n") {
		if !ia[l] {
			out.WriteString("+ " + l + "\n")
		}
	}
	return out.String()
}
