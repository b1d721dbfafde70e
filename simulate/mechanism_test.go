package simulate

import (
	"slices"
	"testing"
)

// TestMechanisms: every catalog entry names one of the mechanisms, and the
// ones the recommendation groups by are what each rule does (hand-listed
// from the entries' Doc).
func TestMechanisms(t *testing.T) {
	known := []string{MechanismNone, MechanismLogged, MechanismDtoc, MechanismMasking, MechanismTruncation, MechanismCompaction}
	want := map[string]string{"keep-all": MechanismNone, "as-logged": MechanismLogged, "dtoc-oracle": MechanismDtoc, "gemini-mask": MechanismMasking,
		"halflife": MechanismTruncation, "tracer-tooltype": MechanismTruncation, "truncate": MechanismTruncation, "compact-codex": MechanismCompaction}
	for _, d := range Catalog() {
		if !slices.Contains(known, d.Mechanism) {
			t.Errorf("%s: mechanism %q", d.Name, d.Mechanism)
		}
		if w, ok := want[d.Name]; ok && d.Mechanism != w {
			t.Errorf("%s: mechanism %q, want %q", d.Name, d.Mechanism, w)
		}
	}
}
