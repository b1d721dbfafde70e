package schema

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Texts returns pointers to every free-text field of rec (the fields a log
// fills with its own strings: ids, names, models, targets, text), so that
// the importer boundary can repair them and Validate can check them. It
// accepts the same records as Validate plus *Source; the closed-set fields
// (kinds, ops, end reasons) are not free text and are checked by Validate.
func Texts(rec any) []*string {
	switch r := rec.(type) {
	case *Source:
		return []*string{&r.Path, &r.SHA256, &r.Format}
	case *Run:
		return []*string{&r.RunID, &r.ParentRunID, &r.SourceFormat, &r.SourcePath, &r.SourceSHA256, &r.Harness,
			&r.Model, &r.ModelFamily, &r.TaskID, &r.EndReasonDetail, &r.Estimator, &r.ClassifiedBy, &r.ContinuesRunID, &r.OutcomeSource}
	case *Event:
		return []*string{&r.RunID, &r.Role, &r.ToolName, &r.CallID, &r.ToolKey, &r.Target, &r.Args, &r.Text, &r.ActionClass, &r.ErrorRule}
	case *Usage:
		return []*string{&r.RunID, &r.Model, &r.RequestID, &r.CopyOf}
	case *ToolOutput:
		return []*string{&r.RunID, &r.ToolKey, &r.CallID, &r.ToolName, &r.Target}
	case *ContextOp:
		return []*string{&r.RunID, &r.ToolKey, &r.Trigger, &r.Detail}
	case *Reject:
		return []*string{&r.SourcePath, &r.Reason, &r.Raw}
	case *Outcome:
		return []*string{&r.SourcePath, &r.SourceSHA256, &r.Key, &r.Detail}
	}
	return nil
}

// RepairUTF8 replaces each run of invalid UTF-8 bytes in rec's free-text
// fields (Texts) with U+FFFD and returns how many fields it changed. Valid
// fields are left as they are (checking costs one pass, no allocation).
func RepairUTF8(rec any) int { return RepairUTF8Fields(Texts(rec)...) }

// RepairUTF8Fields is RepairUTF8 of the given fields, for a caller that
// knows the record's other free-text fields are valid UTF-8.
func RepairUTF8Fields(fields ...*string) int {
	n := 0
	for _, p := range fields {
		if !utf8.ValidString(*p) {
			*p = strings.ToValidUTF8(*p, "\uFFFD")
			n++
		}
	}
	return n
}

// checkUTF8 reports the first free-text field of rec that is not valid UTF-8.
func checkUTF8(rec any) error {
	for i, p := range Texts(rec) {
		if !utf8.ValidString(*p) {
			return fmt.Errorf("%T: text field %d is not valid UTF-8", rec, i)
		}
	}
	return nil
}
