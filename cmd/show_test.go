package cmd

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trajmine/trajmine/redact"
	"github.com/trajmine/trajmine/schema"
)

// TestAmbiguousRunRedacted: an ambiguous prefix's candidates whose ids
// hold a key (AWS access key ids, as a file name can) are listed
// redacted, as show's output is, with what tells them apart (start, log
// file redacted) and how to list them as stored; the key is nowhere in
// the error. A prefix and models holding a key are redacted too; with no
// redactor (--no-redact) the ids are listed as stored, without the extra
// columns.
func TestAmbiguousRunRedacted(t *testing.T) {
	red, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	const k1, k2 = "AKIAX66S2O4A2QPOASTV", "AKIAX66S2O4A2QPOASTW"
	t1 := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	runs := []schema.Run{
		{RunID: "release-" + k2, SourceFormat: "codex-cli", Model: "gpt-5", NTurns: 3, SourcePath: filepath.Join("/logs", "release-"+k2+".jsonl")},
		{RunID: "release-" + k1, SourceFormat: "codex-cli", Model: "model-" + k1, NTurns: 1, StartedAt: &t1, SourcePath: filepath.Join("/logs", "a.jsonl")},
	}
	want := `run prefix "release-" is ambiguous: 2 runs start with it; the candidates are:
  release-[REDACTED:aws-access-token]  codex-cli  model-[REDACTED:aws-access-token]  1 call   started 2026-03-01 09:30:00  a.jsonl
  release-[REDACTED:aws-access-token]  codex-cli  gpt-5                              3 calls  start not logged             release-[REDACTED:aws-access-token].jsonl
  (secrets in the ids are redacted; trajmine show --no-redact release- lists them as stored)`
	if got := ambiguousRun("release-", runs, red).Error(); got != want {
		t.Errorf("redacted, got:\n%s\nwant:\n%s", got, want)
	}
	if got := ambiguousRun("release-"+k1[:4], runs, red).Error(); got[:40] != `run prefix "release-AKIA" is ambiguous: ` {
		t.Errorf("a prefix of a key's first letters is kept: %s", got)
	}
	wantPlain := `run prefix "release-" is ambiguous: 2 runs start with it; the candidates are:
  release-` + k1 + `  codex-cli  model-` + k1 + `  1 call
  release-` + k2 + `  codex-cli  gpt-5                       3 calls`
	if got := ambiguousRun("release-", runs, nil).Error(); got != wantPlain {
		t.Errorf("--no-redact, got:\n%s\nwant:\n%s", got, wantPlain)
	}
}

// TestShowAmbiguousRedacted: trajmine show with a prefix two imported runs
// share, their ids holding keys: the error (exit 1) lists them redacted,
// and --no-redact as stored.
func TestShowAmbiguousRedacted(t *testing.T) {
	const k1, k2 = "AKIAX66S2O4A2QPOASTV", "AKIAX66S2O4A2QPOASTW"
	dir := t.TempDir()
	servedLog(t, filepath.Join(dir, "logs", "a.jsonl"), "release-"+k1, "ok")
	servedLog(t, filepath.Join(dir, "logs", "b.jsonl"), "release-"+k2, "ok")
	d := testDeps(t, nil)
	d.DB = filepath.Join(dir, "t.duckdb")
	if _, stderr, code := run(t, d, "ingest", filepath.Join(dir, "logs")); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	_, stderr, code := run(t, d, "show", "release-")
	if code != 1 || !strings.Contains(stderr, "2 runs start with it") || strings.Contains(stderr, k1) || strings.Contains(stderr, k2) ||
		strings.Count(stderr, "release-[REDACTED:aws-access-token]  openai-messages") != 2 {
		t.Errorf("show release-: exit %d:\n%s", code, stderr)
	}
	_, stderr, code = run(t, d, "show", "--no-redact", "release-")
	if code != 1 || !strings.Contains(stderr, "release-"+k1+"  openai-messages") || !strings.Contains(stderr, "release-"+k2+"  openai-messages") {
		t.Errorf("show --no-redact release-: exit %d:\n%s", code, stderr)
	}
}
