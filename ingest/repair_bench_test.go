package ingest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/synth"
)

// discardSink takes every record and keeps none: what an import costs
// before the database.
type discardSink struct{}

func (discardSink) Seen(context.Context, string) (bool, error) { return false, nil }
func (discardSink) Begin(context.Context, *schema.Source) (Tx, error) {
	return discardTx{}, nil
}

type discardTx struct{}

func (discardTx) ClaimRunID(id string) (string, error) { return id, nil }
func (discardTx) Run(*schema.Run) error                { return nil }
func (discardTx) Event(*schema.Event) error            { return nil }
func (discardTx) Usage(*schema.Usage) error            { return nil }
func (discardTx) ToolOutput(*schema.ToolOutput) error  { return nil }
func (discardTx) ContextOp(*schema.ContextOp) error    { return nil }
func (discardTx) Reject(*schema.Reject) error          { return nil }
func (discardTx) Outcome(*schema.Outcome) error        { return nil }
func (discardTx) Commit(*schema.Source) error          { return nil }
func (discardTx) Rollback() error                      { return nil }

// BenchmarkRepairUTF8 (issue 18) measures what the importer boundary's
// UTF-8 repair (repairTx: schema.RepairUTF8 on every record) costs a
// big-file ingest: one Claude Code JSONL (`synth -n $TRAJMINE_BENCH_REPAIR_N
// --seed 22 --formats claude-code --calls 3` concatenated, default N 120,
// ~55 MB) imported into a sink that keeps nothing, so that the figure is the
// share of the parse stage (the upper bound of its share of an ingest into
// DuckDB). With and without the wrapper alternate, 6 rounds each in one
// process, each going first in every other round; the medians are
// reported.
//
//	go test ./ingest -run '^$' -bench RepairUTF8 -benchtime 1x
func BenchmarkRepairUTF8(b *testing.B) {
	n := 120
	if v, err := strconv.Atoi(os.Getenv("TRAJMINE_BENCH_REPAIR_N")); err == nil && v > 0 {
		n = v
	}
	dir := b.TempDir()
	if _, err := synth.Write(filepath.Join(dir, "s"), &synth.Options{N: n, Seed: 22, Formats: []string{synth.FormatClaudeCode}, Calls: 3}); err != nil {
		b.Fatal(err)
	}
	paths, err := Expand([]string{filepath.Join(dir, "s")}, nil)
	if err != nil {
		b.Fatal(err)
	}
	big := filepath.Join(dir, "all.jsonl")
	out, err := os.Create(big)
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, p := range paths {
		in, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		m, _ := io.Copy(out, in)
		in.Close()
		size += m
	}
	out.Close()
	ctx := context.Background()
	run := func(noRepair bool) float64 {
		t0 := time.Now()
		sum, err := Files(ctx, discardSink{}, []string{big}, &Options{Format: "claude-code", SmallFile: -1, noRepair: noRepair})
		if err != nil || sum.Failed > 0 || sum.Runs != int64(n) {
			b.Fatalf("ingest: %v %v (%d runs, want %d)", err, sum.Errors, sum.Runs, n)
		}
		return float64(size) / 1e6 / time.Since(t0).Seconds()
	}
	run(false) // warm: page cache and heap
	b.ResetTimer()
	var with, without []float64
	for range b.N {
		for i := range 6 { // alternate which goes first
			if i%2 == 0 {
				with = append(with, run(false))
				without = append(without, run(true))
			} else {
				without = append(without, run(true))
				with = append(with, run(false))
			}
		}
	}
	b.StopTimer()
	med := func(v []float64) float64 { sort.Float64s(v); return v[len(v)/2] }
	w, wo := med(with), med(without)
	b.ReportMetric(w, "MB/s-repair")
	b.ReportMetric(wo, "MB/s-no-repair")
	b.ReportMetric(100*(1-w/wo), "%-cost")
	b.ReportMetric(float64(size)/1e6, "MB")
}
