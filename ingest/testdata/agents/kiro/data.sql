-- Kiro CLI store (data.sqlite3; agentsview kiro_sqlite.go:15 names the file), reproduced from
-- kenn-io/agentsview@538600744d1b87614d3746d36a0966c1f2ac1cad (MIT): schema internal/parser/kiro_sqlite_test.go
-- lines 14-23 (kiroSQLiteSchema); row: TestParseKiroSQLiteSession (lines 58-64), whose value is
-- internal/parser/testdata/kiro_sqlite/standard_payload.json (copied beside this file unchanged; compacted here).
CREATE TABLE conversations_v2 (
	key TEXT NOT NULL,
	conversation_id TEXT NOT NULL,
	value TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (key, conversation_id)
);
INSERT INTO conversations_v2 (key, conversation_id, value, created_at, updated_at) VALUES ('/home/user/code/kiro-app', 'sqlite-session', '{"conversation_id":"sqlite-session","history":[{"user":{"env_context":{"env_state":{"current_working_directory":"/home/user/code/kiro-app"}},"content":{"Prompt":{"prompt":"Build the Kiro parser"}},"timestamp":"2026-05-17T10:00:00Z"},"assistant":{"Response":{"message_id":"assistant-1","content":"I can do that."}},"request_metadata":{"stream_end_timestamp_ms":1779012010000}},{"user":{"env_context":{"env_state":{"current_working_directory":"/home/user/code/kiro-app"}},"content":{"Prompt":{"prompt":"Read the source first"}},"timestamp":"2026-05-17T10:00:20Z"},"assistant":{"ToolUse":{"message_id":"assistant-2","content":"","tool_uses":[{"id":"tool-1","name":"execute_bash","args":{"command":"sed -n ''1,120p'' internal/parser/kiro.go"}}]}},"request_metadata":{"stream_end_timestamp_ms":1779012030000}}],"transcript":["> Build the Kiro parser","I can do that."]}', 1779012000000, 1779012030000);
