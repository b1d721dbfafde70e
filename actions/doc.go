// Package actions classifies tool calls into action classes: read, search,
// edit, execute, test, context, submit, or other when no rule says.
//
// The class of a call comes from its tool name and arguments
// (schema.Event.ToolName and Args) and the run's harness, by an ordered list
// of rules:
//
//  1. build a Classifier with New: the user's rules (LoadRules reads them from
//     a YAML or JSON mapping file) are tried before the defaults;
//  2. call Classify(harness, tool, args) for each tool call: it returns the
//     class and the Rule that decided, so every class can be explained
//     ("rules.yaml:3: tool=Bash command~^make check → test");
//  3. count: the share of Other is what the rules do not cover yet.
//
// The defaults cover the tools of every harness in the shared corpus. Shell
// tools (bash, Bash, shell, exec_command, execute_bash, run_shell_command,
// command_execution, …) are classified by their command line, split into
// simple commands by a small shell lexer (quotes, pipelines, &&, ;, bash -c,
// here-documents); the most significant command decides, so
// "cd /repo && python -m pytest | tail" is a test and
// "cat <<'EOF' > fix.py" an edit.
//
// The package also holds the failure rules (FailureRules, InferFailure):
// an ordered list of text rules by which a tool output whose log carries
// neither an error flag nor an exit code is inferred to have failed
// (a Python traceback, "command not found", a non-zero exit code stated in
// the text …); ingest stores the deciding rule with the output.
//
// Invariants: Classify never fails and never panics, whatever the
// arguments (invalid JSON just has no arguments to match); LoadRules reports
// a bad file as a *SyntaxError with its line and never panics; the rules,
// and so the classes, depend on nothing but the inputs. The package imports
// no other trajmine package.
package actions
