package ingest

import (
	"bytes"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// aider reads aider's chat history (.aider.chat.history.md), the Markdown
// file aider appends every session to. Its writer (aider/io.py) has four
// kinds of lines:
//
//	# aider chat started at 2024-08-05 14:02:11   a session (one run)
//	#### text                                      user input, one line each
//	> text                                         aider's own output (tool_output,
//	                                               tool_error): only the first line
//	                                               of a message is quoted, and the
//	                                               message ends with two spaces
//	anything else                                  the model's reply, as Markdown
//
// Steps:
//  1. Cut the file into blocks: headers, user blocks (consecutive ####
//     lines), aider messages ("> " line plus, when the file keeps aider's
//     two-space line ends, its unquoted continuation lines up to the one
//     ending in two spaces) and reply blocks (the other lines).
//  2. Each header starts a run ("aider-<start time>", started_at = that
//     time); text before any header goes to a run named after the file.
//     Messages before the first user input or reply (the launch banner)
//     only name the model: "Model: X", "Models: X", "Main model: X".
//  3. A user block → a user event; "/ask", "/code", "/architect" and
//     "/context" are messages too; "/clear" and "/reset" → a context_op
//     event with a truncation op (the history is dropped); other commands
//     (/add, /run, !cmd, …) are not sent to the model and make no event.
//  4. A reply block is one model call (RunBuilder.NewCall) with one
//     assistant event. Aider messages logged after a reply and before the
//     next reply without user input in between were sent back to the model
//     (a reflection: failed edits, lint or test errors): they become one user
//     event (role "aider") before that next reply; otherwise the model never
//     saw them and they make no event.
//  5. "Tokens: X sent[, W cache write][, H cache hit], Y received." is the
//     usage of the reply before it (1.2k and 3.4M forms are expanded; X is
//     the input, including the cache); "Cost: $A message, $B session." sets
//     the run's cost to B. "Applied edit to P" → an edit tool_call (args
//     {"path": P}) of that reply and its tool_result, linked by position.
//     "Commit …" lines are aider's git bookkeeping and are skipped.
//  6. End reasons (explicit, cleared again when the session goes on):
//     "has hit a token limit" → an error event, context_overflow when the
//     context window was exhausted, else error; "larger than the context
//     window" and "exceeds the … token limit" → context_overflow; "Only N
//     reflections allowed, stopping." → step_limit; "^C …" → interrupted.
//     Otherwise a session that ends after a reply is finished (inferred).
type aider struct{ formatInfo }

const adHeaderPrefix = "# aider chat started at"

// Detect claims Markdown whose first line is an aider session header, or a
// file named .aider.chat.history.md with aider's #### user lines.
func (aider) Detect(name string, head []byte) bool {
	t := trimHead(head)
	if bytes.HasPrefix(t, []byte(adHeaderPrefix)) {
		return true
	}
	if !strings.HasSuffix(strings.ToLower(filepath.Base(name)), ".aider.chat.history.md") {
		return false
	}
	return bytes.Contains(head, []byte("\n"+adHeaderPrefix)) || bytes.HasPrefix(t, []byte("#### ")) || bytes.Contains(head, []byte("\n#### "))
}

var (
	adModelLine = regexp.MustCompile(`^(?:Main model|Models?): (\S+)`)
	adTokens    = regexp.MustCompile(`^Tokens: ([\d.,]+[kKmM]?) sent(?:, ([\d.,]+[kKmM]?) cache write)?(?:, ([\d.,]+[kKmM]?) cache hit)?, ([\d.,]+[kKmM]?) received\.`)
	adCost      = regexp.MustCompile(`Cost: \$([\d.]+) (?:message|request), \$([\d.]+) session\.`)
	adApplied   = regexp.MustCompile(`^(?:Applied edit to|Did not apply edit to) (.+?)(?: \(--dry-run\))?$`)
	adCommit    = regexp.MustCompile(`^Commit [0-9a-f]{7,40} `)
	adExceeds   = regexp.MustCompile(`exceeds the [\d,]+ token limit`)
	adURL       = regexp.MustCompile(`^https?://\S+$`)
)

type adRun struct {
	b        *RunBuilder
	started  bool     // a user input or reply was seen (the launch banner is over)
	model    string   // current main model
	pending  []string // aider messages since the last reply
	pendLine int64
	usageSet bool // the current call has its usage
	cost     float64
	hasCost  bool
	lastKind schema.EventKind
}

type adImport struct {
	f    *File
	runs []*adRun
	cur  *adRun
}

func (aider) Import(f *File, r io.Reader) error {
	whole, err := readDocument(f, r)
	if err != nil {
		return err
	}
	data := whole.data
	data = bytes.TrimPrefix(data, utf8BOM)
	lines := strings.Split(string(data), "\n")
	breaks := false
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		lines[i] = l
		if !breaks && strings.HasSuffix(l, "  ") && (adIsQuote(l) || adIsUser(l)) {
			breaks = true
		}
	}
	ai := &adImport{f: f}
	for i := 0; i < len(lines); {
		if i&1023 == 1023 && f.Ctx != nil {
			if err := f.Ctx.Err(); err != nil {
				return err
			}
		}
		l, n := lines[i], int64(i+1)
		var err error
		switch {
		case strings.HasPrefix(l, adHeaderPrefix):
			err = ai.header(strings.TrimSpace(strings.TrimPrefix(l, adHeaderPrefix)))
			i++
		case adIsUser(l):
			var parts []string
			for ; i < len(lines) && adIsUser(lines[i]); i++ {
				t := strings.TrimRight(strings.TrimPrefix(strings.TrimPrefix(lines[i], "####"), " "), " ")
				if t == "<blank>" {
					t = ""
				}
				parts = append(parts, t)
			}
			err = ai.user(n, strings.Trim(strings.Join(parts, "\n"), "\n"))
		case adIsQuote(l):
			parts := []string{strings.TrimRight(strings.TrimPrefix(strings.TrimPrefix(l, ">"), " "), " ")}
			i++
			if breaks && !strings.HasSuffix(l, "  ") {
				for i < len(lines) && !adIsBlockStart(lines[i]) {
					parts = append(parts, strings.TrimRight(lines[i], " "))
					i++
					if strings.HasSuffix(lines[i-1], "  ") {
						break
					}
				}
			}
			err = ai.clipQuote(n, strings.TrimRight(strings.Join(parts, "\n"), "\n"))
		default:
			start := -1
			var parts []string
			for ; i < len(lines) && !adIsBlockStart(lines[i]); i++ {
				if start < 0 && strings.TrimSpace(lines[i]) != "" {
					start = i
				}
				if start >= 0 {
					parts = append(parts, lines[i])
				}
			}
			if start >= 0 {
				err = ai.reply(int64(start+1), strings.TrimRight(strings.Join(parts, "\n"), " \n"))
			}
		}
		if err != nil {
			return err
		}
	}
	for _, r := range ai.runs {
		run := &r.b.Run
		if run.EndReasonSource != schema.SourceExplicit && (r.lastKind == schema.KindAssistant || r.lastKind == schema.KindToolResult) {
			run.EndReason, run.EndReasonSource, run.EndReasonDetail = schema.EndFinished, schema.SourceInferred, "log ends after a reply"
		}
		if r.hasCost {
			c := r.cost
			run.CostUSD = &c
		}
		if err := r.b.Finish(); err != nil {
			return err
		}
	}
	return nil
}

func adIsUser(l string) bool {
	return strings.HasPrefix(l, "#### ") || strings.TrimRight(l, " ") == "####"
}
func adIsQuote(l string) bool { return strings.HasPrefix(l, "> ") || strings.TrimRight(l, " ") == ">" }
func adIsBlockStart(l string) bool {
	return adIsUser(l) || adIsQuote(l) || strings.HasPrefix(l, adHeaderPrefix)
}

func (ai *adImport) newRun(id string) (*adRun, error) {
	b, err := ai.f.NewRun(id)
	if err != nil {
		return nil, err
	}
	b.Run.Harness = "aider"
	r := &adRun{b: b}
	ai.runs = append(ai.runs, r)
	ai.cur = r
	return r, nil
}

// run returns the current run; text before any header opens one named
// after the file.
func (ai *adImport) run() (*adRun, error) {
	if ai.cur != nil {
		return ai.cur, nil
	}
	base := filepath.Base(ai.f.Path())
	return ai.newRun(strings.TrimSuffix(base, filepath.Ext(base)))
}

func (ai *adImport) header(ts string) error {
	id := "aider-" + strings.ReplaceAll(ts, " ", "T")
	if ts == "" {
		id = ""
	}
	r, err := ai.newRun(id)
	if err != nil {
		return err
	}
	r.b.Run.StartedAt = ParseTime(ts)
	return nil
}

// adMessageCommands are the commands whose text is sent to the model.
var adMessageCommands = map[string]bool{"/ask": true, "/code": true, "/architect": true, "/context": true}

func (ai *adImport) user(line int64, text string) error {
	r, err := ai.run()
	if err != nil {
		return err
	}
	r.started = true
	r.pending = nil // aider's output before a user input was not sent to the model
	b := r.b
	add := eventAdder(b, nil, line, &r.lastKind)
	cmd, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	switch {
	case cmd == "/clear" || cmd == "/reset":
		if err := add(schema.Event{Kind: schema.KindContextOp, Role: "user", Text: text}); err != nil {
			return err
		}
		return b.Op(schema.ContextOp{Op: schema.OpTruncation, Trigger: "manual", Detail: cmd + ": chat history dropped"})
	case strings.HasPrefix(cmd, "/") && !adMessageCommands[cmd], strings.HasPrefix(cmd, "!"):
		return nil
	}
	resumeRun(b)
	return add(schema.Event{Kind: schema.KindUser, Role: "user", Text: text})
}

func (ai *adImport) reply(line int64, text string) error {
	r, err := ai.run()
	if err != nil {
		return err
	}
	if !r.started {
		return nil // unquoted lines of the launch banner (a multi-line --message)
	}
	b := r.b
	add := eventAdder(b, nil, line, &r.lastKind)
	if len(r.pending) > 0 {
		if err := b.Add(schema.Event{Kind: schema.KindUser, Role: "aider", Line: r.pendLine, Text: strings.Join(r.pending, "\n")}); err != nil {
			return err
		}
		r.pending = nil
	}
	resumeRun(b)
	b.NewCall()
	b.NoteModel(r.model)
	r.usageSet = false
	return add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", Text: text})
}

func (ai *adImport) clipQuote(line int64, msg string) error {
	r, err := ai.run()
	if err != nil {
		return err
	}
	if m := adModelLine.FindStringSubmatch(msg); m != nil {
		r.model = strings.Clone(m[1])
		return nil
	}
	if !r.started {
		return nil // the launch banner
	}
	b := r.b
	add := eventAdder(b, nil, line, &r.lastKind)
	if m := adTokens.FindStringSubmatch(msg); m != nil {
		u := schema.Usage{Model: r.model, InputTokens: adCount(m[1]), CacheWriteTokens: adCount(m[2]), CacheReadTokens: adCount(m[3]), OutputTokens: adCount(m[4])}
		if b.Turns() > 0 && !r.usageSet {
			b.SetUsage(u)
		} else { // no reply since the last usage: a call of its own
			b.SetUsageAt(b.Turns(), u)
		}
		r.usageSet = true
		if c := adCost.FindStringSubmatch(msg); c != nil {
			if v, err := strconv.ParseFloat(c[2], 64); err == nil {
				r.cost, r.hasCost = v, true
			}
		}
		return nil
	}
	if m := adApplied.FindStringSubmatch(msg); m != nil {
		path := strings.TrimSpace(m[1])
		args, _ := json.Marshal(map[string]string{"path": path})
		if err := add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: "edit", Args: string(args)}); err != nil {
			return err
		}
		return add(schema.Event{Kind: schema.KindToolResult, Role: "aider", ToolName: "edit", Target: cleanPath(path), Text: msg})
	}
	if adCommit.MatchString(msg) {
		return nil
	}
	first, _, _ := strings.Cut(msg, "\n")
	switch {
	case strings.HasPrefix(msg, "^C"):
		b.SetEnd(schema.EndInterrupted, first)
		return nil
	case strings.Contains(msg, "reflections allowed, stopping"):
		b.SetEnd(schema.EndStepLimit, first)
		return nil
	case strings.Contains(msg, "has hit a token limit"), strings.Contains(msg, "larger than the context window"), adExceeds.MatchString(msg):
		reason := schema.EndError
		if !strings.Contains(msg, "has hit a token limit") || strings.Contains(msg, "exhausted context window") {
			reason = schema.EndContextOverflow
		}
		if err := add(schema.Event{Kind: schema.KindError, Role: "aider", IsError: true, Text: msg}); err != nil {
			return err
		}
		b.SetEnd(reason, first)
		return nil
	}
	if strings.Contains(msg, "(Y)es/(N)o") || adURL.MatchString(msg) || msg == "The LLM did not conform to the edit format." {
		return nil // questions to the user, links and notices: not part of a reflection
	}
	if len(r.pending) == 0 {
		r.pendLine = line
	}
	r.pending = append(r.pending, msg)
	return nil
}

// adCount reads aider's token counts: 140, 1,234, 1.2k, 12k, 1.5M.
func adCount(s string) int64 {
	if s == "" {
		return 0
	}
	mult := 1.0
	switch s[len(s)-1] {
	case 'k', 'K':
		mult, s = 1e3, s[:len(s)-1]
	case 'm', 'M':
		mult, s = 1e6, s[:len(s)-1]
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || v*mult > 1e15 {
		return 0
	}
	return int64(math.Round(v * mult))
}
