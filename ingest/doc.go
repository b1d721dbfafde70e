// Package ingest turns agent logs of many formats into trajmine's canonical
// records (package schema) and hands them to a Sink it declares; the DuckDB
// store implements the Sink, so this package stays cgo-free and testable
// with an in-memory sink.
//
// Typical steps (Files does them for a list of paths):
//
//  1. Walk the inputs (a directory that cannot be read is reported and the
//     walk goes on); open each file without blocking and skip it unless it is
//     a regular file (a FIFO or device could block or never end); read its
//     head (readHead: past a first line longer than HeadSize to the lines
//     after it) and Detect its format (or take the one forced with
//     Options.Format, trajmine ingest --format). One bad line among the
//     first ones does not defeat detection (DetectFormat's second look,
//     majorityHead). A leading UTF-8 byte order mark is dropped for every
//     format.
//  2. Hash the file; a sha256 the Sink has Seen is skipped (re-import is a
//     no-op). A file of at most Options.SmallFile bytes is kept in memory
//     as read; of a larger one, the number of bytes hashed is noted.
//  3. Begin a transaction on the Sink, run the format's Importer, which feeds a
//     run builder per run; Commit on success, Rollback on a fatal error, so one
//     file's import is all-or-nothing. Files are parsed in parallel and
//     stored in the order of their sorted paths (pipeline.go: a small file
//     parsed into memory joins the sink's open batch, one transaction for
//     many files, and is dropped; a large one streams into its own
//     transaction in its turn), so the tables are
//     those of an ingest of the files one by one. The importer reads exactly the bytes hashed (the copy in memory, or the
//     file's first bytes, checked before the commit against the bytes
//     hashed: hashed again, or, for a file hashed while it is imported,
//     fingerprinted as they are read; a large file of a size the Sink
//     holds no file of is hashed only as it is read, its transaction begun
//     before the hash is known: UnhashedSink, hashlazy.go), so a source row covers
//     what was imported even when the file grows or changes meanwhile.
//  4. When every file is committed, a FinishSink Finishes: what spans
//     files, such as the store marking the usage rows a resumed session
//     copies from the session it continues; then an OutcomeSink applies
//     the outcome rows it holds to its runs (ApplyOutcomes), and the
//     Summary counts the outcome files and the runs given an outcome.
//
// A SQLite database (an agent's store: Goose 1.10+, OpenCode, Hermes, Kiro CLI, Cursor IDE)
// is not read as a head: prepare copies it with its -wal and -journal into
// a private temporary folder (hashing what it copies), detects its format
// from its tables on the copy, and its importer (a storeImporter) reads the
// copy, never the agent's file (sqlite.go).
//
// Outcome files (a SWE-bench report.json or results.json, predictions,
// Harbor and terminal-bench results, a plain CSV or JSONL: outcomes.go) are
// detected and imported like logs, but make outcome rows (File.Outcome,
// schema.Outcome) instead of runs. A flat report.json takes its instance
// from its folder, so such files are one import per path, not per sha256
// (PathKeyed). Options.Outcomes imports outcome files only (trajmine
// outcomes).
//
// The run builder is where the canonical meaning lives, shared by all formats:
// it numbers events (seq), assigns turns (the model call an event belongs to),
// estimates tokens, normalises tool targets, links tool results to their calls,
// unwraps DTOC envelopes {"tool_key","tool_result","estimated_tokens"} into
// tool_outputs keyed by the envelope's key, turns manage_context(enable,disable)
// calls into one context_ops row per key, and sums logged usage into run totals.
//
// A malformed record becomes a *SyntaxError ("file:line: reason"): reported
// through Options.Warn and stored as a schema.Reject, and the rest of the file
// still imports; with Options.Strict it aborts the file instead. A reason
// that is a JSON decoder's error is in plain words ("field
// usage.input_tokens: a number was expected, got \"3\"", jsonx.Explain).
//
// Bad bytes cost the byte, not the record or the file: raw control
// characters inside JSON strings are escaped before an importer reads the
// input (repair.go: jsonInput, repairJSONText), and invalid UTF-8 in every
// text field of every record is made U+FFFD after it (repairTx); both are
// counted in the source's Repairs.
//
// Each importer has its own file, named for its format (the outcome
// formats: swebench_report.go, swebench_results.go, swebench_preds.go,
// harbor_result.go, terminal_bench_results.go, outcome_table.go; a large one keeps
// its parts beside it: atif_files.go, cline_task_folder_history.go,
// gemini_jsonl.go, harbor_traces.go, inspect_archive.go,
// opencode_storage.go, openhands_values.go, swe_agent_actions.go,
// vscode_copilot_chat_log.go). What
// several importers share has a file named for what it does:
//
//   - formats.go: the registration of every importer in detection order,
//     with its name and description (formatInfo), and the corpus folders
//     it is tested on; agent_fixtures.go: the public agent fixtures of
//     testdata/agents each importer is tested on (AgentFixtures, which
//     trajmine formats prints).
//   - lines.go and jsondoc.go: the two ways an importer reads its input.
//     lineReader (lines.go) reads a file line by line, each line decoded
//     into a record type (jsonRecord by default, jsonValue, or the
//     format's own decoder), with a parallel option (decode on every core,
//     handle in order); a line the decoder refuses is rejected at its line
//     and the rest read on. File.Lines is the same reader without
//     decoding, for importers whose decoding of a line depends on what came
//     before. readDocument (jsondoc.go) reads a file whole, once, as a
//     jsonDoc: values split off with their offsets (objectFields,
//     arrayElems, d.object, d.array), array elements decoded one by one
//     (decodeElems), the whole decoded (d.decode), every problem rejected
//     at its line (the lineIndex, made on first use); readJSONDoc,
//     readJSONObject and docRun are readDocument for a file that must be
//     JSON, one object, one run.
//   - detect.go: every helper of Detect: headLines, firstLines, anyJSONL
//     and detectJSONL (a JSONL head's first records), lineDecodes (whether
//     a line decodes, with no error made: the test every detector puts to
//     a line, issue 33); majorityHead, the
//     second look DetectFormat takes without the lines most first lines
//     disagree with (issue 30.12); headKeys, topKeys, firstElemKeys and the
//     token steps (skipValue, skipRest, enter, nextKey), the keys at the
//     head of a document cut off at HeadSize. detect_reduce.go: one scan
//     of a head's lines for all the JSONL detectors (spansOf), each
//     decoding only the members its struct may read (issue 33).
//   - jsonscan.go: the one byte-level JSON scanner (jsonSkipValue,
//     jsonEachField, jsonEachElem, jsonFieldAt) for heads and offsets,
//     without decoding. jsonspan.go: the one-pass reading of a line that
//     validJSON has checked (spanMembers, spanElems, spanStr, spanKey;
//     spanTape, where its long values end), for a decoder that reads each
//     line once (claude_code_decode.go) and falls back to the JSON decoder
//     on anything it is not sure of; canonical.go: canonicalFast, the same
//     reading for CanonicalJSON.
//   - jsonobj.go: jsonObject, a leniently read object for loosely typed chat
//     logs, and toolCallFields; jsonutil.go: values read one way for every
//     format (ParseTime, ContentText, jsonString, jsonArgs, valueText,
//     scalarString) and oaToolCall.
//   - genai_values.go, genai_messages.go, genai_emitter.go: the generic GenAI
//     payloads of the otel-genai-spans, langfuse and opencode importers (gai*).
//   - heldusage.go: heldUsage, a call's usage logged before its outputs
//     (codex, openhands-sdk).
//   - outcomes.go: what the outcome formats share: their marks
//     (IsOutcomeFormat, PathKeyed), an outcome row (outcomeRow), the
//     readings of resolved and score values, the id a file's place gives
//     (placeID).
//   - sqlite.go, sqlite_values.go: the SQLite stores' snapshot, detection
//     and positioned rejects ("file: table T row N: …"), and the reading
//     of loosely typed column values; places.go: the standard places of
//     every agent's logs (Places, Discover).
//   - textutil.go: small string helpers (fileStem, clipQuote, clipText);
//     errors.go: SyntaxError and clipErr.
//   - unread.go: unreadTypes, the records of types an importer does not
//     read, named once per file with their count at the first one's line
//     (a reject per type, not per line: issue 30.1).
//   - repair.go: the importer boundary's repairs (jsonInput and
//     repairJSONText before the importer, repairTx after it).
//   - gctune.go: the garbage collector's settings while Files runs
//     (tuneGC: a higher percent under a memory limit, issue 33).
//
// # Adding an importer
//
// The template is cursor_agent.go, a small JSONL importer read through
// lineReader (a whole-document format: hermes_agent.go, on docRun and
// decodeElems), with its tests in cursor_agent_test.go and its fixture
// folder testdata/cursor-agent-transcripts/ (the log, its LICENSE and a
// README naming its source and its hand counts). A new format touches:
//
//  1. <format>.go: a type embedding formatInfo, with Detect (on
//     detect.go's helpers: anyJSONL or detectJSONL for JSONL, headKeys for
//     a document; a JSONL detector that reads the first line only or
//     every line is helped by majorityHead, so that TestDetectOneBadLine
//     passes) and Import (on lineReader or readDocument; rows through
//     f.NewRun's RunBuilder, bad records through f.Reject).
//  2. formats.go: register(priority, …) with the name --format takes and
//     its one-line description, and its corpusFolders (and alsoReads).
//  3. <format>_test.go: table-driven tests on testdata/<format>/ with hand
//     counts; detect_internal_test.go (TestDetectFormat's rules) and
//     corpus_more_test.go (TestNoForeignClaims over every corpus file and
//     every fixture of testdata/ — a file of testdata/<format>/ must be
//     claimed by <format> alone, exceptions in fixture_claims_test.go —
//     the per-folder goldens under testdata/corpus-more/, the TestIssue21LineRejects
//     tables) when it has a corpus folder; corpus_golden_test.go's goldens
//     are regenerated with -update and reviewed. A format that reads the
//     agents of testdata/agents/ (issue 30's real fixtures with hand
//     counts) names its folder in fixture_claims_test.go's
//     agentFolderFormats and in agent_fixtures.go's agentFixtures (agent,
//     versions, source: TestAgentFixturesListed keeps the two in step) and
//     tests it against the folder's counts.json (agents_drift_test.go,
//     goose_jsonl_test.go).
//  4. fuzz_test.go: a fuzzTable entry with the fixtures as seeds.
//  5. TestDetectOneBadLine (detect_badline_internal_test.go) covers a new
//     JSONL format by itself once a .jsonl fixture is detected as it; add
//     it to jsonlFormatsCovered, and to badLineKeys the key its records
//     cannot do without if it is none of those listed.
//  6. The formats listing: trajmine formats prints Describe (cmd/formats.go
//     and its golden); README's formats table names the agent and the
//     versions its fixtures come from.
//  7. readerversion.go: a new format starts at 1 (no entry). Raise a
//     format's version, with a line saying why, whenever its importer reads
//     the same bytes into other rows, so that stores read it again; a
//     change of detection alone raises nothing.
//
// An agent's SQLite store is read by a storeImporter instead (template
// goose_db.go; sqlite.go): Detect is false, claims recognises the store by
// its tables and columns on the snapshot prepare takes, importDB reads its
// rows (f.scanTable, the values through sqlite_values.go's readers, bad
// rows through f.rejectRow, "file: table T row N: …"). Its tests build the
// store from the fixture's SQL (sqlite_test.go, sqlite_rules_test.go), and
// FuzzStoreValues (sqlite_fuzz_test.go) fuzzes its JSON columns: a
// fuzzTable entry does not fit, since a damaged database may fail.
//
// Package internal/jsonx decodes with goccy/go-json and error messages that
// name the JSON field and the problem in plain words.
package ingest
