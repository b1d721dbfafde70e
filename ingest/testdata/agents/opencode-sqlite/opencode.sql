-- OpenCode SQLite store (~/.local/share/opencode/opencode.db), reproduced from
-- kenn-io/agentsview@538600744d1b87614d3746d36a0966c1f2ac1cad internal/parser/opencode_test.go (MIT):
-- schema: lines 44-87 (openCodeSchema); rows: TestParseOpenCodeDB_ToolParts (lines 1426-1439) and
-- TestParseOpenCodeDB_TokenUsage (lines 2249-2289), inserted with the seeder helpers of lines 122-186
-- (AddProject/AddSession leave directory at its default '').
CREATE TABLE project (
	id TEXT PRIMARY KEY,
	worktree TEXT NOT NULL,
	time_created INTEGER NOT NULL DEFAULT 0,
	time_updated INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE session (
	id TEXT PRIMARY KEY,
	project_id TEXT NOT NULL,
	parent_id TEXT,
	title TEXT,
	directory TEXT NOT NULL DEFAULT '',
	time_created INTEGER NOT NULL,
	time_updated INTEGER NOT NULL,
	FOREIGN KEY (project_id) REFERENCES project(id)
);

CREATE TABLE message (
	id TEXT PRIMARY KEY,
	session_id TEXT NOT NULL,
	time_created INTEGER NOT NULL,
	time_updated INTEGER NOT NULL,
	data TEXT NOT NULL,
	FOREIGN KEY (session_id) REFERENCES session(id)
);

CREATE TABLE part (
	id TEXT PRIMARY KEY,
	message_id TEXT NOT NULL,
	session_id TEXT NOT NULL,
	time_created INTEGER NOT NULL,
	time_updated INTEGER NOT NULL,
	data TEXT NOT NULL,
	FOREIGN KEY (message_id) REFERENCES message(id)
);

-- SQLite does not index a foreign key automatically. Production OpenCode
-- declares these, and the per-session freshness lookups depend on them, so the
-- fixture must carry them or plan assertions prove nothing.
CREATE INDEX message_session_time_created_id_idx
	ON message (session_id, time_created, id);
CREATE INDEX part_session_idx ON part (session_id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);


-- TestParseOpenCodeDB_ToolParts
INSERT INTO project (id, worktree) VALUES ('prj_1', '/tmp/proj');
INSERT INTO session (id, project_id, parent_id, title, time_created, time_updated) VALUES ('ses_tools', 'prj_1', NULL, NULL, 1700000000000, 1700000030000);
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_u', 'ses_tools', 1700000000000, 1700000000000, '{"role":"user"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_u', 'msg_u', 'ses_tools', 1700000000000, 1700000000000, '{"type":"text","text":"read my file"}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_a', 'ses_tools', 1700000010000, 1700000012000, '{"role":"assistant"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_r', 'msg_a', 'ses_tools', 1700000010000, 1700000010000, '{"type":"reasoning","text":"Let me think about this..."}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_t', 'msg_a', 'ses_tools', 1700000011000, 1700000011000, '{"type":"tool","tool":"read","callID":"call_1","state":{"input":{"file_path":"main.go"}}}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_txt', 'msg_a', 'ses_tools', 1700000012000, 1700000012000, '{"type":"text","text":"Here is the file content."}');

-- TestParseOpenCodeDB_TokenUsage (its project row has id prj_1 too; renamed prj_2 here so both sessions fit one file)
INSERT INTO project (id, worktree) VALUES ('prj_2', '/home/user/code/myapp');
INSERT INTO session (id, project_id, parent_id, title, time_created, time_updated) VALUES ('ses_usage', 'prj_2', NULL, 'Usage Test', 1700000000000, 1700000060000);
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_user', 'ses_usage', 1700000000000, 1700000000000, '{"role":"user"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_user', 'msg_user', 'ses_usage', 1700000000000, 1700000000000, '{"type":"text","text":"hi"}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_asst', 'ses_usage', 1700000010000, 1700000010000, '{"role":"assistant","modelID":"gpt-5.2-codex","providerID":"openai","cost":0.0186375,"tokens":{"input":10370,"output":35,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_asst', 'msg_asst', 'ses_usage', 1700000010000, 1700000010000, '{"type":"text","text":"answer"}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_asst2', 'ses_usage', 1700000020000, 1700000020000, '{"role":"assistant","modelID":"claude-sonnet-4-20250514","providerID":"anthropic","cost":0.04641675,"tokens":{"input":1,"output":102,"reasoning":0,"cache":{"read":500,"write":11969}}}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_asst2', 'msg_asst2', 'ses_usage', 1700000020000, 1700000020000, '{"type":"text","text":"answer2"}');
