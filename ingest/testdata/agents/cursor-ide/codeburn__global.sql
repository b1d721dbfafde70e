-- getagentseal/codeburn @ ed8fa3af3d58a3eb3f09f14de8f99d41bce5702c (file last changed in 810b2144761aa1f061100d92dbffbf31c756f4ce), MIT:
-- tests/providers/cursor-workspace-breakdown.test.ts, createGlobalDb (lines 40-73) as the test
-- "emits one source per workspace plus an orphan source" calls it. JSON.stringify's key order; the
-- test's createdAt (the clock at test time minus 24 h) is left out. No composerData rows. See SOURCE.md.
CREATE TABLE cursorDiskKV (key TEXT PRIMARY KEY, value BLOB);
CREATE TABLE ItemTable (key TEXT UNIQUE, value BLOB);
INSERT INTO cursorDiskKV (key, value) VALUES ('bubbleId:composer-work-1:bubble-compos', '{"type":2,"conversationId":"composer-work-1","tokenCount":{"inputTokens":100,"outputTokens":50},"modelInfo":{"modelName":"claude-4.6-sonnet"},"text":"assistant reply for composer-work-1","codeBlocks":"[]"}');
INSERT INTO cursorDiskKV (key, value) VALUES ('bubbleId:composer-work-2:bubble-compos', '{"type":2,"conversationId":"composer-work-2","tokenCount":{"inputTokens":100,"outputTokens":50},"modelInfo":{"modelName":"claude-4.6-sonnet"},"text":"assistant reply for composer-work-2","codeBlocks":"[]"}');
INSERT INTO cursorDiskKV (key, value) VALUES ('bubbleId:composer-personal-1:bubble-compos', '{"type":2,"conversationId":"composer-personal-1","tokenCount":{"inputTokens":100,"outputTokens":50},"modelInfo":{"modelName":"claude-4.6-sonnet"},"text":"assistant reply for composer-personal-1","codeBlocks":"[]"}');
INSERT INTO cursorDiskKV (key, value) VALUES ('bubbleId:composer-orphan-1:bubble-compos', '{"type":2,"conversationId":"composer-orphan-1","tokenCount":{"inputTokens":100,"outputTokens":50},"modelInfo":{"modelName":"claude-4.6-sonnet"},"text":"assistant reply for composer-orphan-1","codeBlocks":"[]"}');
