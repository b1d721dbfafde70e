package schema

import (
	"reflect"
	"testing"
)

// TestTextsCoverEveryStringField checks, by reflection, that Texts returns
// every plain string field of each record (a new field left out would let
// invalid UTF-8 reach the store), and nothing else.
func TestTextsCoverEveryStringField(t *testing.T) {
	for _, rec := range []any{&Source{}, &Run{}, &Event{}, &Usage{}, &ToolOutput{}, &ContextOp{}, &Reject{}} {
		v := reflect.ValueOf(rec).Elem()
		want := map[uintptr]string{}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if f.Type == reflect.TypeOf("") { // closed sets (EventKind, OpKind, …) have types of their own
				want[v.Field(i).Addr().Pointer()] = f.Name
			}
		}
		got := map[uintptr]bool{}
		for _, p := range Texts(rec) {
			got[reflect.ValueOf(p).Pointer()] = true
		}
		for p, name := range want {
			if !got[p] {
				t.Errorf("%T.%s missing from Texts", rec, name)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%T: Texts has %d fields, the struct %d string fields", rec, len(got), len(want))
		}
	}
}

func TestRepairUTF8(t *testing.T) {
	e := Event{RunID: "r", Kind: KindToolCall, ToolName: "Re\x8dad", Text: "ok \xff\xfe end", Target: "fine"}
	if n := RepairUTF8(&e); n != 2 {
		t.Errorf("repaired %d fields, want 2", n)
	}
	if e.ToolName != "Re\uFFFDad" || e.Text != "ok \uFFFD end" || e.Target != "fine" {
		t.Errorf("got %q %q %q", e.ToolName, e.Text, e.Target)
	}
	if err := Validate(&e); err != nil {
		t.Errorf("repaired event invalid: %v", err)
	}
	bad := Event{RunID: "r", Kind: KindUser, Role: "us\x8der"}
	if err := Validate(&bad); err == nil {
		t.Error("Validate accepted invalid UTF-8")
	}
}

// TestOutputKey: a result's tool_key, else its call id, else "t<seq>"
// (the rule the tool_outputs table documents).
func TestOutputKey(t *testing.T) {
	for _, tc := range []struct {
		e    Event
		want string
	}{
		{Event{ToolKey: "k1", CallID: "c1", Seq: 4}, "k1"},
		{Event{CallID: "c1", Seq: 4}, "c1"},
		{Event{Seq: 4}, "t4"},
	} {
		if got := tc.e.OutputKey(); got != tc.want {
			t.Errorf("%+v: OutputKey() = %q, want %q", tc.e, got, tc.want)
		}
	}
}
