package cmd

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

// goldenWidth is the terminal width a golden under testdata was printed
// at: N for a name with "-N-columns" (the tests set $COLUMNS to N), the
// width listed in goldenWidths, else 0 (no terminal: natural widths).
func goldenWidth(name string) int {
	if w, ok := goldenWidths[name]; ok {
		return w
	}
	if m := columnsName.FindStringSubmatch(name); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

var columnsName = regexp.MustCompile(`-(\d+)-columns\.`)

// goldenWidths are the goldens printed at a width their name does not say.
var goldenWidths = map[string]int{
	"report.stdout": 100, // TestReportGolden: the default report at 100 columns
}

// TestGoldenWidths (issue 32.2): no line of a golden under testdata is
// wider than the terminal it was printed at (goldenWidth), and the
// widths the fitted tests print at are covered: at least one golden at
// 100 and one at 60 columns.
func TestGoldenWidths(t *testing.T) {
	seen := map[int]int{}
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		width := goldenWidth(d.Name())
		if width == 0 {
			return nil
		}
		seen[width]++
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			l := strings.ReplaceAll(strings.ReplaceAll(sc.Text(), "\x1b[1m", ""), "\x1b[0m", "")
			if w := runewidth.StringWidth(l); w > width {
				t.Errorf("%s:%d: %d columns wide at %d: %q", path, n, w, width, l)
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen[100] == 0 || seen[60] == 0 {
		t.Errorf("goldens per width %v: want some at 100 and at 60 columns", seen)
	}
}

// TestGoldenWidthOf: the width of a golden by its name.
func TestGoldenWidthOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		want int
	}{
		{"simulate-100-columns.stdout", 100},
		{"report-full-60-columns.stdout", 60},
		{"report.stdout", 100},
		{"simulate.stdout", 0},
		{"ingest.stderr", 0},
	} {
		if got := goldenWidth(tc.name); got != tc.want {
			t.Errorf("goldenWidth(%q) = %d, want %d", tc.name, got, tc.want)
		}
	}
}
