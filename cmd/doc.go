// Package cmd is trajmine's command line: one cobra command per file, each with
// an Options struct, a constructor (NewIngestCmd, NewMineCmd, …) taking an
// optional run hook (so tests can check flag parsing without running
// anything) and a run function (ingestRun, mineRun, …) tested with buffers. It opens the store (internal/store) and hands it to
// ingest, as its sink, and to package analysis, which reads it and feeds the
// domain packages (diagnose, simulate, recommend, mining, …); it is the only
// package that reads flags and environment, and decides exit codes.
package cmd
