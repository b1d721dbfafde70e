-- Hermes Agent state store (~/.hermes/state.db), reproduced from
-- kenn-io/agentsview@538600744d1b87614d3746d36a0966c1f2ac1cad internal/parser/hermes_test.go (MIT),
-- createHermesStateDB, lines 100-172 (schema and rows as written there). The session transcript the same
-- test writes beside it is sessions/session_child.json (lines 180-192).
CREATE TABLE sessions (
	id TEXT PRIMARY KEY,
	source TEXT NOT NULL,
	user_id TEXT,
	model TEXT,
	model_config TEXT,
	system_prompt TEXT,
	parent_session_id TEXT,
	started_at REAL NOT NULL,
	ended_at REAL,
	end_reason TEXT,
	message_count INTEGER DEFAULT 0,
	tool_call_count INTEGER DEFAULT 0,
	input_tokens INTEGER DEFAULT 0,
	output_tokens INTEGER DEFAULT 0,
	cache_read_tokens INTEGER DEFAULT 0,
	cache_write_tokens INTEGER DEFAULT 0,
	reasoning_tokens INTEGER DEFAULT 0,
	billing_provider TEXT,
	billing_base_url TEXT,
	billing_mode TEXT,
	estimated_cost_usd REAL,
	actual_cost_usd REAL,
	cost_status TEXT,
	cost_source TEXT,
	pricing_version TEXT,
	title TEXT,
	api_call_count INTEGER DEFAULT 0
);
CREATE TABLE messages (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id TEXT NOT NULL,
	role TEXT NOT NULL,
	content TEXT,
	tool_call_id TEXT,
	tool_calls TEXT,
	tool_name TEXT,
	timestamp REAL NOT NULL,
	token_count INTEGER,
	finish_reason TEXT,
	reasoning TEXT,
	reasoning_content TEXT,
	reasoning_details TEXT,
	codex_reasoning_items TEXT,
	codex_message_items TEXT
);
INSERT INTO sessions (
	id, source, model, parent_session_id, started_at, ended_at,
	message_count, input_tokens, output_tokens, cache_read_tokens,
	cache_write_tokens, reasoning_tokens, estimated_cost_usd,
	cost_status, cost_source, title, api_call_count
) VALUES (
	'child', 'discord', 'gpt-5.4', 'parent',
	1778767200.0, 1778767800.0, 1, 300, 70, 20, 5, 9,
	0.123, 'estimated', 'hermes', 'Child Session', 4
);
INSERT INTO messages (
	session_id, role, content, timestamp
) VALUES (
	'child', 'user', 'state db only has one message', 1778767210.0
);
