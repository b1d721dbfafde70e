// Package eventlog writes runs as process-mining event logs: XES (IEEE
// 1849-2016) for case-centric tools and OCEL 2.0 JSON for object-centric
// ones, so that ProM, pm4py, Disco, Celonis and OCEL tools can read
// trajmine's canonical records.
//
// Data flow:
//
//  1. a Source streams runs, each a RunRecords (the schema.Run with its
//     events in seq order and its context ops); store.Scan adapts to it in
//     cmd, Records builds one from in-memory records;
//  2. an ActivityFunc names each event's activity (DefaultActivity: the tool
//     name of tool calls and results, else the event kind; cmd passes
//     action classes) and an OpActivityFunc each context op's
//     (DefaultOpActivity: "context.<op>"); an empty name drops the record;
//  3. WriteXES or WriteOCEL writes one log to an io.Writer, holding one run
//     at a time, and returns Stats.
//
// WriteMinedXES writes a mined log instead (MinedTrace: one event per mined
// activity, as trajmine mine's DFG counts them), with times made strictly
// increasing and synthetic for runs that log none (its doc states the
// rule), so that tools which order by time and drop untimed events get the
// same directly-follows graph; the invariants below are WriteXES's.
//
// Invariants:
//   - one log event per schema event and per context op (XES: per op row;
//     OCEL: per group of rows sharing seq and op kind), in seq order, each op
//     after the event it was read from (see walk);
//   - nothing is invented: XES events without a logged time carry no
//     time:timestamp; OCEL, which requires a time, gets a documented estimate
//     flagged time_estimated=true (see WriteOCEL);
//   - every attribute is typed, attributes are sorted by key, ids are built
//     from run ids, seqs and tool keys only, so the same input gives the same
//     bytes;
//   - text from logs passes through clean (invalid UTF-8 → U+FFFD; characters
//     XML 1.0 forbids dropped) and is escaped by encoding/xml or for JSON, so
//     hostile text (markup, "]]>", NUL, control bytes) cannot break either
//     document.
//
// Both writers are validated in tests against the official schemas kept in
// testdata (the IEEE 1849-2016 XES XSD with xmllint, the OCEL 2.0 JSON
// schema with a JSON-schema validator), on hand-built runs and on the shared
// corpus; testdata/README.md says where the schemas come from and how the
// XES XSD's known defects are handled.
package eventlog
