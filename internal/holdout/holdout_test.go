package holdout

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func TestHeld(t *testing.T) {
	// FNV-1a-32 by hand: offset basis 2166136261, prime 16777619;
	// "a" → (2166136261 ^ 0x61) × 16777619 mod 2³² = 0xe40c292c = 3826002220;
	// 3826002220 mod 4 = 0, mod 3 = 1, mod 5 = 0.
	// "" → the offset basis 2166136261: mod 4 = 1, mod 3 = 1.
	cases := []struct {
		id    string
		every uint32
		want  bool
	}{
		{"a", 4, true},
		{"a", 3, false},
		{"a", 5, true},
		{"a", 0, false}, // every 0: none
		{"a", 1, true},  // every 1: all
		{"", 4, false},
		{"", 1, true},
	}
	for _, c := range cases {
		if got := Held(c.id, c.every); got != c.want {
			t.Errorf("Held(%q, %d) = %v, want %v", c.id, c.every, got, c.want)
		}
	}
}

func TestDigest(t *testing.T) {
	want := sha256.Sum256([]byte("a\nb\n"))
	if got := Digest([]string{"b", "a"}); got != hex.EncodeToString(want[:]) {
		t.Errorf("Digest(b, a) = %s, want %x (sorted, newline-ended)", got, want)
	}
	if Digest([]string{"a", "b"}) == Digest([]string{"a", "c"}) {
		t.Error("different sets, same digest")
	}
}

func TestRule(t *testing.T) {
	if got, want := Rule(4), "held out when FNV-1a-32(run id) mod 4 = 0"; got != want {
		t.Errorf("Rule(4) = %q, want %q", got, want)
	}
	if got := Rule(0); got != "none held out" {
		t.Errorf("Rule(0) = %q", got)
	}
}
