package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Pct formats a share as a percentage with one decimal: 0.5 → "50.0%";
// "-" for NaN.
func Pct(f float64) string {
	if math.IsNaN(f) {
		return "-"
	}
	return strconv.FormatFloat(100*f, 'f', 1, 64) + "%"
}

// SignedPct formats a relative change with its sign: −0.72 → "-72.0%";
// "-" for NaN.
func SignedPct(f float64) string {
	if math.IsNaN(f) {
		return "-"
	}
	if math.IsInf(f, 1) {
		return "+inf"
	}
	s := strconv.FormatFloat(100*f, 'f', 1, 64)
	if s == "-0.0" {
		s = "0.0"
	}
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s + "%"
}

// ChangeCI is a change's interval, "[-80.0%, -51.0%]"; "" when unknown.
func ChangeCI(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return ""
	}
	return "[" + SignedPct(lo) + ", " + SignedPct(hi) + "]"
}

// Points formats a difference of two rates in percentage points: 0.167 →
// "+16.7 pts"; "-" for NaN.
func Points(f float64) string {
	if math.IsNaN(f) {
		return "-"
	}
	return strings.TrimSuffix(SignedPct(f), "%") + " pts"
}

// PointsCI is a difference's interval in points, "[-16.7, +50.0]"; "" when unknown.
func PointsCI(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return ""
	}
	return "[" + strings.TrimSuffix(SignedPct(lo), "%") + ", " + strings.TrimSuffix(SignedPct(hi), "%") + "]"
}

// PValue formats a p-value: two decimals from 0.1, three below, "<0.001".
func PValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return "-"
	case p < 0.001:
		return "<0.001"
	case p < 0.1:
		return strconv.FormatFloat(p, 'f', 3, 64)
	}
	return strconv.FormatFloat(p, 'f', 2, 64)
}

// PEquals is a p-value after "p": "= 0.62", "< 0.001".
func PEquals(p float64) string {
	if s := PValue(p); strings.HasPrefix(s, "<") {
		return "< " + s[1:]
	}
	return "= " + PValue(p)
}

// TestName is a row's solve-rate test as the tables name it.
func (s *Solve) TestName() string {
	if s.Test == "fisher-exact" {
		return "Fisher"
	}
	return "McNemar"
}

// SolveVerdictText says what the solve-rate comparison concludes and, when
// it does not, the rule that stops it.
func SolveVerdictText(s *Solve, unpaired bool, r Rules) string {
	switch s.Verdict {
	case NoOutcomes:
		return "no outcomes on one side or both: solve rate not compared"
	case NotEnough:
		if unpaired {
			return fmt.Sprintf("not enough to conclude: fewer than %d runs with an outcome in a group", r.MinPairs)
		}
		return fmt.Sprintf("not enough to conclude: %d discordant %s, and fewer than %d can never give p < %s",
			s.B+s.C, plural(s.B+s.C, "pair", "pairs"), r.MinDiscordant, trimFloat(r.Alpha))
	case Higher:
		return fmt.Sprintf("higher, p < %s", trimFloat(r.Alpha))
	case Lower:
		return fmt.Sprintf("lower, p < %s", trimFloat(r.Alpha))
	}
	return fmt.Sprintf("no significant difference, p ≥ %s", trimFloat(r.Alpha))
}

// MetricVerdictText says what a figure's comparison concludes.
func MetricVerdictText(m *Metric, unpaired bool, r Rules) string {
	unit := plural(m.N, "pair", "pairs")
	if unpaired {
		unit = plural(m.N, "run", "runs") + " in the smaller group"
	}
	switch m.Verdict {
	case NoValue:
		return "not known on both sides"
	case TooFew:
		return fmt.Sprintf("%d %s: too few to conclude, fewer than %d", m.N, unit, r.MinPairs)
	case Higher:
		return "higher: the interval excludes 0"
	case Lower:
		return "lower: the interval excludes 0"
	}
	return "no clear difference: the interval includes 0"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func trimFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Metric returns the row's figure named name (a zero Metric when none).
func (r *Row) Metric(name string) Metric {
	for _, m := range r.Metrics {
		if m.Name == name {
			return m
		}
	}
	if name == PerSolvedName {
		return r.PerSolved
	}
	return Metric{Name: name, Verdict: NoValue}
}

// sentence is a row's plain sentence: who is compared on what, the solve
// rate with its test and verdict, input tokens and cost per solved task.
func sentence(c *Comparison, r *Row, o *Options) string {
	rules := Rules{B: o.B, Seed: o.Seed, Level: o.Level, Alpha: o.Alpha, MinDiscordant: o.MinDiscordant, MinPairs: o.MinPairs}
	var b strings.Builder
	who := c.Group + " vs " + c.Reference
	if r.Model != AllModels {
		who = r.Model + ", " + who
	} else {
		who = "all models, " + who
	}
	b.WriteString(who)
	if r.Unpaired {
		fmt.Fprintf(&b, " (no shared task: %d vs %d runs compared as independent samples)", r.RunsGroup, r.RunsRef)
	} else {
		fmt.Fprintf(&b, " (%d paired %s", r.Paired, plural(r.Paired, "task", "tasks"))
		if left := r.LeftGroup + r.LeftRef; left > 0 {
			fmt.Fprintf(&b, "; %d unpaired %s left out", left, plural(left, "run", "runs"))
		}
		b.WriteString(")")
	}
	s := &r.Solve
	b.WriteString(": solve rate ")
	if s.Verdict == NoOutcomes {
		fmt.Fprintf(&b, "%s vs %s (not compared: no outcomes on one side or both)", Pct(s.RateGroup), Pct(s.RateRef))
	} else {
		fmt.Fprintf(&b, "%s vs %s (%s %s; %s p %s", Pct(s.RateGroup), Pct(s.RateRef), Points(s.Diff), PointsCI(s.Lo, s.Hi), s.TestName(), PEquals(s.P))
		if !r.Unpaired {
			fmt.Fprintf(&b, ", %d discordant", s.B+s.C)
		}
		fmt.Fprintf(&b, ": %s", SolveVerdictText(s, r.Unpaired, rules))
		if s.NoOutcome > 0 {
			fmt.Fprintf(&b, "; %d %s without an outcome left out", s.NoOutcome, plural(s.NoOutcome, "run", "runs"))
		}
		b.WriteString(")")
	}
	for _, name := range []string{"input tokens", PerSolvedName} {
		m := r.Metric(name)
		if m.Verdict == NoValue {
			if name == PerSolvedName {
				b.WriteString("; cost per solved task unknown")
			}
			continue
		}
		fmt.Fprintf(&b, "; %s %s", name, SignedPct(m.Change))
		if ci := ChangeCI(m.Lo, m.Hi); ci != "" {
			b.WriteString(" " + ci)
		}
		fmt.Fprintf(&b, " (%s)", MetricVerdictText(&m, r.Unpaired, rules))
	}
	b.WriteString(".")
	return b.String()
}

// FigureText formats a mean in its unit: tokens as whole numbers, calls
// with one decimal, seconds whole, dollars with two decimals (four below
// a cent); "-" when unknown.
func FigureText(v float64, unit string) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "-"
	case unit == "USD" && v < 0.01:
		return strconv.FormatFloat(v, 'f', 4, 64)
	case unit == "USD":
		return strconv.FormatFloat(v, 'f', 2, 64)
	case unit == "calls":
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return thousands(int64(math.Round(v)))
}

// thousands formats n with comma separators.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// FigureLabel is a figure's name with its unit where the value does not
// say it: "duration (s)", "cost ($)".
func FigureLabel(m *Metric) string {
	switch m.Unit {
	case "s":
		return m.Name + " (s)"
	case "USD":
		return m.Name + " ($)"
	}
	return m.Name
}

// ShortVerdict is a verdict in a table's words.
func ShortVerdict(v string) string {
	switch v {
	case Higher:
		return "higher"
	case Lower:
		return "lower"
	case NoDifference:
		return "no difference"
	case NotEnough:
		return "not enough"
	case TooFew:
		return "too few"
	case NoOutcomes:
		return "no outcomes"
	}
	return "-"
}
