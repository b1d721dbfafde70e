package simulate

import (
	"os"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		spec, name, short, err string
	}{
		{spec: "keep-all", name: "keep-all", short: "keep-all"},
		{spec: " halflife ", name: "halflife(activate=0.5,keep=4,cap=8000,floor=0,stall=false,stall_tokens=40)", short: "halflife"},
		{spec: "halflife(cap=4000, keep=2)", name: "halflife(activate=0.5,keep=2,cap=4000,floor=0,stall=false,stall_tokens=40)", short: "halflife(keep=2,cap=4000)"},
		{spec: "halflife()", short: "halflife"},
		{spec: "tracer-tooltype(ratios=read:0.3;edit:1)", short: "tracer-tooltype(ratios=read:0.3;edit:1)"},
		{spec: "clear-tool-uses(exclude_tools=Edit;Write)", short: "clear-tool-uses(exclude_tools=Edit;Write)"},
		// polling was added later (Def.Added): the canonical spec names it only away from its default
		{spec: "mask(n=5)", name: "mask(n=5,style=swe-agent,unit=observations)", short: "mask(n=5)"},
		{spec: "mask(n=5,polling=1)", name: "mask(n=5,style=swe-agent,unit=observations)", short: "mask(n=5)"},
		{spec: "mask(n=5,polling=5)", name: "mask(n=5,style=swe-agent,unit=observations,polling=5)", short: "mask(n=5,polling=5)"},
		{spec: "mask(polling=0)", err: "polling must be ≥ 1"},
		{spec: "nosuch", err: `unknown policy "nosuch"`},
		{spec: "halflife(keep=0)", err: "keep must be ≥ 1"},
		{spec: "halflife(keep=two)", err: `keep="two" is not an integer`},
		{spec: "halflife(activate=2)", err: "activate must be in [0,1]"},
		{spec: "halflife(stall=maybe)", err: "is not true or false"},
		{spec: "halflife(cap=1,cap=2)", err: "given twice"},
		{spec: "halflife(cap)", err: "is not key=value"},
		{spec: "halflife(cap=1", err: "missing closing parenthesis"},
		{spec: "mask(style=cline)", err: "must be one of swe-agent, openhands"},
		{spec: "tracer-tooltype(ratios=read:2)", err: "must be class:ratio"},
		{spec: "keep-all(x=1)", err: `keep-all has no parameter "x"`},
		{spec: "(x=1)", err: "empty name"},
	}
	for _, tc := range tests {
		p, err := Parse(tc.spec)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) error = %v, want %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.spec, err)
			continue
		}
		if tc.name != "" && p.Name() != tc.name {
			t.Errorf("Parse(%q).Name() = %q, want %q", tc.spec, p.Name(), tc.name)
		}
		if Short(p) != tc.short {
			t.Errorf("Short(Parse(%q)) = %q, want %q", tc.spec, Short(p), tc.short)
		}
		// the canonical name parses back to the same policy
		q, err := Fresh(p)
		if err != nil || q.Name() != p.Name() {
			t.Errorf("Fresh(%q) = %v, %v", p.Name(), q, err)
		}
	}
}

func TestCatalogParsesWithDefaults(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range Catalog() {
		if seen[d.Name] {
			t.Errorf("%s listed twice", d.Name)
		}
		seen[d.Name] = true
		if d.Doc == "" || d.Source == "" {
			t.Errorf("%s lacks a doc or a source", d.Name)
		}
		if _, err := Parse(d.Name); err != nil {
			t.Errorf("%s with defaults: %v", d.Name, err)
		}
		for _, p := range d.Params {
			if p.Doc == "" {
				t.Errorf("%s.%s has no doc", d.Name, p.Name)
			}
		}
	}
	if len(seen) < 19 {
		t.Errorf("catalog has %d policies", len(seen))
	}
}

func TestParseFile(t *testing.T) {
	f, err := os.Open("testdata/policies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps, err := ParseFile("testdata/policies.yaml", f)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, Short(p))
	}
	if want := "keep-all halflife mask(style=openhands)"; strings.Join(got, " ") != want {
		t.Errorf("policies = %v, want %s", got, want)
	}

	bad, _ := os.Open("testdata/bad-policies.yaml")
	defer bad.Close()
	_, err = ParseFile("testdata/bad-policies.yaml", bad)
	if err == nil || !strings.Contains(err.Error(), `testdata/bad-policies.yaml:2: mask: n="ten" is not an integer`) {
		t.Errorf("bad file error = %v", err)
	}
	for _, tc := range []struct{ text, err string }{
		{`["keep-all", "mask(n=3)"]`, ""},
		{`{"policies": ["keep-all"]}`, ""},
		{`{"other": 1}`, "expected a list of policies"},
		{`[]`, "no policies"},
		{"- policy: mask\n  bogus: 1\n", "entry 1"},
	} {
		_, err := ParseFile("p.json", strings.NewReader(tc.text))
		if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ParseFile(%q) error = %v, want %q", tc.text, err, tc.err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, d := range Catalog() {
		f.Add(d.Name)
	}
	f.Add("halflife(cap=4000,keep=2)")
	f.Add("tracer-tooltype(ratios=read:0.3;;x:)")
	f.Fuzz(func(t *testing.T, spec string) {
		p, err := Parse(spec)
		if err != nil {
			return
		}
		// a parsed policy replays a small run without panicking, deterministically
		tr := ladder(100, 200, 300, 400)
		var rp Replayer
		var calls []CallResult
		a := rp.Replay(tr, p, Options{Window: 900, Calls: &calls})
		if b := rp.Replay(tr, p, Options{Window: 900}); a != b {
			t.Fatalf("%s: not deterministic", p.Name())
		}
		// its canonical name parses to the same policy: same name, same replay
		q, err := Parse(p.Name())
		if err != nil {
			t.Fatalf("%s: canonical name does not parse: %v", p.Name(), err)
		}
		if q.Name() != p.Name() {
			t.Fatalf("canonical name %s parses to %s", p.Name(), q.Name())
		}
		if b := rp.Replay(tr, q, Options{Window: 900}); b != a {
			t.Fatalf("%s: replay differs after a round trip through its name:\n%+v\n%+v", p.Name(), a, b)
		}
		// keep-all on the ladder, by hand: prompts 150, 260, 470, 780, each
		// + 10 output within 900, so it never overflows; a replayed call fits
		keepAll := []int64{150, 260, 470, 780}
		if a.KeepAllOverflowAt != -1 {
			t.Errorf("%s: KeepAllOverflowAt = %d, want -1", p.Name(), a.KeepAllOverflowAt)
		}
		var ka int64
		for _, c := range calls {
			if c.Overflow {
				continue
			}
			ka += keepAll[c.Call]
			if c.PromptTokens < 0 || c.PromptTokens+10 > 900 {
				t.Errorf("%s: call %d replayed with prompt %d (window 900, output 10)", p.Name(), c.Call, c.PromptTokens)
			}
		}
		if a.KeepAllTokens != ka {
			t.Errorf("%s: KeepAllTokens = %d, want %d (Σ keep-all over the %d calls replayed)", p.Name(), a.KeepAllTokens, ka, a.Calls)
		}
	})
}
