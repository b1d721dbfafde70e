package behavior

import (
	"cmp"
	"math"
	"slices"
)

// Dist summarises a sample: its size, extremes, 10th, 50th and 90th
// percentiles and mean. Percentiles interpolate linearly between the
// closest ranks (R's type 7, numpy's default): for the sorted sample
// x[0] ≤ … ≤ x[n−1], the q-quantile is x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋])
// with h = (n − 1)q. An empty sample has every field 0.
type Dist struct {
	N      int     `json:"n"`
	Min    float64 `json:"min"`
	P10    float64 `json:"p10"`
	Median float64 `json:"median"`
	P90    float64 `json:"p90"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
}

// NewDist summarises xs (not modified).
func NewDist(xs []float64) Dist {
	if len(xs) == 0 {
		return Dist{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	return Dist{N: len(s), Min: s[0], P10: quantile(s, 0.1), Median: quantile(s, 0.5), P90: quantile(s, 0.9),
		Max: s[len(s)-1], Mean: sum / float64(len(s))}
}

// quantile is the type-7 q-quantile of the sorted sample s (non-empty).
func quantile(s []float64, q float64) float64 {
	h := float64(len(s)-1) * q
	lo := int(math.Floor(h))
	if lo+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// ratio is a/b, or 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// Share is one category's part of a set of disables (by tool or by class).
type Share struct {
	Name   string  `json:"name"`
	Count  int64   `json:"count"`
	Share  float64 `json:"share"`  // Count / all disables counted
	Tokens int64   `json:"tokens"` // Σ tokens freed
}

// shares builds the Share rows of counts and tokens by name: by count
// descending, then name.
func shares(count, tokens map[string]int64) []Share {
	var total int64
	for _, c := range count {
		total += c
	}
	out := make([]Share, 0, len(count))
	for name, c := range count {
		out = append(out, Share{Name: name, Count: c, Share: ratio(float64(c), float64(total)), Tokens: tokens[name]})
	}
	slices.SortFunc(out, func(a, b Share) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Name, b.Name)) })
	return out
}
