// Package redact replaces secrets in log text (API keys, tokens,
// passwords, private keys) with a marker naming the rule that found them,
// [REDACTED:<rule-id>].
//
// The rules are gitleaks' default rule set (github.com/zricethezav/gitleaks/v8,
// its embedded gitleaks.toml: about 220 provider rules plus a generic
// key = value rule with an entropy floor), compiled once per process and
// used offline. Text is redacted in three steps:
//
//  1. Fast path: text with none of the rules' keywords (matched
//     case-insensitively by gitleaks' Aho–Corasick prefilter) is returned
//     as it is, with no copy.
//  2. Otherwise gitleaks' detector runs the rules whose keywords occur
//     and reports each finding's secret (the rule's secret group, or the
//     whole match).
//  3. Every occurrence of each secret in the text, longest secrets first
//     and never overlapping, is replaced by the marker; the count is the
//     number of occurrences replaced.
//
// A Redactor is safe for concurrent use and counts what it redacted.
// Only what trajmine shows is redacted (the report page's log-derived
// text, trajmine show); the store keeps the logs as they were imported.
package redact
