package synth

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Planted reuse (Options.PlantReuse): besides its planned tool calls, an
// OpenAI-messages session calls two extra tools whose reuse is known.
//
//   - ReusedTool (schema_lookup) returns a small table description
//     (8–20 columns named col_<6 hex>, 80–250 tokens). From two calls
//     after it on, each later call's text mentions, with probability ½,
//     two not yet mentioned columns of one earlier lookup: a content use
//     that trajmine counterfactual's provenance detects (the column names
//     occur nowhere else).
//   - NeverReusedTool (log_dump) returns a large job log (40–120 lines
//     with unique evt_<8 hex> ids, 800–2,500 tokens) that nothing mentions
//     again.
//
// Each model call that makes tool calls adds a lookup with probability
// 0.3 and a log dump with probability 0.3. The draws come from a source
// seeded from the session's own, so sessions without PlantReuse are
// unchanged.
const (
	ReusedTool      = "schema_lookup"
	NeverReusedTool = "log_dump"
)

type plantedCall struct{ name, args, out string }

type schemaOut struct {
	table string
	cols  []string
	next  int // cols[:next] mentioned
	call  int // the model call that made the lookup
}

type reusePlant struct {
	r       *rand.Rand
	schemas []schemaOut
	n       int
}

func newReusePlant(r *rand.Rand) *reusePlant {
	return &reusePlant{r: rand.New(rand.NewPCG(r.Uint64(), r.Uint64()))}
}

var columnTypes = []string{"bigint", "integer", "varchar(64)", "varchar(255)", "timestamp", "boolean", "numeric(12,2)", "date", "jsonb", "uuid"}

// extra returns the planted calls model call `call` makes.
func (p *reusePlant) extra(call int) []plantedCall {
	var out []plantedCall
	if chance(p.r, 0.3) {
		p.n++
		t := schemaOut{table: "t_" + randChars(p.r, hexDigits, 6), call: call}
		var b strings.Builder
		b.WriteString("table " + t.table + "\n")
		for range between(p.r, 8, 20) {
			c := "col_" + randChars(p.r, hexDigits, 6)
			t.cols = append(t.cols, c)
			b.WriteString("  " + c + "  " + columnTypes[p.r.IntN(len(columnTypes))])
			if chance(p.r, 0.3) {
				b.WriteString(" not null")
			}
			b.WriteString("\n")
		}
		p.schemas = append(p.schemas, t)
		out = append(out, plantedCall{ReusedTool, encode(obj{{"table", t.table}}), b.String()})
	}
	if chance(p.r, 0.3) {
		job := "job-" + randChars(p.r, hexDigits, 8)
		var b strings.Builder
		for i := range between(p.r, 40, 120) {
			b.WriteString("2025-03-0" + strconv.Itoa(1+i%9) + "T0" + strconv.Itoa(i%10) + ":1" + strconv.Itoa(i%6) + ":00Z INFO worker-" +
				strconv.Itoa(p.r.IntN(16)) + " evt_" + randChars(p.r, hexDigits, 8) + " processed batch " + strconv.Itoa(p.r.IntN(100000)) +
				" in " + strconv.Itoa(5+p.r.IntN(900)) + "ms\n")
		}
		out = append(out, plantedCall{NeverReusedTool, encode(obj{{"job", job}}), b.String()})
	}
	return out
}

// mention returns the text model call `call` adds to mention an earlier
// lookup's columns, or "".
func (p *reusePlant) mention(call int) string {
	if !chance(p.r, 0.5) {
		return ""
	}
	var ok []int
	for i, s := range p.schemas {
		if s.call <= call-2 && s.next+2 <= len(s.cols) {
			ok = append(ok, i)
		}
	}
	if len(ok) == 0 {
		return ""
	}
	s := &p.schemas[ok[p.r.IntN(len(ok))]]
	a, b := s.cols[s.next], s.cols[s.next+1]
	s.next += 2
	return "The query needs " + a + " and " + b + " from " + s.table + "."
}
