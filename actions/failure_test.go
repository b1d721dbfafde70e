package actions_test

import (
	"testing"

	"github.com/trajmine/trajmine/actions"
)

// failureCases are tool outputs and the rule that marks them failed ("" for
// none). Each rule has at least one output it marks and one near miss it
// leaves alone; the texts are written by hand after outputs seen in real
// SWE-agent, mini-swe-agent, Codex and OpenHands logs.
var failureCases = []struct {
	name, text, rule string
}{
	// returncode: decides both ways
	{"returncode 1", "<returncode>1</returncode>\n<output>\nboom\n</output>", "returncode"},
	{"returncode -9", "<returncode>-9</returncode>", "returncode"},
	{"returncode 0 hides a traceback", "<returncode>0</returncode>\n<output>\nTraceback (most recent call last):\n  File \"x.py\", line 1\n</output>", ""},
	// exit-code
	{"codex exit line", "Exit code: 2\nWall time: 0.1 seconds\nOutput:\n", "exit-code"},
	{"openhands bracket", "ls: cannot access\n[The command completed with exit code 1.]", "exit-code"},
	{"go test", "--- FAIL: TestX (0.00s)\nFAIL\nexit status 1\nFAIL\tpkg\t0.01s", "exit-code"},
	{"process exited", "Process exited with code 137", "exit-code"},
	{"called process error", "subprocess.CalledProcessError: Command '['make']' returned non-zero exit status 2.", "exit-code"},
	{"exit code 0 hides an error line", "Exit code: 0\nerror: nothing to commit", ""},
	{"exit code mid-line", "Running makemigrations --check...\nmakemigrations --check exited with code 1\nSUCCESS: No migration files were created.", ""},
	// timeout
	{"swe-agent timeout", "EXECUTION TIMED OUT BECAUSE THE COMMAND WAS RUNNING FOR MORE THAN 1800 SECONDS.", "timeout"},
	{"swe-agent 1.x cancel", "The command 'sleep 999' was cancelled because it took more than 30 seconds. Please try a different command.", "timeout"},
	{"mini timeout", "The last command <command>python serve.py</command> timed out and has been killed.\nThe output of the command was:\n <output>\n\n</output>", "timeout"},
	{"timed out in a log", "request timed out after 3 retries, using the cache\ndone", ""},
	// traceback
	{"traceback", "Testing...\nTraceback (most recent call last):\n  File \"/testbed/r.py\", line 3, in <module>\n    f()\nValueError: bad", "traceback"},
	{"indented traceback in a docstring", "    >>> f()\n    Traceback (most recent call last):\n    ValueError: bad", ""},
	// python-syntax-error
	{"syntax error", "  File \"/repo/a.py\", line 3\n    def f(\n         ^\nSyntaxError: '(' was never closed", "python-syntax-error"},
	{"indentation error", "IndentationError: expected an indented block", "python-syntax-error"},
	{"syntax error mentioned", "Fixed the SyntaxError: in a.py", ""},
	// command-not-found
	{"bash not found", "/bin/bash: line 1: pytest: command not found", "command-not-found"},
	{"dash not found", "sh: 1: pytest: not found", "command-not-found"},
	{"not found quoted", "echo 'bash: x: command not found' > log.txt", ""},
	// shell-syntax-error
	{"bash syntax", "/bin/bash: line 12: syntax error near unexpected token `('", "shell-syntax-error"},
	{"syntax error as data", "checking for syntax error handling... yes", ""},
	// no-such-file
	{"cat missing", "cat: a.txt: No such file or directory", "no-such-file"},
	{"python missing", "python: can't open file '/repo/x.py': [Errno 2] No such file or directory", "no-such-file"},
	{"no such file in a comment", "# may print: No such file or directory", ""},
	// error-prefix
	{"git error", "error: pathspec 'x.py' did not match any file(s) known to git", "error-prefix"},
	{"git fatal", "fatal: not a git repository (or any of the parent directories): .git", "error-prefix"},
	{"rustc", "error[E0425]: cannot find value `x` in this scope\n --> src/main.rs:2:5", "error-prefix"},
	{"pytest usage error", "ERROR: file or directory not found: tests/test_x.py\n", "error-prefix"},
	{"gcc", "main.c: In function 'main':\nmain.c:3:5: error: expected ';' before 'return'", "error-prefix"},
	{"script prints Error:", "Testing nthroot_mod(0, 4, 17)\nError: Log does not exist", ""},
	{"error mid-line in a passing run", "tests/test_errors.py::test_error_message PASSED\ntests/test_errors.py::test_no_error PASSED\n============================== 2 passed in 0.05s ===============================", ""},
	{"grep for error:", "Found 3 matches for \"error:\" in /repo:\n/repo/a.py (3 matches)", ""},
	{"indented error:", "    raise RuntimeError(\"x\")\n    # error: see above", ""},
	// test-failures
	{"pytest failed", "tests/test_a.py F.\n=================== 1 failed, 1 passed in 0.12s ===================", "test-failures"},
	{"pytest errors", "==================== 2 errors in 0.31s ====================", "test-failures"},
	{"unittest failed", "Ran 4 tests in 0.002s\n\nFAILED (failures=1, errors=1)", "test-failures"},
	{"unittest ok", "Ran 4 tests in 0.002s\n\nOK", ""},
	// edit-rejected
	{"swe-agent lint", "Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit commmand.\n\nERRORS:\n- E999 IndentationError", "edit-rejected"},
	{"edit accepted", "[File: /repo/a.py (25 lines total)]\n1:import re\nFile updated. Please review the changes.", ""},
	// not-found
	{"swe-agent open", "File reproduce.py not found", "not-found"},
	{"swe-agent find_file", "Directory src/x not found\n", "not-found"},
	{"swe-agent goto", "No file open. Use the open command first.", "not-found"},
	{"not found later", "[File: /repo/a.py (3 lines total)]\n1:# File x not found", ""},
	// nothing
	{"empty", "", ""},
	{"plain output", "a.py\nb.py\n", ""},
}

func TestInferFailure(t *testing.T) {
	for _, tc := range failureCases {
		t.Run(tc.name, func(t *testing.T) {
			rule, failed := actions.InferFailure(tc.text)
			if rule != tc.rule || failed != (tc.rule != "") {
				t.Errorf("InferFailure = %q, %v; want %q, %v", rule, failed, tc.rule, tc.rule != "")
			}
		})
	}
}

// TestFailureRulesCovered: every rule marks one case and has a doc.
func TestFailureRulesCovered(t *testing.T) {
	used := map[string]bool{}
	for _, tc := range failureCases {
		used[tc.rule] = true
	}
	seen := map[string]bool{}
	for _, r := range actions.FailureRules() {
		if !used[r.Name] {
			t.Errorf("rule %s has no case", r.Name)
		}
		if r.Doc == "" || seen[r.Name] {
			t.Errorf("rule %s: empty doc or name used twice", r.Name)
		}
		seen[r.Name] = true
	}
}

func FuzzInferFailure(f *testing.F) {
	for _, tc := range failureCases {
		f.Add(tc.text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		rule, failed := actions.InferFailure(text)
		if failed != (rule != "") {
			t.Fatalf("InferFailure(%q) = %q, %v", text, rule, failed)
		}
		// a zero return code stated first decides: nothing else marks it
		if r, f := actions.InferFailure("<returncode>0</returncode>\n" + text); f {
			t.Fatalf("returncode 0 then %q: marked %s", text, r)
		}
	})
}
