// Package redact replaces secrets in log text (API keys, tokens,
// passwords, private keys) with a marker naming the rule that found them,
// [REDACTED:<rule-id>].
//
// The rules are gitleaks' default rule set (github.com/zricethezav/gitleaks/v8,
// its embedded gitleaks.toml: about 220 provider rules plus a generic
// key = value rule with an entropy floor), compiled once per process and
// used offline, plus one of trajmine's own that gitleaks lacks: the
// password of a URL's userinfo (URLPasswordRule, postgres://user:pw@host,
// https://user:token@host; only the password is replaced). Text is
// redacted in four steps:
//
//  1. Fast path: text with none of the rules' keywords (matched
//     case-insensitively by gitleaks' Aho–Corasick prefilter) and no
//     "://" is returned as it is, with no copy.
//  2. Otherwise gitleaks' detector runs the rules whose keywords occur
//     and reports each finding's secret (the rule's secret group, or the
//     whole match); text holding escaped quotes (\", JSON arguments) is
//     searched again with them as ` "`, since some rules end a secret
//     only at a plain quote. The generic rule, whose keywords (key,
//     token, api, …) are in most text and whose expression has no literal
//     prefix, runs only on the lines where it can match (genericWindows:
//     the same secrets, at a fifth of the cost on tool outputs).
//  3. Every occurrence of each secret in the text, longest secrets first
//     and never overlapping, is a span to replace; each URL password is
//     one too, merged with the spans it overlaps.
//  4. Each span is replaced by the marker; the count is the number of
//     spans replaced.
//
// A Redactor is safe for concurrent use and counts what it redacted.
// Records redacts the log text of a run's canonical records in place.
// What trajmine shows or writes out is redacted (the report page's
// log-derived text, trajmine show, trajmine export and mine --export,
// unless --no-redact); the store keeps the logs as they were imported.
package redact
