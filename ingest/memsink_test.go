package ingest

import (
	"context"
	"testing"

	"github.com/trajmine/trajmine/schema"
)

// TestMemSinkClaimsAcrossOpenTransactions: two files imported at once that
// hold the same run id get distinct ids, as in the store (a claim by a
// transaction not yet committed counts).
func TestMemSinkClaimsAcrossOpenTransactions(t *testing.T) {
	var m MemSink
	ctx := context.Background()
	a, _ := m.Begin(ctx, &schema.Source{SHA256: "aaaaaaaaaaaa"})
	b, _ := m.Begin(ctx, &schema.Source{SHA256: "bbbbbbbbbbbb"})
	ia, _ := a.ClaimRunID("run")
	ib, _ := b.ClaimRunID("run")
	if ia == ib {
		t.Fatalf("both transactions got %q", ia)
	}
	if err := a.Rollback(); err != nil {
		t.Fatal(err)
	}
	c, _ := m.Begin(ctx, &schema.Source{SHA256: "cccccccccccc"})
	if ic, _ := c.ClaimRunID("run"); ic != "run" {
		t.Errorf("after the rollback the id is free again, got %q", ic)
	}
}
