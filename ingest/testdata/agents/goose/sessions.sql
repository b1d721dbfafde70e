-- Goose session store (~/.local/share/goose/sessions/sessions.db, schema_version 15), reproduced from
-- kenn-io/agentsview@538600744d1b87614d3746d36a0966c1f2ac1cad internal/parser/goose_test.go (MIT):
-- schema: lines 20-84 (gooseTestSchema); rows: TestGooseProviderParsesTranscriptToolsRelationshipsAndUsage
-- (lines 171-211) through the insert helpers of lines 119-169 (insertSession, insertMessage, insertUsage).
-- The child session's parent row 'parent' is not in the source test; it is absent here too.
CREATE TABLE schema_version (
	version INTEGER PRIMARY KEY,
	applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO schema_version (version) VALUES (15);
CREATE TABLE sessions (
	id TEXT PRIMARY KEY,
	name TEXT NOT NULL DEFAULT '',
	description TEXT NOT NULL DEFAULT '',
	user_set_name BOOLEAN DEFAULT FALSE,
	session_type TEXT NOT NULL DEFAULT 'user',
	working_dir TEXT NOT NULL,
	created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
	updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
	extension_data TEXT DEFAULT '{}',
	total_tokens INTEGER,
	input_tokens INTEGER,
	output_tokens INTEGER,
	cache_read_tokens INTEGER,
	cache_write_tokens INTEGER,
	accumulated_total_tokens INTEGER,
	accumulated_input_tokens INTEGER,
	accumulated_output_tokens INTEGER,
	accumulated_cache_read_tokens INTEGER,
	accumulated_cache_write_tokens INTEGER,
	accumulated_cost REAL,
	schedule_id TEXT,
	recipe_json TEXT,
	user_recipe_values_json TEXT,
	provider_name TEXT,
	model_config_json TEXT,
	goose_mode TEXT NOT NULL DEFAULT 'auto',
	archived_at TIMESTAMP,
	project_id TEXT,
	parent_session_id TEXT
);
CREATE TABLE messages (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	message_id TEXT,
	session_id TEXT NOT NULL REFERENCES sessions(id),
	role TEXT NOT NULL,
	content_json TEXT NOT NULL,
	created_timestamp INTEGER NOT NULL,
	timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
	tokens INTEGER,
	metadata_json TEXT
);
CREATE INDEX idx_messages_session ON messages(session_id);
CREATE TABLE usage_ledger (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	created_timestamp INTEGER NOT NULL,
	model TEXT,
	input_tokens INTEGER,
	output_tokens INTEGER,
	total_tokens INTEGER,
	cache_read_tokens INTEGER,
	cache_write_tokens INTEGER,
	cost REAL,
	cost_source TEXT,
	is_compaction INTEGER DEFAULT 0
);
CREATE INDEX idx_usage_ledger_session ON usage_ledger(session_id);

INSERT INTO sessions (id, name, description, session_type, working_dir, created_at, updated_at, provider_name, model_config_json, project_id, parent_session_id, accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens, accumulated_cache_read_tokens, accumulated_cache_write_tokens)
 VALUES ('child', 'Auth review', '', 'sub_agent', '/work/acme-app', '2023-11-14 22:13:00', '2023-11-14 22:13:25', 'anthropic', '{"model_name":"claude-sonnet-4-6"}', 'acme', 'parent', 0, 0, 0, 0, 0);
INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES ('message-user-1700000000', 'child', 'user', '[
		{"type":"text","text":"Inspect the authentication flow.","annotations":[]}
	]', 1700000000, '{"userVisible":true,"agentVisible":true}');
INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES ('message-assistant-1700000001', 'child', 'assistant', '[
		{"type":"thinking","thinking":"I should inspect auth.go first.","signature":"opaque"},
		{"type":"text","text":"I will inspect the file."},
		{"type":"toolRequest","id":"call-read","toolCall":{"status":"success","value":{"name":"Read","arguments":{"file_path":"auth.go"}}}}
	]', 1700000001, '{"userVisible":true,"agentVisible":true}');
INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES ('message-user-1700000001', 'child', 'user', '[
		{"type":"toolResponse","id":"call-read","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"package auth"}]}}},
		{"type":"actionRequired","message":"Approve the proposed edit."}
	]', 1700000001, '{"userVisible":true,"agentVisible":true}');
INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES ('message-assistant-1700000002', 'child', 'assistant', '[
		{"type":"redactedThinking","data":"do-not-display"},
		{"type":"image","data":"do-not-index"},
		{"type":"systemNotification","message":"Finished review."},
		{"type":"futureContent","secret":"ignored"}
	]', 1700000002, '{"userVisible":true,"agentVisible":true}');
INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES ('hidden', 'child', 'assistant', '[{"type":"text","text":"internal context"}]', 1700000003, '{"userVisible":false,"agentVisible":true}');
INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cost, cost_source, is_compaction)
 VALUES ('child', 1700000010, 'claude-sonnet-4-6', 100, 20, 160, 30, 10, 0.0125, 'provider_reported', 0);
INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cost, cost_source, is_compaction)
 VALUES ('child', 1700000011, 'claude-sonnet-4-6', 40, 5, 53, 6, 2, 0.004, 'estimated', 1);
