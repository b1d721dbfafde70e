-- QuesmaOrg/quesma-shipper @ 10ec4ce1518fa602596219d2791d9cf0787708fc, Apache-2.0:
-- src/internal/transforms/cursorjoin/cursorjoin_test.go, newStore (tables) and the rows of
-- TestStoreAndTranscriptGenerations "the current store generation" (through conversation, user and bubbleRow).
-- Values byte for byte as those helpers build them. See SOURCE.md.
CREATE TABLE cursorDiskKV (key TEXT PRIMARY KEY, value BLOB);
CREATE TABLE ItemTable (key TEXT PRIMARY KEY, value BLOB);
INSERT INTO cursorDiskKV (key, value) VALUES ('composerData:5d1f7b3e-9a2c-4e8f-b1d0-3c4a5b6c7d8e', '{"composerId":"5d1f7b3e-9a2c-4e8f-b1d0-3c4a5b6c7d8e","createdAt":1753700000000,"fullConversationHeadersOnly":[{"bubbleId":"b1","type":1},{"bubbleId":"think1","type":2},{"bubbleId":"a1","type":2},{"bubbleId":"tool1","type":2}]}');
INSERT INTO cursorDiskKV (key, value) VALUES ('bubbleId:5d1f7b3e-9a2c-4e8f-b1d0-3c4a5b6c7d8e:b1', '{"text":"list the workspace","type":1}');
INSERT INTO cursorDiskKV (key, value) VALUES ('bubbleId:5d1f7b3e-9a2c-4e8f-b1d0-3c4a5b6c7d8e:think1', '{"type":2,"text":"","capabilityType":30,"thinking":{"text":"the user wants a listing","signature":"sig"}}');
INSERT INTO cursorDiskKV (key, value) VALUES ('bubbleId:5d1f7b3e-9a2c-4e8f-b1d0-3c4a5b6c7d8e:a1', '{"type":2,"text":"Listing the workspace folder contents.\n\n\n","modelInfo":{"modelName":"composer-2.5"}}');
INSERT INTO cursorDiskKV (key, value) VALUES ('bubbleId:5d1f7b3e-9a2c-4e8f-b1d0-3c4a5b6c7d8e:tool1', '{"type":2,"text":"","capabilityType":15,"toolFormerData":{"toolCallId":"tool_33e5b6ee",
				"name":"run_terminal_command_v2","tool":15,"status":"completed","rawArgs":"",
				"params":"{\"command\":\"ls -la /work/api\",\"cwd\":\"\"}","result":"{\"output\":\"total 24\\nmain.go\"}"}}');
