package ingest_test

import (
	"fmt"
	"testing"

	"github.com/trajmine/trajmine/ingest"
)

// TestRunIDProbeLinear claims one id n times: the ids must be id, id@sha8,
// id@sha8.2, …, and the probe must ask about each candidate once (n calls
// in all; the loop it replaced asked 1 + 2 + … + n = n(n+1)/2 times).
func TestRunIDProbeLinear(t *testing.T) {
	for _, n := range []int{1, 2, 3, 1000} {
		var p ingest.RunIDProbe
		taken := map[string]bool{}
		calls := 0
		for k := 0; k < n; k++ {
			got, err := p.Claim("same", "0123456789abcdef", func(c string) (bool, error) { calls++; return taken[c], nil })
			if err != nil {
				t.Fatal(err)
			}
			want := "same"
			switch {
			case k == 1:
				want = "same@01234567"
			case k > 1:
				want = fmt.Sprintf("same@01234567.%d", k)
			}
			if got != want {
				t.Fatalf("n=%d: claim %d = %q, want %q", n, k, got, want)
			}
			taken[got] = true
		}
		if calls != n {
			t.Errorf("n=%d: %d probes, want %d", n, calls, n)
		}
	}
}

// TestRunIDProbeSkipsTaken: candidates another file holds are skipped, and
// ids of different files (sha) or different log ids do not share a count.
func TestRunIDProbeSkipsTaken(t *testing.T) {
	var p ingest.RunIDProbe
	taken := map[string]bool{"a": true, "a@aaaaaaaa": true, "b": true}
	claim := func(id, sha string) string {
		got, _ := p.Claim(id, sha, func(c string) (bool, error) { return taken[c], nil })
		taken[got] = true
		return got
	}
	for _, tc := range []struct{ id, sha, want string }{
		{"a", "aaaaaaaa11", "a@aaaaaaaa.2"},
		{"a", "aaaaaaaa11", "a@aaaaaaaa.3"},
		{"a", "bbbbbbbb22", "a@bbbbbbbb"},
		{"b", "aaaaaaaa11", "b@aaaaaaaa"},
		{"c", "aaaaaaaa11", "c"},
	} {
		if got := claim(tc.id, tc.sha); got != tc.want {
			t.Errorf("claim(%s, %s) = %s, want %s", tc.id, tc.sha, got, tc.want)
		}
	}
}
