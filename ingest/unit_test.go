package ingest_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/trajmine/trajmine/ingest"
)

func TestTarget(t *testing.T) {
	tests := []struct {
		tool, args, want string
	}{
		{"Read", `{"file_path":"/repo/./pkg/../pkg/a.go"}`, "/repo/pkg/a.go"},
		{"read_file", `{"path":"src\\main.py"}`, "src/main.py"},
		{"Grep", `{"pattern":"func  Parse","path":"/repo/"}`, "func Parse @ /repo"},
		{"search", `{"query":"context window"}`, "context window"},
		{"Bash", `{"command":"  go   test ./...  "}`, "go test ./..."},
		{"shell", `{"command":["bash","-lc","sed -n 1,200p x.py"]}`, "sed -n 1,200p x.py"},
		{"shell", `{"command":["ls","-la"]}`, "ls -la"},
		{"exec_command", `{"cmd":"bash -lc 'npm test'"}`, "npm test"},
		{"WebFetch", `{"url":"HTTPS://Example.COM/docs/#top"}`, "https://example.com/docs"},
		{"update_plan", `{"plan":[]}`, ""},
		{"x", `not json`, ""},
		{"x", `[1,2]`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			if got := ingest.Target(tc.tool, []byte(tc.args)); got != tc.want {
				t.Errorf("Target = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCanonicalJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b": 1, "a": {"d": [1, 2.50, "x"], "c": null}}`, `{"a":{"c":null,"d":[1,2.50,"x"]},"b":1}`},
		{`  "<tag>&"  `, `"<tag>&"`},
		{`{broken`, `"{broken"`},
		{``, ``},
	}
	for _, tc := range tests {
		if got := ingest.CanonicalJSON([]byte(tc.in)); got != tc.want {
			t.Errorf("CanonicalJSON(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestModelFamily(t *testing.T) {
	tests := map[string]string{
		"claude-sonnet-4-5-20250929":                   "claude-sonnet-4",
		"claude-opus-4-6":                              "claude-opus-4",
		"claude-3-5-sonnet-20241022":                   "claude-3.5-sonnet",
		"claude-3-sonnet-20240229":                     "claude-3-sonnet",
		"anthropic/claude-haiku-4-5":                   "claude-haiku-4",
		"litellm_proxy/claude-sonnet-4-20250514":       "claude-sonnet-4",
		"gpt-5-codex":                                  "gpt-5",
		"gpt-5.2-codex":                                "gpt-5.2",
		"gpt-4o-2024-08-06":                            "gpt-4o",
		"gpt-4.1-mini":                                 "gpt-4.1-mini",
		"gpt-4.5-turbo":                                "gpt-4.5",
		"o4-mini":                                      "o4-mini",
		"litellm_proxy/deepseek/deepseek-chat":         "deepseek",
		"openrouter/google/gemini-3-pro-preview":       "gemini-3-pro",
		"gemini-2.5-flash":                             "gemini-2.5-flash",
		"":                                             "unknown",
		"Some-Local/My-Model":                          "my-model",
		"ollama/gemma3:1b":                             "gemma3",
		"meta-llama/llama-4-maverick":                  "llama-4",
		"moonshotai/kimi-k2-instruct":                  "kimi",
		"accounts/fireworks/models/qwen3-coder-480b":   "qwen3",
		"bedrock/us.anthropic.claude-opus-4-1-2025080": "claude-opus-4",
	}
	for in, want := range tests {
		if got := ingest.ModelFamily(in); got != want {
			t.Errorf("ModelFamily(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEstimators(t *testing.T) {
	text := "The quick brown fox jumps over the lazy dog. 敏捷的棕色狐狸"
	c4, _ := ingest.EstimatorByName("chars4")
	// 45 + 7 = 52 runes → ceil(52/4) = 13
	if got := c4.Count(text); got != 13 {
		t.Errorf("chars4 = %d, want 13", got)
	}
	if c4.Count("") != 0 || c4.Count("abcd") != 1 || c4.Count("abcde") != 2 {
		t.Error("chars4 rounding")
	}
	for name, want := range map[string]int64{"cl100k_base": 10, "o200k_base": 10} {
		e, err := ingest.EstimatorByName(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Count("The quick brown fox jumps over the lazy dog."); got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
	if _, err := ingest.EstimatorByName("p50k"); err == nil {
		t.Error("unknown tokenizer accepted")
	}
	cal := &ingest.Calibrated{Base: c4, Factors: map[string]float64{"gpt-5": 1.5}, Family: "gpt-5"}
	if got := cal.Count("abcdefgh"); got != 3 {
		t.Errorf("calibrated = %d, want 3", got)
	}
}

// TestFitCalibration checks FitCalibration's candidates and choice on inputs
// whose fits are worked out by hand in each case.
func TestFitCalibration(t *testing.T) {
	for _, tc := range []struct {
		name           string
		est, logged    []float64
		factor, offset float64
		raw, fitted    float64 // MdAPE as is and after the fit
	}{
		{
			// logged = 1000 + 1.2 × est exactly: least squares finds the line;
			// the raw error at the median point is |400 − 1480| / 1480
			name:   "exact line",
			est:    []float64{100, 200, 400, 800, 1600},
			logged: []float64{1120, 1240, 1480, 1960, 2920},
			factor: 1.2, offset: 1000,
			raw: 1080.0 / 1480, fitted: 0,
		},
		{
			// The points lie on logged = 2 × est − 150: least squares, plain
			// and weighted (1/logged²), fits that line exactly and its
			// negative intercept rules both out. The candidates left:
			//   through the origin, Σxy / Σx² = (100·50 + 200·250 + 300·450) /
			//   (100² + 200² + 300²) = 190000 / 140000 = 19/14: fitted 135.7,
			//   271.4, 407.1, errors 12/7, 3/35, 2/21: median 2/21 = 0.095;
			//   weighted through the origin, Σ(x/y) / Σ(x/y)² = (2 + 0.8 +
			//   2/3) / (4 + 0.64 + 4/9) = 0.682: errors 0.36, 0.45, 0.55,
			//   median 0.45;
			//   the median ratio logged/est of 0.5, 1.25, 1.5 = 1.25: errors
			//   1.5, 0, 1/6, median 1/6.
			// The lowest MdAPE is the origin fit's: 19/14, offset 0. Raw
			// (factor 1): errors 50/50, 50/250, 150/450, median 1/3.
			name:   "negative intercept: through the origin",
			est:    []float64{100, 200, 300},
			logged: []float64{50, 250, 450},
			factor: 190000.0 / 140000, offset: 0,
			raw: 1.0 / 3, fitted: 2.0 / 21,
		},
		{
			// one estimate: no regression, the median ratio of 1.2, 1.5, 1.3;
			// errors 20/120, 50/150, 30/130 → raw median 30/130; fitted
			// 130 against 120, 150, 130: 10/120, 20/150, 0 → median 10/120
			name:   "no spread: the median ratio",
			est:    []float64{100, 100, 100},
			logged: []float64{120, 150, 130},
			factor: 1.3, offset: 0,
			raw: 30.0 / 130, fitted: 10.0 / 120,
		},
		{name: "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := ingest.FitCalibration(tc.est, tc.logged)
			got := []float64{f.Factor, f.Offset, f.MdAPERaw, f.MdAPEFitted}
			want := []float64{tc.factor, tc.offset, tc.raw, tc.fitted}
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-9 {
					t.Errorf("factor, offset, MdAPE raw, fitted = %v, want %v", got, want)
					break
				}
			}
			if f.N != len(tc.est) {
				t.Errorf("N = %d, want %d", f.N, len(tc.est))
			}
		})
	}
}

func TestParseTime(t *testing.T) {
	want := time.Date(2025, 9, 25, 21, 12, 14, 126000000, time.UTC)
	for _, in := range []any{"2025-09-25T21:12:14.126Z", "2025-09-25T23:12:14.126+02:00", 1758834734.126, float64(1758834734126), "1758834734.126"} {
		got := ingest.ParseTime(in)
		if got == nil || got.Sub(want).Abs() > time.Millisecond {
			t.Errorf("ParseTime(%v) = %v, want %v", in, got, want)
		}
	}
	for _, in := range []any{nil, "", "yesterday", -5.0, math.NaN()} {
		if got := ingest.ParseTime(in); got != nil {
			t.Errorf("ParseTime(%v) = %v, want nil", in, got)
		}
	}
}

func TestUnknownFormat(t *testing.T) {
	if _, err := ingest.Parse(context.Background(), "nope", "x", nil, nil); err == nil {
		t.Error("unknown format accepted")
	}
	if im := ingest.Detect("x.json", []byte(`{"hello":"world"}`)); im != nil {
		t.Errorf("plain JSON detected as %s", im.Name())
	}
	sink := &ingest.MemSink{}
	sum, err := ingest.Files(context.Background(), sink, []string{"testdata/notalog.json"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 1 || !errors.Is(sum.Errors[0], ingest.ErrUnknownFormat) {
		t.Errorf("summary = %+v", sum)
	}
}
