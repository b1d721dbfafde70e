package synth

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Behaviour profiles of DTOC sessions (planted truth). See the package
// documentation, section "Behaviour profiles", for how they are generated.

// Profile names.
const (
	// ProfileSelective: few, deep disables of large outputs that the agent
	// is no longer working on; rare, late re-enables.
	ProfileSelective = "selective"
	// ProfileShallow: frequent incremental disables of small, recent
	// outputs, each freeing little (the "frequent shallow compressions that
	// cost more than they save" of the DTOC paper).
	ProfileShallow = "shallow"
	// ProfileNever: the model has manage_context but never calls it.
	ProfileNever = "never"
	// ProfileThrasher: disables outputs and re-enables the same keys within
	// a few calls.
	ProfileThrasher = "thrasher"
)

// ProfileNames lists the profile names in their canonical order.
var ProfileNames = []string{ProfileSelective, ProfileShallow, ProfileNever, ProfileThrasher}

// Orders in which a profile considers the outputs it may disable
// (Profile.Order).
const (
	OrderLargest = "largest" // most tokens freed first
	OrderRecent  = "recent"  // newest first
	OrderRandom  = "random"  // a fresh random order per manage_context call
)

// DefaultPlaceholderTokens is the placeholder cost subtracted from an
// output's estimated_tokens to give the tokens a disable frees. It is the
// same as behavior.DefaultPlaceholderTokens (the DTOC paper's placeholders
// cost "approximately 30–50 tokens"), so that the freed tokens planted here
// are the freed tokens the behaviour profiles measure.
const DefaultPlaceholderTokens = 40

// GroundTruthFile is where Write puts the ground truth when
// Options.Profiles is set: a slash-separated path relative to the output
// directory. It is in a hidden directory, which `trajmine ingest DIR` does not
// walk, so that ingesting the corpus does not warn about a file that is not
// a log.
const GroundTruthFile = ".synth/ground_truth.json"

// Profile is the planted manage_context behaviour of one model. Every
// OpenAI-messages session of a corpus generated with profiles is a DTOC run
// of one profile (dealt round-robin), logged under the profile's Model.
//
// Token figures are in the units the behaviour profiles measure: an
// output's tokens are its envelope's estimated_tokens, ceil(runes/4) of the
// result (what `trajmine ingest` stores as est_tokens with the default
// chars4 estimator), and a disable frees
//
//	freed(o) = estimated_tokens(o) − PlaceholderTokens
//
// Calls are model calls (API responses), manage_context calls included,
// numbered from 0 as the events table's turn; the age of an output at a
// call c is c − (the first call that saw it).
type Profile struct {
	// Name is one of ProfileNames.
	Name string `json:"name"`
	// Model is the model name written in the profile's runs (and so its
	// model family). Default "synth-" + Name. Profiles of one corpus must
	// have distinct models.
	Model string `json:"model"`
	// OpsPer100 is the rate of manage_context calls per 100 model calls
	// (all calls, manage_context calls included), in [0, 100]. A credit
	// grows by OpsPer100/100 at every call from a uniform random start in
	// [0, 1); a call is a manage_context call when the credit is ≥ 1 and
	// outputs matching the profile can be disabled (the credit then drops
	// by 1, so a call that finds nothing to disable is made up for later),
	// or when a scheduled re-enable is due (see ReEnable), which also costs
	// a credit. So calls × OpsPer100/100 is the expected number of
	// manage_context calls, less what is still owed at the end of the run.
	OpsPer100 float64 `json:"ops_per_100"`
	// MinFreed and MaxFreed bound the tokens one disabling call frees (the
	// sum of freed(o) over the outputs it disables): every disabling call
	// frees between them. Each call draws a target uniformly in
	// [MinFreed, MaxFreed] and takes eligible outputs in Order, skipping
	// any that would push the sum above MaxFreed, until the sum reaches the
	// target or MaxKeys outputs are taken; it is made only if the sum is at
	// least MinFreed and at least MinKeys outputs were taken.
	MinFreed int `json:"min_freed"`
	MaxFreed int `json:"max_freed"`
	// MinKeys and MaxKeys bound the outputs one disabling call disables.
	MinKeys int `json:"min_keys"`
	MaxKeys int `json:"max_keys"`
	// MinAge and MaxAge bound the age of an output that may be disabled,
	// in calls; MaxAge 0 means no upper bound.
	MinAge int `json:"min_age"`
	MaxAge int `json:"max_age"`
	// Order is OrderLargest, OrderRecent or OrderRandom.
	Order string `json:"order"`
	// AvoidRecent, when positive, makes outputs of the files the agent is
	// working on ineligible: the files of its last AvoidRecent reads (the
	// agent re-reads and edits files among its last six reads), so that
	// what it disables is mostly no longer used.
	AvoidRecent int `json:"avoid_recent"`
	// ReEnable is the probability that a disabled output is scheduled to be
	// enabled again, ReEnableAfterMin to ReEnableAfterMax calls (uniform)
	// after the call that disabled it. The first call at or after the due
	// call is a manage_context call that enables every due output (and
	// disables nothing); a re-enable due after the run's last call never
	// happens. For the thrasher, ReEnableAfterMax is the thrash window k.
	ReEnable         float64 `json:"reenable"`
	ReEnableAfterMin int     `json:"reenable_after_min"`
	ReEnableAfterMax int     `json:"reenable_after_max"`
	// PlaceholderTokens is subtracted from estimated_tokens to give freed(o)
	// (default DefaultPlaceholderTokens); outputs with freed(o) ≤ 0 are
	// never disabled.
	PlaceholderTokens int `json:"placeholder_tokens"`
}

// DefaultProfile returns the named profile with its default parameters:
//
//	profile    ops/100  freed/call    keys  age      order    avoid  re-enable
//	selective     4     2000–40000    1–4   ≥ 6      largest    6    0.05 after 10–40 calls
//	shallow      30       20–450      1–2   0–3      recent     0    0.10 after 8–30 calls
//	never         0        –           –     –         –        –     –
//	thrasher     20      200–6000     1–2   ≥ 1      random     0    0.80 after 1–3 calls
//
// All use PlaceholderTokens DefaultPlaceholderTokens and Model "synth-" + name.
func DefaultProfile(name string) (Profile, error) {
	p := Profile{Name: name, Model: "synth-" + name, PlaceholderTokens: DefaultPlaceholderTokens, MinKeys: 1}
	switch name {
	case ProfileSelective:
		p.OpsPer100, p.MinFreed, p.MaxFreed, p.MaxKeys = 4, 2000, 40000, 4
		p.MinAge, p.Order, p.AvoidRecent = 6, OrderLargest, 6
		p.ReEnable, p.ReEnableAfterMin, p.ReEnableAfterMax = 0.05, 10, 40
	case ProfileShallow:
		p.OpsPer100, p.MinFreed, p.MaxFreed, p.MaxKeys = 30, 20, 450, 2
		p.MinAge, p.MaxAge, p.Order = 0, 3, OrderRecent
		p.ReEnable, p.ReEnableAfterMin, p.ReEnableAfterMax = 0.10, 8, 30
	case ProfileNever:
		p.MinKeys = 0
	case ProfileThrasher:
		p.OpsPer100, p.MinFreed, p.MaxFreed, p.MaxKeys = 20, 200, 6000, 2
		p.MinAge, p.Order = 1, OrderRandom
		p.ReEnable, p.ReEnableAfterMin, p.ReEnableAfterMax = 0.80, 1, 3
	default:
		return Profile{}, fmt.Errorf("unknown profile %q (want one of %v)", name, ProfileNames)
	}
	return p, nil
}

// ParseProfiles decodes a JSON array of profiles. Each element needs a
// "name"; it starts from DefaultProfile(name) and the fields present
// override the defaults. The result is validated as Write validates
// Options.Profiles.
func ParseProfiles(data []byte) ([]Profile, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, fmt.Errorf("parse profiles: %w", err)
	}
	ps := make([]Profile, 0, len(raws))
	for i, raw := range raws {
		var head struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, fmt.Errorf("parse profiles: element %d: %w", i, err)
		}
		p, err := DefaultProfile(head.Name)
		if err != nil {
			return nil, fmt.Errorf("parse profiles: element %d: %w", i, err)
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("parse profiles: element %d: %w", i, err)
		}
		ps = append(ps, p)
	}
	if err := validateProfiles(ps); err != nil {
		return nil, err
	}
	return ps, nil
}

// validate checks one profile's parameters.
func (p *Profile) validate() error {
	switch {
	case !slices.Contains(ProfileNames, p.Name):
		return fmt.Errorf("unknown profile %q (want one of %v)", p.Name, ProfileNames)
	case p.Model == "":
		return fmt.Errorf("profile %s: model must not be empty", p.Name)
	case p.OpsPer100 < 0 || p.OpsPer100 > 100:
		return fmt.Errorf("profile %s: ops_per_100 must be in [0, 100], got %g", p.Name, p.OpsPer100)
	case p.ReEnable < 0 || p.ReEnable > 1:
		return fmt.Errorf("profile %s: reenable must be in [0, 1], got %g", p.Name, p.ReEnable)
	case p.PlaceholderTokens < 0:
		return fmt.Errorf("profile %s: placeholder_tokens must be >= 0", p.Name)
	case p.OpsPer100 == 0:
		return nil // never disables: the remaining parameters are unused
	case p.MinFreed < 1 || p.MaxFreed < p.MinFreed:
		return fmt.Errorf("profile %s: want 1 <= min_freed <= max_freed, got %d, %d", p.Name, p.MinFreed, p.MaxFreed)
	case p.MinKeys < 1 || p.MaxKeys < p.MinKeys:
		return fmt.Errorf("profile %s: want 1 <= min_keys <= max_keys, got %d, %d", p.Name, p.MinKeys, p.MaxKeys)
	case p.MinAge < 0 || p.MaxAge < 0 || (p.MaxAge > 0 && p.MaxAge < p.MinAge):
		return fmt.Errorf("profile %s: want 0 <= min_age <= max_age (0 = none), got %d, %d", p.Name, p.MinAge, p.MaxAge)
	case p.Order != OrderLargest && p.Order != OrderRecent && p.Order != OrderRandom:
		return fmt.Errorf("profile %s: unknown order %q (want largest, recent or random)", p.Name, p.Order)
	case p.AvoidRecent < 0:
		return fmt.Errorf("profile %s: avoid_recent must be >= 0", p.Name)
	case p.ReEnable > 0 && (p.ReEnableAfterMin < 1 || p.ReEnableAfterMax < p.ReEnableAfterMin):
		return fmt.Errorf("profile %s: want 1 <= reenable_after_min <= reenable_after_max, got %d, %d", p.Name, p.ReEnableAfterMin, p.ReEnableAfterMax)
	}
	return nil
}

// validateProfiles checks every profile and that their models are distinct.
func validateProfiles(ps []Profile) error {
	models := map[string]bool{}
	for i := range ps {
		if err := ps[i].validate(); err != nil {
			return fmt.Errorf("options: %w", err)
		}
		if models[ps[i].Model] {
			return fmt.Errorf("options: two profiles use model %q", ps[i].Model)
		}
		models[ps[i].Model] = true
	}
	return nil
}

// GroundTruth is what Write planted when Options.Profiles is set; it is
// written as GroundTruthFile (indented JSON) beside the corpus.
type GroundTruth struct {
	Seed uint64 `json:"seed"`
	N    int    `json:"n"`
	// Families has one entry per profile, in Options.Profiles order.
	Families []FamilyTruth `json:"families"`
	// Sessions has one entry per profiled session, in generation order.
	Sessions []SessionTruth `json:"sessions"`
}

// FamilyTruth is one model and the profile it was given.
type FamilyTruth struct {
	// Model is the model name in the logs; `trajmine ingest` gives its runs
	// the model family ingest.ModelFamily(Model) (the lower-cased name
	// itself for the default "synth-<profile>" names).
	Model   string  `json:"model"`
	Profile Profile `json:"profile"`
	// Sessions, Calls, ManageCalls, Disables and Enables sum the family's
	// SessionTruth entries.
	Sessions    int `json:"sessions"`
	Calls       int `json:"calls"`
	ManageCalls int `json:"manage_calls"`
	Disables    int `json:"disables"`
	Enables     int `json:"enables"`
}

// SessionTruth is one profiled session and what it did.
type SessionTruth struct {
	RunID   string `json:"run_id"`
	Path    string `json:"path"`
	Model   string `json:"model"`
	Profile string `json:"profile"`
	// Calls is the session's model calls (FileInfo.Turns); ManageCalls the
	// manage_context calls among them; Disables and Enables the keys they
	// disabled and enabled.
	Calls       int `json:"calls"`
	ManageCalls int `json:"manage_calls"`
	Disables    int `json:"disables"`
	Enables     int `json:"enables"`
}

// addSession records a profiled session in the ground truth.
func (g *GroundTruth) addSession(fi FileInfo, p *Profile, manages, disables, enables int) {
	g.Sessions = append(g.Sessions, SessionTruth{RunID: fi.RunID, Path: fi.Path, Model: p.Model, Profile: p.Name,
		Calls: fi.Turns, ManageCalls: manages, Disables: disables, Enables: enables})
	for i := range g.Families {
		if f := &g.Families[i]; f.Model == p.Model {
			f.Sessions++
			f.Calls += fi.Turns
			f.ManageCalls += manages
			f.Disables += disables
			f.Enables += enables
		}
	}
}
