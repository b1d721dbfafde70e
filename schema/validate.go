package schema

import (
	"errors"
	"fmt"
	"slices"
)

// Validate checks one record against the model's invariants, among them
// that every free-text field (Texts) is valid UTF-8. It accepts *Run,
// *Event, *Usage, *ToolOutput, *ContextOp, *Reject and *Outcome.
func Validate(rec any) error {
	if err := checkUTF8(rec); err != nil {
		return err
	}
	switch r := rec.(type) {
	case *Run:
		if r.RunID == "" {
			return errors.New("run: empty run_id")
		}
		if !slices.Contains(EndReasons, r.EndReason) {
			return fmt.Errorf("run %s: invalid end_reason %q", r.RunID, r.EndReason)
		}
		if r.EndReasonSource != SourceExplicit && r.EndReasonSource != SourceInferred {
			return fmt.Errorf("run %s: invalid end_reason_source %q", r.RunID, r.EndReasonSource)
		}
		if r.NTurns < 0 || r.InputTokens < 0 || r.OutputTokens < 0 || r.CacheReadTokens < 0 || r.CacheWriteTokens < 0 || r.ReasoningTokens < 0 || r.EstTokens < 0 {
			return fmt.Errorf("run %s: negative count", r.RunID)
		}
		if r.WindowTokens != nil && *r.WindowTokens <= 0 {
			return fmt.Errorf("run %s: window_tokens %d not positive", r.RunID, *r.WindowTokens)
		}
	case *Event:
		if r.RunID == "" {
			return errors.New("event: empty run_id")
		}
		if !slices.Contains(EventKinds, r.Kind) {
			return fmt.Errorf("event %s/%d: invalid kind %q", r.RunID, r.Seq, r.Kind)
		}
		if r.Seq < 0 || r.Turn < 0 || r.Chars < 0 || r.EstTokens < 0 {
			return fmt.Errorf("event %s/%d: negative seq, turn or count", r.RunID, r.Seq)
		}
		if r.ErrorRule != "" && !r.IsError {
			return fmt.Errorf("event %s/%d: error_rule %q without is_error", r.RunID, r.Seq, r.ErrorRule)
		}
	case *Usage:
		if r.RunID == "" {
			return errors.New("usage: empty run_id")
		}
		if r.Turn < 0 || r.InputTokens < 0 || r.OutputTokens < 0 || r.CacheReadTokens < 0 || r.CacheWriteTokens < 0 || r.ReasoningTokens < 0 {
			return fmt.Errorf("usage %s/%d: negative count", r.RunID, r.Turn)
		}
		if r.CacheReadTokens+r.CacheWriteTokens > r.InputTokens {
			return fmt.Errorf("usage %s/%d: cache tokens %d exceed input tokens %d", r.RunID, r.Turn, r.CacheReadTokens+r.CacheWriteTokens, r.InputTokens)
		}
	case *ToolOutput:
		if r.RunID == "" || r.ToolKey == "" {
			return errors.New("tool_output: empty run_id or tool_key")
		}
		if r.Turn < 0 || r.Chars < 0 || r.EstTokens < 0 {
			return fmt.Errorf("tool_output %s/%s: negative count", r.RunID, r.ToolKey)
		}
	case *ContextOp:
		if r.RunID == "" {
			return errors.New("context_op: empty run_id")
		}
		if !slices.Contains(OpKinds, r.Op) {
			return fmt.Errorf("context_op %s/%d: invalid op %q", r.RunID, r.Seq, r.Op)
		}
		if (r.Op == OpEnable || r.Op == OpDisable) && r.ToolKey == "" {
			return fmt.Errorf("context_op %s/%d: %s without tool_key", r.RunID, r.Seq, r.Op)
		}
	case *Reject:
		if r.SourcePath == "" || r.Reason == "" {
			return errors.New("reject: empty source_path or reason")
		}
	case *Outcome:
		return validateOutcome(r)
	default:
		return fmt.Errorf("validate: unsupported record type %T", rec)
	}
	return nil
}
