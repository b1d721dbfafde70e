package ingest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// TestCorpusGolden imports every file of the shared corpus with the format
// auto-detection picks and compares a summary per file (runs, turns, events
// by kind, tool calls and outputs, context ops by kind, usage totals, end
// reason, rejects) with testdata/corpus/<folder>/<file>.golden. Regenerate
// with go test ./ingest -run TestCorpusGolden -update.
func TestCorpusGolden(t *testing.T) {
	root := testutil.CorpusDir(t)
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "licenses" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, d.Name(), "*"))
		for _, f := range files {
			rel := d.Name() + "/" + filepath.Base(f)
			t.Run(rel, func(t *testing.T) {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				testutil.Golden(t, corpusSummary(t, f, data), filepath.Join("testdata", "corpus", d.Name(), filepath.Base(f)+".golden"))
			})
		}
	}
}

func corpusSummary(t *testing.T, path string, data []byte) string {
	t.Helper()
	var b strings.Builder
	im, err := ingest.DetectFormat(path, data[:min(len(data), ingest.HeadSize)])
	if err != nil {
		fmt.Fprintf(&b, "format: none (%v)\n", strings.TrimPrefix(err.Error(), path+": "))
		return b.String()
	}
	fmt.Fprintf(&b, "format: %s\n", im.Name())
	m, err := ingest.Parse(context.Background(), im.Name(), path, data, nil) // the real path: some importers read sibling files
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
		return b.String()
	}
	fmt.Fprintf(&b, "runs: %d\n", len(m.Runs))
	for _, r := range m.Rejects {
		fmt.Fprintf(&b, "reject: line %d: %s\n", r.Line, r.Reason)
	}
	byRun := map[string]*runSummary{}
	for _, r := range m.Runs {
		byRun[r.RunID] = &runSummary{run: r, kinds: map[schema.EventKind]int{}, ops: map[schema.OpKind]int{}}
	}
	for _, e := range m.Events {
		if s := byRun[e.RunID]; s != nil {
			s.kinds[e.Kind]++
			if e.IsToolDefinitions() {
				s.toolDefs++
				s.toolDefTokens += e.EstTokens
			}
		}
	}
	for _, o := range m.ToolOutputs {
		if s := byRun[o.RunID]; s != nil {
			s.outputs++
		}
	}
	for _, u := range m.Usage {
		if s := byRun[u.RunID]; s != nil {
			s.usage++
		}
	}
	for _, c := range m.ContextOps {
		if s := byRun[c.RunID]; s != nil {
			s.ops[c.Op]++
		}
	}
	ids := make([]string, 0, len(byRun))
	for id := range byRun {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		s := byRun[id]
		r := s.run
		fmt.Fprintf(&b, "\nrun %s\n", id)
		if r.ParentRunID != "" {
			fmt.Fprintf(&b, "  parent: %s\n", r.ParentRunID)
		}
		fmt.Fprintf(&b, "  harness: %s  model: %s (%s)\n", r.Harness, r.Model, r.ModelFamily)
		fmt.Fprintf(&b, "  turns: %d  events: %s\n", r.NTurns, countsString(s.kinds))
		fmt.Fprintf(&b, "  tool calls: %d  tool outputs: %d\n", s.kinds[schema.KindToolCall], s.outputs)
		if s.toolDefs > 0 {
			fmt.Fprintf(&b, "  tool definitions: %d event(s), %d est tokens\n", s.toolDefs, s.toolDefTokens)
		}
		fmt.Fprintf(&b, "  context ops: %s\n", countsString(s.ops))
		fmt.Fprintf(&b, "  usage rows: %d  input %d  output %d  cache read %d  cache write %d  estimated %v\n",
			s.usage, r.InputTokens, r.OutputTokens, r.CacheReadTokens, r.CacheWriteTokens, r.UsageEstimated)
		fmt.Fprintf(&b, "  end: %s (%s) %s\n", r.EndReason, r.EndReasonSource, oneLine(r.EndReasonDetail, 80))
		if r.Resolved != nil {
			fmt.Fprintf(&b, "  resolved: %v\n", *r.Resolved)
		}
		if r.WindowTokens != nil {
			fmt.Fprintf(&b, "  window: %d\n", *r.WindowTokens)
		}
	}
	return b.String()
}

type runSummary struct {
	run            schema.Run
	kinds          map[schema.EventKind]int
	ops            map[schema.OpKind]int
	outputs, usage int
	toolDefs       int   // system events with role tools
	toolDefTokens  int64 // their est_tokens
}

func countsString[K ~string](m map[K]int) string {
	if len(m) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[K(k)])
	}
	return strings.Join(parts, ", ")
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
