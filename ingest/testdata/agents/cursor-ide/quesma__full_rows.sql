-- QuesmaOrg/quesma-shipper @ 10ec4ce1518fa602596219d2791d9cf0787708fc, Apache-2.0:
-- src/internal/transforms/cursorjoin/cursorjoin_test.go, newStore (tables) and fullRows() (rows, through
-- conversation, bubbleRow and lsBubble). Values byte for byte as those helpers build them. See SOURCE.md.
CREATE TABLE cursorDiskKV (key TEXT PRIMARY KEY, value BLOB);
CREATE TABLE ItemTable (key TEXT PRIMARY KEY, value BLOB);
INSERT INTO cursorDiskKV (key, value) VALUES ('composerData:5d1f7b3e-9a2c-4e8f-b1d0-3c4a5b6c7d8e', '{"composerId":"5d1f7b3e-9a2c-4e8f-b1d0-3c4a5b6c7d8e","createdAt":1753700000000,"fullConversationHeadersOnly":[{"bubbleId":"b1","type":1},{"bubbleId":"b2","type":2},{"bubbleId":"b3","type":2}]}');
INSERT INTO cursorDiskKV (key, value) VALUES ('bubbleId:5d1f7b3e-9a2c-4e8f-b1d0-3c4a5b6c7d8e:b1', '{"type":1,"text":"list the workspace","createdAt":"2026-07-28T10:06:00.000Z","requestId":"req-1"}');
INSERT INTO cursorDiskKV (key, value) VALUES ('bubbleId:5d1f7b3e-9a2c-4e8f-b1d0-3c4a5b6c7d8e:b2', '{"type":2,"text":"Listing the workspace folder contents.","createdAt":"2026-07-28T10:06:01.000Z",
			"requestId":"req-2","modelName":"claude-4.5-sonnet","turnDurationMs":1420,"checkpointId":"ckpt-9"}');
INSERT INTO cursorDiskKV (key, value) VALUES ('bubbleId:5d1f7b3e-9a2c-4e8f-b1d0-3c4a5b6c7d8e:b3', '{"type":2,"createdAt":"2026-07-28T10:06:02.000Z","toolFormerData":{"toolCallId":"call_abc123","name":"run_terminal_cmd",
			"status":"completed","rawArgs":"{\"command\":\"ls -la /work/api\"}",
			"result":"total 24\ndrwxr-xr-x  5 jane staff  160 Jul 28 10:05 .\n-rw-r--r--  1 jane staff  812 Jul 28 09:58 main.go"}}');
