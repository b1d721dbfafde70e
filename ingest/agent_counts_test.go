package ingest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

// The hand counts of testdata/agents/<folder>/counts.json (made from the
// files, not by trajmine: each folder's SOURCE.md gives the counting rule
// and the jq that reproduces them), read by the tests of the importers
// added for issue 30 points 9 and 10.

// agentRun is one run of a counts.json file (nil: not counted).
type agentRun struct {
	ModelCalls        *int64      `json:"model_calls"`
	AssistantMessages *int64      `json:"assistant_messages_in_api_history"`
	ToolCalls         *int64      `json:"tool_calls"`
	ToolResults       *int64      `json:"tool_results"`
	ToolResultsLinked *int64      `json:"tool_results_linked_by_id"`
	Requests          *int64      `json:"requests"`
	Model             string      `json:"model"`
	Usage             *agentUsage `json:"usage"`
}

// agentUsage is a run's logged usage as counts.json gives it: the sums of
// the log's own fields (nil: the log has none).
type agentUsage struct {
	Input      *int64   `json:"input"`
	Output     *int64   `json:"output"`
	CacheRead  *int64   `json:"cache_read"`
	CacheWrite *int64   `json:"cache_write"`
	Cost       *float64 `json:"cost_usd"`
}

// agentFile is one file (or task folder) of a counts.json.
type agentFile struct {
	Requests *int64     `json:"requests"`
	Runs     []agentRun `json:"runs"`
}

// agentCounts reads testdata/agents/<folder>/counts.json.
func agentCounts(t *testing.T, folder string) map[string]agentFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "agents", folder, "counts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Files map[string]agentFile `json:"files"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return c.Files
}

// cnt is a count of counts.json, 0 when it is not given.
func cnt(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// eventCounts counts a sink's tool calls, its tool results, and the
// results linked to a call of their run by id.
func eventCounts(m *ingest.MemSink) (calls, results, linked int64) {
	ids := map[string]bool{}
	for _, e := range m.Events {
		if e.Kind == schema.KindToolCall {
			calls++
			ids[e.RunID+"\x00"+e.CallID] = e.CallID != ""
		}
	}
	for _, e := range m.Events {
		if e.Kind == schema.KindToolResult {
			results++
			if ids[e.RunID+"\x00"+e.CallID] {
				linked++
			}
		}
	}
	return calls, results, linked
}

// costString renders a run's cost as pkRun does ("" for none).
func costString(c *float64) string {
	if c == nil {
		return ""
	}
	return strconv.FormatFloat(*c, 'f', -1, 64)
}
