package recommend

import (
	"strings"
)

// Config is what trajmine recommend writes for a harness to load: the
// chosen policy per model family with its parameters and the evidence.
type Config struct {
	Generator string                  `json:"generator" yaml:"generator"`
	Families  map[string]FamilyConfig `json:"families" yaml:"families"`
	// Insufficient lists the families with too few runs for a
	// recommendation, and what to collect.
	Insufficient map[string]string `json:"insufficient_evidence,omitempty" yaml:"insufficient_evidence,omitempty"`
}

// FamilyConfig is one family's entry of Config.
type FamilyConfig struct {
	Policy      string            `json:"policy" yaml:"policy"`
	Params      map[string]string `json:"params,omitempty" yaml:"params,omitempty"`
	Spec        string            `json:"spec" yaml:"spec"`                             // the full spec, every parameter spelled out
	Currency    Currency          `json:"currency,omitempty" yaml:"currency,omitempty"` // what Saving is in (Choose, step 1)
	Saving      *float64          `json:"expected_saving,omitempty" yaml:"expected_saving,omitempty"`
	SavingCI    []float64         `json:"expected_saving_ci95,omitempty" yaml:"expected_saving_ci95,omitempty"`
	ReinvPer100 *float64          `json:"reinvocations_per_100_calls,omitempty" yaml:"reinvocations_per_100_calls,omitempty"`
	Why         string            `json:"why" yaml:"why"`
}

// ConfigOf turns results into a Config; families with insufficient
// evidence get no entry of Families, only their reason in Insufficient.
func ConfigOf(rs []Result) Config {
	c := Config{Generator: "trajmine recommend", Families: map[string]FamilyConfig{}}
	for _, r := range rs {
		if r.Insufficient {
			if c.Insufficient == nil {
				c.Insufficient = map[string]string{}
			}
			c.Insufficient[r.Family] = r.Why
			continue
		}
		name, params := SplitSpec(r.Policy)
		fc := FamilyConfig{Policy: name, Params: params, Spec: r.Policy, Currency: r.Currency, Saving: r.Saving, ReinvPer100: r.ReinvPer100, Why: r.Why}
		if r.SavingLo != nil {
			fc.SavingCI = []float64{*r.SavingLo, *r.SavingHi}
		}
		c.Families[r.Family] = fc
	}
	return c
}

// SplitSpec splits a canonical spec "name(k=v,…)" into its name and
// parameters (nil when it has none).
func SplitSpec(spec string) (string, map[string]string) {
	name, rest, ok := strings.Cut(spec, "(")
	if !ok {
		return spec, nil
	}
	rest = strings.TrimSuffix(rest, ")")
	params := map[string]string{}
	for _, kv := range strings.Split(rest, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			params[k] = v
		}
	}
	return name, params
}
