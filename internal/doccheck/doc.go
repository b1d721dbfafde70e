// Package doccheck finds doc comments that name identifiers which do not
// exist: a function renamed, a type folded into another, a method moved,
// while the comments that named them stayed. Its test runs Check over
// every package of the module, so `go test ./...` (and CI) fails on such a
// comment.
//
// Typical steps:
//
//  1. Load parses every package of a module (its non-test Go files, with
//     comments; testdata, vendor and hidden directories left out) and
//     collects, per package, what it declares: functions, types,
//     variables and constants, methods (also as T.M), struct fields and
//     interface methods (also as T.F), and per declaration the names of
//     its parameters and results.
//  2. Check reads the doc comments of each package: the package doc and
//     every declaration's (functions, types, their fields, variables,
//     constants; the comments above them, not those that trail a line),
//     without their code blocks (the lines gofmt indents with a tab), and
//     takes the words that stand where code would (Words): A.B and A.B.C
//     forms, [Name] doc links, backquoted identifiers, and words shaped
//     like Go identifiers with a capital after a lower-case letter
//     ("reportData", "RecommendStore"). Text in double quotes is data, not
//     code: a name from outside Go (a JSON key, an event type) is written
//     so.
//  3. Each word is resolved (resolve, by the rules below), and the ones
//     that resolve to nothing are reported as "file:line: …".
//
// A word resolves when:
//
//   - A.B, A a package of the module: B is declared there (A.B.C: C is a
//     member of A's type B);
//   - A.B, A a type of the package, or else of another package of the
//     module: B is a method or field of A (or of a type A embeds);
//   - A.B, A an import of the file (a package outside the module), or A
//     not shaped like a type (o.Export, runs.run_id, e.g.): always (not
//     checked);
//   - a single word: it is declared in the package, is a parameter or
//     result of the declaration it documents, is declared in another
//     package of the module or in a test file, is a word of the module's
//     string literals (a JSON key the code reads; in lower case, a
//     product's name: DuckDB, "duckdb"), is exported by a package the
//     file imports, is the plural of one of these, or is in Known, a
//     short list of names from outside Go (products, browser APIs), each
//     with its reason.
//
// Only what a word can be checked against is checked: a name in a
// package outside the module is taken on trust unless the file imports
// that package (then its exports are read from its source, through
// go/build). The check reads source only; it does not type-check.
package doccheck
