package actions

import (
	"regexp"
	"strconv"
	"strings"
)

// Failure rules: whether a tool output failed, read from its text. Many
// logs give a tool result neither an error flag nor an exit code (SWE-agent
// observations, OpenAI tool messages, ATIF observations, OpenTelemetry
// tool spans without an error status …); their failures are only in what
// the command printed. Importers apply these rules to such outputs alone:
// where a log records is_error or an exit code, that wins, and an output
// the rules mark is stored with the rule's name (events.error_rule), so
// that every inferred failure can be told from a logged one.

// FailureRule is one rule by which a tool output's text says that it
// failed.
type FailureRule struct {
	// Name identifies the rule; it is stored with the output it marked.
	Name string
	// Doc says what the rule matches.
	Doc string
	// check returns failed (+1), succeeded (-1: the text states a zero exit
	// code, and no later rule applies) or no opinion (0).
	check func(text string) int
}

// The verdicts of FailureRule.check.
const (
	verdictNone      = 0
	verdictFailed    = 1
	verdictSucceeded = -1
)

var (
	// <returncode>N</returncode>: mini-swe-agent's observation template
	failReturnCode = regexp.MustCompile(`<returncode>\s*(-?\d+)\s*</returncode>`)
	// a line that states an exit code: "Exit code: 1", "exit status 2",
	// "[Command finished with exit code 1]", "process exited with code 1"
	failExitLine = regexp.MustCompile(`(?im)^[ \t\[(]*(?:(?:the )?(?:command|process) (?:finished|completed|exited|failed|terminated) with (?:exit )?(?:code|status)|exit(?:ed with)? (?:code|status))[ \t:=]+(-?\d+)`)
	// Python's subprocess.CalledProcessError
	failNonZero = regexp.MustCompile(`returned non-zero exit status (\d+)`)
	// dash: "sh: 1: foo: not found"
	failDashNotFound = regexp.MustCompile(`(?m)^\S*sh: \d+: .+: not found\s*$`)
	// bash: "/bin/bash: line 3: syntax error near unexpected token"
	failShellSyntax = regexp.MustCompile(`(?m)^\S+: line \d+: syntax error`)
	// "cat: a.txt: No such file or directory", "python: can't open file
	// '/x.py': [Errno 2] No such file or directory"
	failNoSuchFile = regexp.MustCompile(`(?m)^[\w./+-]+: .*No such file or directory`)
	// "error: …", "error[E0425]: …", "fatal: …", "ERROR: …", and a compiler's
	// "main.c:3:5: error: …"
	failErrorPrefix = regexp.MustCompile(`(?m)^(?:(?:error(?:\[\w+\])?|fatal|ERROR): |\S+:\d+(?::\d+)?: (?:fatal )?error: )`)
	// pytest's summary "==== 1 failed, 3 passed in 0.12s ====" (or "2
	// errors"); unittest's "FAILED (failures=1)" / "FAILED (errors=2)"
	failPytest   = regexp.MustCompile(`(?m)^=+ .*\b\d+ (?:failed|errors?)\b.* in [\d.]+.*=+\s*$`)
	failUnittest = regexp.MustCompile(`(?m)^FAILED \((?:failures|errors)=\d+`)
	// SWE-agent's commands: "File x not found", "Directory x not found",
	// "No file open. Use the open command first."
	failSWENotFound = regexp.MustCompile(`^\s*(?:(?:File|Directory) \S.* not found|No file open\. Use the open command first\.)\s*(?:\n|$)`)
)

// failureRules are the rules InferFailure tries, in order.
var failureRules = []FailureRule{
	{"returncode", "<returncode>N</returncode> (mini-swe-agent's observation template): N ≠ 0 failed; N = 0 succeeded and no later rule applies",
		func(t string) int {
			if !strings.Contains(t, "<returncode>") {
				return verdictNone
			}
			return codeVerdict(failReturnCode.FindStringSubmatch(t))
		}},
	{"exit-code", "a line that begins with an exit code statement (\"Exit code: 1\", \"exit status 2\", \"[Command finished with exit code 1]\", \"exited with code 1\"), or \"returned non-zero exit status N\": non-zero failed; zero succeeded and no later rule applies",
		func(t string) int {
			if !strings.Contains(t, "xit") && !strings.Contains(t, "XIT") {
				return verdictNone
			}
			if v := codeVerdict(failExitLine.FindStringSubmatch(t)); v != verdictNone {
				return v
			}
			return codeVerdict(failNonZero.FindStringSubmatch(t))
		}},
	{"timeout", "the harness killed the command: SWE-agent's \"EXECUTION TIMED OUT…\" or \"… was cancelled because it took more than N seconds\", mini-swe-agent's \"… timed out and has been killed\"",
		func(t string) int {
			if lineStarting(t, "EXECUTION TIMED OUT") || strings.Contains(t, "timed out and has been killed") ||
				strings.Contains(t, "was cancelled because it took more than") {
				return verdictFailed
			}
			return verdictNone
		}},
	{"traceback", "a line that begins with \"Traceback (most recent call last):\" (an uncaught Python exception)",
		func(t string) int { return found(lineStarting(t, "Traceback (most recent call last):")) }},
	{"python-syntax-error", "a line that begins with \"SyntaxError: \", \"IndentationError: \" or \"TabError: \" (Python prints these without a traceback when the script does not compile)",
		func(t string) int {
			return found(lineStarting(t, "SyntaxError: ") || lineStarting(t, "IndentationError: ") || lineStarting(t, "TabError: "))
		}},
	{"command-not-found", "a line that ends with \": command not found\" (bash) or reads \"sh: N: NAME: not found\" (dash)",
		func(t string) int {
			if strings.Contains(t, ": command not found") {
				for _, l := range linesWith(t, ": command not found") {
					if strings.HasSuffix(strings.TrimRight(l, " \t\r"), ": command not found") {
						return verdictFailed
					}
				}
			}
			return found(strings.Contains(t, ": not found") && failDashNotFound.MatchString(t))
		}},
	{"shell-syntax-error", "a line like \"/bin/bash: line 3: syntax error near unexpected token\"",
		func(t string) int {
			return found(strings.Contains(t, ": syntax error") && failShellSyntax.MatchString(t))
		}},
	{"no-such-file", "a line that begins with a program's name and says \"No such file or directory\" (\"cat: a.txt: No such file or directory\")",
		func(t string) int {
			return found(strings.Contains(t, "No such file or directory") && failNoSuchFile.MatchString(t))
		}},
	{"error-prefix", "a line that begins with \"error:\", \"error[CODE]:\", \"fatal:\" or \"ERROR:\" (git, rustc, cargo, pip, pytest, Django's test runner), or a compiler's \"FILE:LINE[:COL]: error:\"; not \"Error:\", which scripts print as they run",
		func(t string) int {
			return found((strings.Contains(t, "rror") || strings.Contains(t, "fatal:") || strings.Contains(t, "ERROR:")) && failErrorPrefix.MatchString(t))
		}},
	{"test-failures", "a test run's summary reports failures: pytest's \"==== N failed … in Ts ====\" or \"N error(s)\", unittest's \"FAILED (failures=N)\" / \"FAILED (errors=N)\"",
		func(t string) int {
			return found(strings.Contains(t, " in ") && (strings.Contains(t, " failed") || strings.Contains(t, " error")) && failPytest.MatchString(t) ||
				strings.Contains(t, "FAILED (") && failUnittest.MatchString(t))
		}},
	{"edit-rejected", "SWE-agent's linter refused an edit: the output begins with \"Your proposed edit has introduced new syntax error(s)\"",
		func(t string) int {
			return found(strings.HasPrefix(strings.TrimLeft(t, " \t\r\n"), "Your proposed edit has introduced new syntax error(s)"))
		}},
	{"not-found", "a SWE-agent command's complaint on the first line: \"File X not found\", \"Directory X not found\", \"No file open. Use the open command first.\"",
		func(t string) int { return found(failSWENotFound.MatchString(t)) }},
}

// FailureRules returns the failure rules in the order InferFailure tries
// them.
func FailureRules() []FailureRule {
	return append([]FailureRule(nil), failureRules...)
}

// InferFailure reports whether a tool output's text says that it failed,
// and the rule that says so. The rules are tried in order (FailureRules);
// the first with a verdict decides, so a text that states a zero exit code
// (returncode, exit-code) is not failed whatever it prints after. Use it
// only for outputs whose log carries neither an error flag nor an exit
// code: a flag the log records is better evidence than any text rule.
//
// It never panics; its answer depends on text alone.
func InferFailure(text string) (rule string, failed bool) {
	for i := range failureRules {
		switch failureRules[i].check(text) {
		case verdictFailed:
			return failureRules[i].Name, true
		case verdictSucceeded:
			return "", false
		}
	}
	return "", false
}

// codeVerdict reads an exit code from the first submatch of m.
func codeVerdict(m []string) int {
	if m == nil {
		return verdictNone
	}
	if n, err := strconv.ParseInt(m[1], 10, 64); err == nil && n == 0 { // out of range: not zero
		return verdictSucceeded
	}
	return verdictFailed
}

func found(ok bool) int {
	if ok {
		return verdictFailed
	}
	return verdictNone
}

// lineStarting reports whether a line of text begins with prefix.
func lineStarting(text, prefix string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], prefix)
		if j < 0 {
			return false
		}
		if k := i + j; k == 0 || text[k-1] == '\n' {
			return true
		}
		i += j + 1
	}
}

// linesWith returns the lines of text that contain s.
func linesWith(text, s string) []string {
	var out []string
	for i := 0; ; {
		j := strings.Index(text[i:], s)
		if j < 0 {
			return out
		}
		k := i + j
		start := strings.LastIndexByte(text[:k], '\n') + 1
		end := strings.IndexByte(text[k:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += k
		}
		out = append(out, text[start:end])
		i = end
		if i >= len(text) {
			return out
		}
	}
}
