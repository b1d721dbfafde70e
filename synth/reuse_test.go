package synth_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/synth"
)

// TestPlantReuse checks the planted tools: both appear, later calls
// mention columns that only a schema_lookup output contains, and no
// evt_ id of a log_dump output appears twice.
func TestPlantReuse(t *testing.T) {
	dir := t.TempDir()
	if _, err := synth.Write(dir, &synth.Options{N: 6, Seed: 3, Formats: []string{synth.FormatOpenAIMessages}, PlantReuse: true}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "openai", "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{`"name":"` + synth.ReusedTool + `"`, `"name":"` + synth.NeverReusedTool + `"`, "The query needs col_"} {
		if !strings.Contains(text, want) {
			t.Errorf("corpus lacks %q", want)
		}
	}
	mentions := regexp.MustCompile(`The query needs (col_[0-9a-f]{6}) and (col_[0-9a-f]{6})`).FindAllStringSubmatch(text, -1)
	if len(mentions) == 0 {
		t.Fatal("no mentions")
	}
	for _, m := range mentions {
		for _, c := range m[1:] {
			if n := strings.Count(text, c); n < 2 {
				t.Errorf("%s occurs %d times: want its schema_lookup output and the mention", c, n)
			}
		}
	}
	seen := map[string]int{}
	for _, id := range regexp.MustCompile(`evt_[0-9a-f]{8}`).FindAllString(text, -1) {
		seen[id]++
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("%s occurs %d times: log_dump ids are never mentioned again", id, n)
		}
	}
	// without the option the corpus is the same as before (no planted tools)
	plain := t.TempDir()
	if _, err := synth.Write(plain, &synth.Options{N: 6, Seed: 3, Formats: []string{synth.FormatOpenAIMessages}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(plain, "openai", "runs.jsonl")); strings.Contains(string(b), synth.ReusedTool) {
		t.Error("a corpus without PlantReuse has schema_lookup calls")
	}
}
