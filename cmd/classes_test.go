package cmd

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/actions"
	"github.com/trajmine/trajmine/internal/testutil"
)

func TestClassesFlagParsing(t *testing.T) {
	var got *ClassesOptions
	c := NewClassesCmd(testDeps(t, nil), func(o *ClassesOptions) error { got = o; return nil })
	c.SetArgs([]string{"--rules", "my.yaml", "--json"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	want := &ClassesOptions{Rules: "my.yaml", JSON: true}
	if diff := cmp.Diff(want, got, cmpIgnoreWriters); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
}

// TestClassesGolden runs trajmine classes without a database, then on the
// fixture database with and without a user rules file, and compares stdout
// and stderr with testdata/classes*.stdout|.stderr.
func TestClassesGolden(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "classes.duckdb")
	steps := []struct {
		name   string
		args   []string
		code   int
		ingest bool // import the fixtures before this step
	}{
		{"classes-nodb", []string{"classes"}, 0, false},
		{"classes", []string{"classes"}, 0, true},
		{"classes-json", []string{"classes", "--json"}, 0, false},
		{"classes-rules", []string{"classes", "--rules", "testdata/classes-rules.yaml"}, 0, false},
		{"classes-bad-rules", []string{"classes", "--rules", "testdata/classes-bad-rules.yaml"}, 1, false},
		{"classes-missing-rules", []string{"classes", "--rules", "testdata/nope.yaml"}, 1, false},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			if s.ingest {
				if _, stderr, code := run(t, d, "ingest", "--workers", "1", fixtureDir, filepath.Join("testdata", "classes")); code != 0 {
					t.Fatalf("ingest: exit %d: %s", code, stderr)
				}
			}
			stdout, stderr, code := run(t, d, s.args...)
			if code != s.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, s.code, stderr)
			}
			stderr = strings.ReplaceAll(stderr, d.DB, "DB")
			testutil.Golden(t, stdout, filepath.Join("testdata", s.name+".stdout"))
			testutil.Golden(t, stderr, filepath.Join("testdata", s.name+".stderr"))
		})
	}
}

// TestClassesDocumentedRules checks that the rules file shown in the help
// text is one LoadRules accepts.
func TestClassesDocumentedRules(t *testing.T) {
	long := NewClassesCmd(testDeps(t, nil), nil).Long
	_, sample, ok := strings.Cut(long, "a list of rules:\n")
	if !ok {
		t.Fatal("help text shows no rules file")
	}
	var lines []string
	for _, l := range strings.Split(sample, "\n") {
		lines = append(lines, strings.TrimPrefix(l, "  "))
	}
	rules, err := actions.LoadRules(strings.NewReader(strings.Join(lines, "\n")), "help")
	if err != nil || len(rules) != 3 {
		t.Errorf("documented rules: %d rules, %v; want 3", len(rules), err)
	}
}

func TestClassesUsage(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "x.duckdb")
	_, stderr, code := run(t, d, "classes", "extra")
	if code != exitUsage || !strings.HasPrefix(stderr, "trajmine: ") || !strings.Contains(stderr, "extra") {
		t.Errorf("exit %d, stderr %q; want a usage error", code, stderr)
	}
}

func TestClassesJSONShares(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "classes.duckdb")
	if _, stderr, code := run(t, d, "ingest", filepath.Join("testdata", "classes")); code != 0 {
		t.Fatal(stderr)
	}
	stdout, stderr, code := run(t, d, "classes", "--json", "--rules", "testdata/classes-rules.yaml")
	if code != 0 {
		t.Fatal(stderr)
	}
	var got classesResult
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("classes --json is not JSON: %v\n%s", err, stdout)
	}
	c := got.Calls
	if c == nil || c.Total != 13 {
		t.Fatalf("calls = %+v, want 13 tool calls", c)
	}
	var sum, byRule, byHarness int64
	var shares float64
	for _, s := range c.Classes {
		sum += s.Calls
		shares += s.Share
	}
	for _, r := range got.Rules {
		byRule += *r.Calls
	}
	for _, h := range c.Harnesses {
		byHarness += h.Calls
	}
	if sum != c.Total || byHarness != c.Total || byRule+c.Other != c.Total || math.Abs(shares-1) > 1e-9 {
		t.Errorf("per class %d, per harness %d, per rule %d + other %d, shares %.3f; want %d calls and shares summing to 1", sum, byHarness, byRule, c.Other, shares, c.Total)
	}
	if got.Rules[0].Source != "testdata/classes-rules.yaml" || got.Rules[0].Line != 2 || *got.Rules[0].Calls != 2 {
		t.Errorf("first rule = %+v, want the user's deploy_* rule deciding 2 calls", got.Rules[0])
	}
	if c.Other != 2 || len(c.Unclassified) != 2 {
		t.Errorf("other = %d, top unclassified %+v; want AskUserQuestion and notify_oncall", c.Other, c.Unclassified)
	}
}
