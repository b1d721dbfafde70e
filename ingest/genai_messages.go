package ingest

import "strings"

// Generic GenAI message normalisation (prefix gai), shared by the
// otel-genai-spans, langfuse-trace-export and opencode importers: the many
// shapes of a chat message (OpenAI, Anthropic, Gemini parts, GenAI semantic
// conventions) read into one gaiMsg with text, reasoning, calls and results.

// gaiCall is a tool call of a model output.
type gaiCall struct{ id, name, args string }

// gaiResult is a tool result.
type gaiResult struct {
	id, name, text string
	isError        bool
}

// gaiMsg is one chat message in a common shape.
type gaiMsg struct {
	role      string // system, user, assistant or tool
	text      string
	reasoning string
	calls     []gaiCall
	results   []gaiResult
	finish    string
}

// gaiMessages reads chat messages from any of the shapes agent frameworks
// log: OpenAI chat (role, content, tool_calls, tool_call_id), Anthropic
// content blocks (text, thinking, tool_use, tool_result), OpenAI Responses
// items and response objects, OTel GenAI parts, LangChain message dicts,
// Vercel AI SDK prompts and tool-call lists, any-agent tool requests, plain
// strings. role is the role of values that do not name one.
func gaiMessages(v any, role string) []gaiMsg {
	return gaiMessagesDepth(gaiUnwrap(v), role, 0)
}

func gaiMessagesDepth(v any, role string, depth int) []gaiMsg {
	if depth > 8 {
		return nil
	}
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if strings.TrimSpace(x) == "" {
			return nil
		}
		return []gaiMsg{{role: role, text: x}}
	case []any:
		if gaiIsCallList(x) {
			m := gaiMsg{role: "assistant"}
			for _, e := range x {
				m.calls = append(m.calls, gaiCallOf(e.(map[string]any)))
			}
			return []gaiMsg{m}
		}
		if gaiIsBlockList(x) {
			m := gaiMsg{role: role}
			gaiBlocks(&m, x)
			return []gaiMsg{m}
		}
		var out []gaiMsg
		for _, e := range x {
			out = append(out, gaiMessagesDepth(gaiUnwrap(e), role, depth+1)...)
		}
		return out
	case map[string]any:
		return gaiObjectDepth(x, role, depth)
	}
	return []gaiMsg{{role: role, text: gaiText(v)}}
}

// gaiIsCallList reports whether a list is a bare list of tool calls
// (Vercel AI SDK [{toolCallId, toolName, input}], any-agent [{tool.name, tool.args}]).
func gaiIsCallList(x []any) bool {
	return gaiAllRoleless(x, func(m map[string]any) bool {
		_, vercel := m["toolName"]
		_, aa := m["tool.name"]
		return vercel || aa
	})
}

// gaiIsBlockList reports whether a list holds content blocks rather than messages.
func gaiIsBlockList(x []any) bool {
	return gaiAllRoleless(x, func(m map[string]any) bool {
		switch gaiString(m["type"]) {
		case "text", "input_text", "output_text", "thinking", "redacted_thinking", "tool_use", "tool_result",
			"tool-call", "tool-result", "tool_call", "tool_call_response", "image", "image_url", "input_image", "file", "uri", "blob":
			return true
		}
		return false
	})
}

// gaiAllRoleless reports whether x is a non-empty list of objects without a
// role (so not messages) that all satisfy is.
func gaiAllRoleless(x []any, is func(map[string]any) bool) bool {
	if len(x) == 0 {
		return false
	}
	for _, e := range x {
		m, ok := e.(map[string]any)
		if !ok || m["role"] != nil || !is(m) {
			return false
		}
	}
	return true
}

// gaiRole normalises a role (or a LangChain message type).
func gaiRole(s string) string {
	switch strings.ToLower(s) {
	case "system", "developer", "systemmessage":
		return "system"
	case "user", "human", "humanmessage", "humanmessagechunk":
		return "user"
	case "assistant", "ai", "model", "bot", "aimessage", "aimessagechunk":
		return "assistant"
	case "tool", "function", "ipython", "toolmessage", "functionmessage":
		return "tool"
	}
	return ""
}

// gaiObject reads one object: a message, a container of messages or a
// standalone item.
func gaiObject(m map[string]any, role string) []gaiMsg { return gaiObjectDepth(m, role, 0) }

func gaiObjectDepth(m map[string]any, role string, depth int) []gaiMsg {
	// containers
	if msgs, ok := m["messages"].([]any); ok {
		var out []gaiMsg
		if s := gaiString(m["system"]); s != "" {
			out = append(out, gaiMsg{role: "system", text: s})
		}
		return append(out, gaiMessagesDepth(msgs, role, depth+1)...)
	}
	if ch, ok := m["choices"].([]any); ok {
		if len(ch) == 0 {
			return nil
		}
		c, _ := ch[0].(map[string]any)
		if c == nil {
			return nil
		}
		var out []gaiMsg
		if msg, ok := c["message"].(map[string]any); ok {
			out = gaiObjectDepth(msg, "assistant", depth+1)
		} else if t := gaiString(c["text"]); t != "" {
			out = []gaiMsg{{role: "assistant", text: t}}
		}
		for i := range out {
			out[i].finish = gaiString(c["finish_reason"])
		}
		return out
	}
	if items, ok := m["output"].([]any); ok && (gaiString(m["object"]) == "response" || m["role"] == nil && m["content"] == nil && m["type"] == nil) {
		return gaiMessagesDepth(items, "assistant", depth+1)
	}
	typ := gaiString(m["type"])
	switch typ {
	case "function_call", "custom_tool_call", "tool-call", "tool_call", "tool_use", "server_tool_use":
		if m["role"] == nil {
			return []gaiMsg{{role: "assistant", calls: []gaiCall{gaiCallOf(m)}}}
		}
	case "function_call_output", "custom_tool_call_output", "tool-result", "tool_result", "tool_call_response":
		if m["role"] == nil {
			return []gaiMsg{{role: "tool", results: []gaiResult{gaiResultOf(m)}}}
		}
	case "reasoning":
		if m["role"] == nil {
			return []gaiMsg{{role: "assistant", reasoning: gaiReasoning(m)}}
		}
	}
	if p, ok := m["prompt"]; ok && m["role"] == nil && m["content"] == nil {
		var out []gaiMsg
		if s := gaiString(m["system"]); s != "" {
			out = append(out, gaiMsg{role: "system", text: s})
		}
		return append(out, gaiMessagesDepth(gaiUnwrap(p), "user", depth+1)...)
	}
	r := gaiRole(gaiString(m["role"]))
	if r == "" {
		r = gaiRole(typ)
	}
	if r == "" {
		r = role
	}
	msg := gaiMsg{role: r}
	content, hasContent := m["content"]
	if !hasContent || content == nil {
		content, hasContent = m["parts"]
	}
	if !hasContent || content == nil {
		if t, ok := m["text"].(string); ok {
			content, hasContent = t, true
		}
	}
	switch c := content.(type) {
	case string:
		msg.text = c
	case []any:
		gaiBlocks(&msg, c)
	case map[string]any:
		if r == "tool" && m["tool_call_id"] == nil && c["function"] != nil {
			return nil // a tool definition shown as a message (Langfuse ChatML)
		}
		gaiBlocks(&msg, []any{c})
	case nil:
	default:
		msg.text = gaiText(c)
	}
	tcs, _ := m["tool_calls"].([]any)
	if tcs == nil {
		if ak, ok := m["additional_kwargs"].(map[string]any); ok {
			tcs, _ = ak["tool_calls"].([]any)
		}
	}
	for _, tc := range tcs {
		if tm, ok := tc.(map[string]any); ok {
			msg.calls = append(msg.calls, gaiCallOf(tm))
		}
	}
	if fc, ok := m["function_call"].(map[string]any); ok {
		msg.calls = append(msg.calls, gaiCallOf(fc))
	}
	if r == "tool" {
		id := gaiString(gaiFirst(m, "tool_call_id", "toolCallId", "tool_use_id", "call_id"))
		if len(msg.results) == 0 {
			msg.results = []gaiResult{{id: id, name: gaiString(m["name"]), text: msg.text, isError: gaiString(m["status"]) == "error"}}
			msg.text = ""
		}
	}
	msg.finish = gaiString(gaiFirst(m, "finish_reason", "stop_reason", "finishReason"))
	if msg.text == "" && msg.reasoning == "" && msg.calls == nil && msg.results == nil && !hasContent && m["tool_calls"] == nil {
		if m["role"] == nil && typ == "" {
			msg.text = gaiJSON(m) // a structured value: its JSON is what was exchanged
		}
	}
	return []gaiMsg{msg}
}

func gaiReasoning(m map[string]any) string {
	if s, ok := gaiFirst(m, "thinking", "reasoning", "text", "content").(string); ok {
		return s
	}
	if sum, ok := gaiFirst(m, "summary", "content").([]any); ok {
		return gaiText(sum)
	}
	return ""
}

// gaiBlocks adds content blocks to a message.
func gaiBlocks(msg *gaiMsg, blocks []any) {
	add := func(dst *string, s string) {
		if s == "" {
			return
		}
		if *dst != "" {
			*dst += "\n"
		}
		*dst += s
	}
	for _, b := range blocks {
		switch x := b.(type) {
		case string:
			add(&msg.text, x)
		case map[string]any:
			switch t := gaiString(x["type"]); t {
			case "text", "input_text", "output_text", "":
				if s, ok := x["text"].(string); ok {
					add(&msg.text, s)
				} else if s, ok := x["content"].(string); ok {
					add(&msg.text, s)
				} else if t == "" {
					add(&msg.text, gaiText(x))
				}
			case "thinking", "reasoning", "redacted_thinking":
				add(&msg.reasoning, gaiReasoning(x))
			case "tool_use", "server_tool_use", "tool-call", "tool_call", "function_call":
				msg.calls = append(msg.calls, gaiCallOf(x))
			case "tool_result", "tool-result", "tool_call_response", "function_call_output":
				msg.results = append(msg.results, gaiResultOf(x))
			case "refusal":
				add(&msg.text, gaiString(x["refusal"]))
			default:
				add(&msg.text, "["+t+"]")
			}
		}
	}
}

func gaiCallOf(m map[string]any) gaiCall {
	c := gaiCall{id: gaiString(gaiFirst(m, "call_id", "toolCallId", "tool_call_id", "id"))}
	c.name = gaiString(gaiFirst(m, "name", "toolName", "tool.name"))
	args := gaiFirst(m, "arguments", "args", "input", "tool.args")
	if fn, ok := m["function"].(map[string]any); ok {
		if c.name == "" {
			c.name = gaiString(fn["name"])
		}
		if args == nil {
			args = fn["arguments"]
		}
	}
	c.args = gaiArgs(args)
	return c
}

func gaiResultOf(m map[string]any) gaiResult {
	r := gaiResult{id: gaiString(gaiFirst(m, "tool_use_id", "toolCallId", "call_id", "tool_call_id", "id"))}
	r.name = gaiString(gaiFirst(m, "name", "toolName"))
	r.text = gaiText(gaiFirst(m, "content", "output", "result", "response"))
	r.isError = m["is_error"] == true || m["isError"] == true || gaiString(m["status"]) == "error"
	return r
}
