package redact_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/redact"
	"github.com/trajmine/trajmine/schema"
)

// the string fields Records redacts, and those it leaves (closed sets and
// computed values), per record type: a string field added to the schema
// fails TestRecordsFields until it is put in one of the two lists.
var recordFields = []struct {
	typ      reflect.Type
	redacted []string
	kept     []string
	records  func(v reflect.Value) (run *schema.Run, ev []schema.Event, us []schema.Usage, ops []schema.ContextOp)
}{
	{reflect.TypeFor[schema.Run](),
		[]string{"RunID", "ParentRunID", "SourcePath", "Model", "TaskID", "EndReasonDetail", "ContinuesRunID", "OutcomeSource"},
		[]string{"SourceFormat", "SourceSHA256", "Harness", "ModelFamily", "EndReason", "EndReasonSource", "Estimator", "ClassifiedBy"},
		func(v reflect.Value) (*schema.Run, []schema.Event, []schema.Usage, []schema.ContextOp) {
			return v.Addr().Interface().(*schema.Run), nil, nil, nil
		}},
	{reflect.TypeFor[schema.Event](),
		[]string{"RunID", "Role", "ToolName", "CallID", "ToolKey", "Target", "Args", "Text"},
		[]string{"Kind", "ActionClass", "ErrorRule"},
		func(v reflect.Value) (*schema.Run, []schema.Event, []schema.Usage, []schema.ContextOp) {
			return &schema.Run{}, []schema.Event{v.Interface().(schema.Event)}, nil, nil
		}},
	{reflect.TypeFor[schema.Usage](),
		[]string{"RunID", "Model", "RequestID", "CopyOf"},
		nil,
		func(v reflect.Value) (*schema.Run, []schema.Event, []schema.Usage, []schema.ContextOp) {
			return &schema.Run{}, nil, []schema.Usage{v.Interface().(schema.Usage)}, nil
		}},
	{reflect.TypeFor[schema.ContextOp](),
		[]string{"RunID", "ToolKey", "Trigger", "Detail"},
		[]string{"Op"},
		func(v reflect.Value) (*schema.Run, []schema.Event, []schema.Usage, []schema.ContextOp) {
			return &schema.Run{}, nil, nil, []schema.ContextOp{v.Interface().(schema.ContextOp)}
		}},
}

// TestRecordsFields plants a GitHub token and a URL password in each
// string field of a run, an event, a usage row and a context op in turn: Records
// replaces them in the fields it redacts, and leaves the others as they
// were.
func TestRecordsFields(t *testing.T) {
	secret := "GITHUB_TOKEN=" + planted["github-pat"] + " postgres://app:pw12@db/app"
	want := "GITHUB_TOKEN=[REDACTED:github-pat] postgres://app:[REDACTED:url-password]@db/app"
	for _, rf := range recordFields {
		for i := range rf.typ.NumField() {
			f := rf.typ.Field(i)
			if f.Type.Kind() != reflect.String {
				continue
			}
			t.Run(rf.typ.Name()+"."+f.Name, func(t *testing.T) {
				red, kept := slices.Contains(rf.redacted, f.Name), slices.Contains(rf.kept, f.Name)
				if red == kept {
					t.Fatalf("%s.%s is in %d of the lists: put it in one", rf.typ.Name(), f.Name, map[bool]int{true: 2, false: 0}[red])
				}
				v := reflect.New(rf.typ).Elem()
				v.Field(i).SetString(secret)
				run, ev, us, ops := rf.records(v)
				r, err := redact.New()
				if err != nil {
					t.Fatal(err)
				}
				r.Records(run, ev, us, ops, 0)
				var got reflect.Value
				switch {
				case ev != nil:
					got = reflect.ValueOf(ev[0])
				case us != nil:
					got = reflect.ValueOf(us[0])
				case ops != nil:
					got = reflect.ValueOf(ops[0])
				default:
					got = reflect.ValueOf(*run)
				}
				g := got.Field(i).String()
				if red && (g != want || r.Count() != 2) {
					t.Errorf("got %q (count %d), want %q (2)", g, r.Count(), want)
				}
				if kept && (g != secret || r.Count() != 0) {
					t.Errorf("got %q (count %d), want it kept", g, r.Count())
				}
			})
		}
	}
}

// TestRecords: the run id is redacted alike wherever it stands (the
// records still join), every event of a long run is redacted (on all
// cores), and head > 0 redacts the head of each text only.
func TestRecords(t *testing.T) {
	pat := planted["github-pat"]
	id := "run-" + pat
	tests := []struct {
		name     string
		head     int
		text     string
		wantText string
	}{
		{"whole", 0, "x=1 postgres://a:pw12@h " + strings.Repeat(".", 100) + " GITHUB_TOKEN=" + pat,
			"x=1 postgres://a:[REDACTED:url-password]@h " + strings.Repeat(".", 100) + " GITHUB_TOKEN=[REDACTED:github-pat]"},
		// the head is 40 bytes: "x=1 ", the URL (19 bytes), a space and 16 dots
		{"head", 40, "x=1 postgres://a:pw12@h " + strings.Repeat(".", 100) + " GITHUB_TOKEN=" + pat,
			"x=1 postgres://a:[REDACTED:url-password]@h " + strings.Repeat(".", 16)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := schema.Run{RunID: id}
			events := make([]schema.Event, 500)
			for i := range events {
				events[i] = schema.Event{RunID: id, Seq: int64(i), Text: tc.text}
			}
			usage := []schema.Usage{{RunID: id}}
			ops := []schema.ContextOp{{RunID: id}}
			r, err := redact.New()
			if err != nil {
				t.Fatal(err)
			}
			r.Records(&run, events, usage, ops, tc.head)
			wantID := "run-[REDACTED:github-pat]"
			if run.RunID != wantID || usage[0].RunID != wantID || ops[0].RunID != wantID {
				t.Errorf("run id %q, usage's %q, op's %q; want %q", run.RunID, usage[0].RunID, ops[0].RunID, wantID)
			}
			for i, e := range events {
				if e.RunID != wantID || e.Text != tc.wantText {
					t.Fatalf("event %d: %q, %q; want %q, %q", i, e.RunID, e.Text, wantID, tc.wantText)
				}
			}
		})
	}
	var r *redact.Redactor
	run := schema.Run{RunID: id}
	r.Records(&run, nil, nil, nil, 0)
	if run.RunID != id {
		t.Errorf("nil Redactor changed the run id to %q", run.RunID)
	}
}
