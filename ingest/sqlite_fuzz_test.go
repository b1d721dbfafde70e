package ingest_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
)

// storeFuzzCase is one column of a store fixture whose value FuzzStoreValues
// replaces: the fixture, the store's format and the UPDATE that sets the
// value (its one parameter).
type storeFuzzCase struct {
	fixture, format, update string
}

var storeFuzzCases = []storeFuzzCase{
	{"goose/sessions.sql", "goose-sessions-db", "UPDATE messages SET content_json = ? WHERE rowid = 2"},
	{"goose/sessions.sql", "goose-sessions-db", "UPDATE messages SET content_json = ? WHERE rowid = 3"},
	{"goose/sessions.sql", "goose-sessions-db", "UPDATE messages SET metadata_json = ? WHERE rowid = 1"},
	{"goose/sessions.sql", "goose-sessions-db", "UPDATE sessions SET model_config_json = ?"},
	{"goose/sessions.sql", "goose-sessions-db", "UPDATE usage_ledger SET input_tokens = ? WHERE rowid = 1"},
	{"opencode-sqlite/opencode.sql", "opencode-db", "UPDATE message SET data = ? WHERE id = 'msg_asst'"},
	{"opencode-sqlite/opencode.sql", "opencode-db", "UPDATE part SET data = ? WHERE id = 'prt_t'"},
	{"hermes/state.sql", "hermes-state-db", "UPDATE messages SET content = ?"},
	{"hermes/state.sql", "hermes-state-db", "UPDATE messages SET role = 'assistant', tool_calls = ?"},
	{"hermes/state.sql", "hermes-state-db", "UPDATE sessions SET api_call_count = ?"},
	{"kiro/data.sql", "kiro-cli-db", "UPDATE conversations_v2 SET value = ?"},
}

// storeTemplates builds each fixture's database once, as bytes.
func storeTemplates(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	dir := t.TempDir()
	for _, c := range storeFuzzCases {
		if out[c.fixture] != nil {
			continue
		}
		b, err := os.ReadFile(buildStore(t, dir, c.fixture, strings.ReplaceAll(c.fixture, "/", "_")+".db"))
		if err != nil {
			t.Fatal(err)
		}
		out[c.fixture] = b
	}
	return out
}

// FuzzStoreValues replaces one column of a store fixture (storeFuzzCases)
// with the fuzzed value and imports the store. The invariants: no panic,
// and no failed import: a bad value is a reject of its row, the rest of the
// store imports, and every record is valid (MemSink validates them).
// The seeds are the fixtures' own values (testdata/agents/*/*.sql).
func FuzzStoreValues(f *testing.F) {
	seeds := []string{
		`[{"type":"text","text":"hi"}]`,
		`[{"type":"toolRequest","id":"x","toolCall":{"status":"success","value":{"name":"Read","arguments":{"file_path":"a"}}}}]`,
		`[{"type":"toolResponse","id":"call-read","toolResult":{"status":"error","error":"no"}}]`,
		`{"userVisible":false,"agentVisible":true}`,
		`{"role":"assistant","modelID":"m","cost":0.1,"tokens":{"input":1,"output":2,"reasoning":0,"cache":{"read":3,"write":4}}}`,
		`{"type":"tool","tool":"read","callID":"call_1","state":{"status":"completed","input":{},"output":"x"}}`,
		`[{"id":"c1","type":"function","function":{"name":"terminal","arguments":"{}"}}]`,
		`{"conversation_id":"c","history":[{"user":{"content":{"Prompt":{"prompt":"p"}}},"assistant":{"Response":{"message_id":"a","content":"r"}}}]}`,
		`-5`, `null`, `[`, `"`,
	}
	for i := range storeFuzzCases {
		for _, s := range seeds {
			f.Add(uint8(i), s)
		}
	}
	templates := storeTemplates(f)
	f.Fuzz(func(t *testing.T, which uint8, value string) {
		c := storeFuzzCases[int(which)%len(storeFuzzCases)]
		p := filepath.Join(t.TempDir(), "fuzz.db")
		if err := os.WriteFile(p, templates[c.fixture], 0o644); err != nil {
			t.Fatal(err)
		}
		db := openFuzzDB(t, p)
		if _, err := db.Exec(c.update, value); err != nil {
			t.Fatal(err)
		}
		db.Close()
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ingest.Parse(context.Background(), c.format, "fuzz.db", data, nil); err != nil {
			t.Fatalf("%s with %q: %v", c.update, value, err)
		}
	})
}

// FuzzStores imports mutated store files, whole. A damaged database may
// fail to import (SQLite says why), but never panics, and what imports is
// valid and consistent (Parse checks the sink).
func FuzzStores(f *testing.F) {
	formats := []string{"goose-sessions-db", "opencode-db", "hermes-state-db", "kiro-cli-db"}
	templates := storeTemplates(f)
	for i, fx := range []string{"goose/sessions.sql", "opencode-sqlite/opencode.sql", "hermes/state.sql", "kiro/data.sql"} {
		f.Add(uint8(i), templates[fx])
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		format := formats[int(which)%len(formats)]
		if _, err := ingest.Parse(context.Background(), format, "fuzz.db", data, nil); err != nil && strings.Contains(err.Error(), "importer "+format+" failed") {
			t.Fatal(err) // a recovered panic
		}
	})
}

func openFuzzDB(t *testing.T, p string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}
