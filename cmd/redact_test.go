package cmd

import (
	"database/sql"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/schema"
)

const leakyLog = "testdata/secrets/leaky.jsonl"

// the fake secrets of testdata/secrets/leaky.jsonl (README.md there)
var leakySecrets = []string{
	"AKIAX66S2O4A2QPOASTV",                     // AWS access key id
	"sNcCGctd76LCNUH1lS+2wLfKkaVE/tNMO66iv9b4", // AWS secret access key
	"ghp_13Fa61ESYhD1NfFPb9jTo6z5xcIcQPzMuEGQ", // GitHub PAT
	"xoxb-135118130601-0624329038311-PjryAczD4UDDqcdbTmBQq79G",
	"sk_live_ygZnhAOgshDBj1zpi4i4zBGo",
	"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",
	"sk-ant-api03-K0ksfMHM4OjHWN9cpoQZI5LBIb8azk1tCR0nIbOvV1LUBuzfkJacmIynp--TcaiG1pQ19WEzNuCxwXTjsdAs0lHL2RPYzAA",
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzdmMtZGVwbG95IiwiaWF0IjoxNzY3MjI1NjAwLCJzY29wZSI6ImFkbWluIn0.QF6dcSc400lsEFcwfvHCU_e-qFO81VQFL0b0aA3taBr",
	"bLg5GmNp87zraDd6uV", // password=
	"tuSvXppcHsjTqu0whpfFdtOp3rzHjUsGd0wyanwfQuvxBGtpMZh4mNU5MP4fLi38", // a line of the private key
}

// shown is what of a secret a cut text can show: its first 12 characters.
func shown(s string) string { return s[:12] }

// TestReportRedacts ingests the leaky log and writes the page: by default
// no secret (nor its first 12 characters) is on it and the header says 21
// were redacted (hand-counted: README.md there; 9 in the sampled run's
// tables, 12 in its conversation); with --no-redact they are there, and
// the header says so.
func TestReportRedacts(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		line     string
		visible  []string // secrets on the page (their first 12 characters: the targets are cut)
		redacted bool
	}{
		{"default", nil, "21 secrets redacted in the log text shown (--no-redact to keep them).", nil, true},
		{"no-redact", []string{"--no-redact"}, "Log text is shown as logged: secrets are not redacted (--no-redact).",
			[]string{leakySecrets[0], leakySecrets[2], leakySecrets[7], leakySecrets[8], leakySecrets[9]}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := testDeps(t, nil)
			d.DB = filepath.Join(t.TempDir(), "x.duckdb")
			page := filepath.Join(t.TempDir(), "page.html")
			args := append([]string{"report", "-o", page, leakyLog}, tc.args...)
			if _, stderr, code := run(t, d, args...); code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			b, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			html := string(b)
			if !strings.Contains(html, tc.line) {
				t.Errorf("page lacks %q", tc.line)
			}
			for _, s := range leakySecrets {
				on := strings.Contains(html, shown(s))
				if tc.redacted && on {
					t.Errorf("page shows %s…", shown(s))
				}
			}
			for _, s := range tc.visible {
				if !strings.Contains(html, shown(s)) {
					t.Errorf("--no-redact: page lacks %s…", shown(s))
				}
			}
			if n := strings.Count(html, "[REDACTED:"); tc.redacted != (n > 0) {
				t.Errorf("%d markers on the page", n)
			}
		})
	}
}

// TestShowRedacts: trajmine show prints no secret, in text or JSON (13
// markers there: README.md), unless --no-redact.
func TestShowRedacts(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "x.duckdb")
	if _, stderr, code := run(t, d, "ingest", leakyLog); code != 0 {
		t.Fatal(stderr)
	}
	tests := []struct {
		args    []string
		markers int      // -1: some
		visible []string // secrets printed
	}{
		{[]string{"show", "leaky-deploy"}, -1, nil},
		{[]string{"show", "--json", "leaky-deploy"}, 13, nil},
		{[]string{"show", "--no-redact", "leaky-deploy"}, 0, []string{shown(leakySecrets[0]), shown(leakySecrets[8])}},
		{[]string{"show", "--json", "--no-redact", "leaky-deploy"}, 0, leakySecrets},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			stdout, stderr, code := run(t, d, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			n := strings.Count(stdout, "[REDACTED:")
			if tc.markers >= 0 && n != tc.markers || tc.markers < 0 && n == 0 {
				t.Errorf("%d markers, want %d\n%s", n, tc.markers, stdout)
			}
			for _, s := range leakySecrets {
				if len(tc.visible) == 0 && strings.Contains(stdout, shown(s)) {
					t.Errorf("prints %s…", shown(s))
				}
			}
			for _, s := range tc.visible {
				if !strings.Contains(stdout, s) {
					t.Errorf("lacks %s", s)
				}
			}
		})
	}
}

const urlsLog = "testdata/secrets/urls.jsonl"

// the secrets of testdata/secrets/urls.jsonl not in leakySecrets (its
// README): three URL passwords and the private key's header
var urlSecrets = []string{"Pg7mQx2vLr", "My9sQlRootPw", "R3disAuthTok", "-----BEGIN RSA PRIVATE KEY-----"}

// the leaky and urls runs' secrets that the records --export writes hold
// (run ids and tool-call targets; no tool output): the AWS key in the run
// id, the psql URL password, the Anthropic key, the PAT, the JWT
var targetSecrets = []string{leakySecrets[0], urlSecrets[0], leakySecrets[6], leakySecrets[2], leakySecrets[7]}

// TestExportRedacts ingests the leaky and urls runs and exports them in
// every format: by default no secret is in what is written (read back:
// the Parquet files by plain DuckDB, XES as XML, OCEL as JSON) and nothing
// is printed on stderr; with --no-redact every secret the format carries
// is there and stderr holds the one warning line.
func TestExportRedacts(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "x.duckdb")
	if _, stderr, code := run(t, d, "ingest", leakyLog, urlsLog); code != 0 {
		t.Fatal(stderr)
	}
	all := append(slices.Clone(leakySecrets), urlSecrets...)
	tests := []struct {
		name    string
		export  func(out string, noRedact bool) (stdout, stderr string)
		read    func(t *testing.T, out string) string // every value written, joined
		carried []string                              // the secrets the format carries
		markers int                                   // the markers written by default (hand count: README.md); -1 some
	}{
		{"parquet", func(out string, noRedact bool) (string, string) {
			args := []string{"export", "parquet", out}
			if noRedact {
				args = append(args, "--no-redact")
			}
			stdout, stderr, code := run(t, d, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			return stdout, stderr
		}, readParquetExport, all, -1},
		{"xes", mineExportTo(t, d, "xes"), readXML, targetSecrets[:1], 1},
		{"events-xes", mineExportTo(t, d, "events-xes"), readXML, targetSecrets, 9},
		{"ocel", mineExportTo(t, d, "ocel"), readJSONStrings, targetSecrets, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, noRedact := range []bool{false, true} {
				out := filepath.Join(t.TempDir(), "export")
				stdout, stderr := tc.export(out, noRedact)
				got := tc.read(t, out)
				n := strings.Count(got, "[REDACTED:")
				if noRedact {
					want := "warning: export is not redacted: " + out + " holds the log text as imported, secrets included (--no-redact)\n"
					if stderr != want {
						t.Errorf("--no-redact: stderr %q, want %q", stderr, want)
					}
					for _, s := range tc.carried {
						if !strings.Contains(got, s) {
							t.Errorf("--no-redact: %s is not in the export", s)
						}
					}
					if n != 0 || strings.Contains(stdout, "REDACTED") {
						t.Errorf("--no-redact: %d markers\n%s", n, stdout)
					}
					continue
				}
				if stderr != "" {
					t.Errorf("stderr %q, want none", stderr)
				}
				for _, s := range all {
					if strings.Contains(got, s) {
						t.Errorf("%s is in the export", s)
					}
				}
				if tc.markers >= 0 && n != tc.markers || n == 0 {
					t.Errorf("%d markers, want %d\n%s", n, tc.markers, stdout)
				}
				// export parquet says how many it replaced: one marker each
				if line := fmt.Sprintf("%d occurrences of secrets replaced with [REDACTED:<rule>] (--no-redact keeps them)\n", n); tc.name == "parquet" && !strings.Contains(stdout, line) {
					t.Errorf("stdout lacks %q:\n%s", line, stdout)
				}
			}
		})
	}
}

// mineExportTo runs mine --export kind:out (--no-redact when asked).
func mineExportTo(t *testing.T, d *Deps, kind string) func(out string, noRedact bool) (string, string) {
	return func(out string, noRedact bool) (string, string) {
		args := []string{"mine", "--no-profiles", "--export", kind + ":" + out}
		if noRedact {
			args = append(args, "--no-redact")
		}
		stdout, stderr, code := run(t, d, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return stdout, stderr
	}
}

// readParquetExport reads every table of a Parquet export with plain
// DuckDB (read_parquet, no trajmine code) and returns every value, one a
// line. The redacted run ids still join: every event's run is a run.
func readParquetExport(t *testing.T, dir string) string {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	for _, tb := range schema.Tables {
		glob := filepath.Join(dir, tb.Name, "**", "*.parquet")
		if m, _ := filepath.Glob(filepath.Join(dir, tb.Name)); len(m) == 0 {
			continue // an empty table: no files
		}
		rows, err := db.Query(fmt.Sprintf("SELECT * FROM read_parquet('%s', hive_partitioning = true)", glob))
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				fmt.Fprintln(&b, v)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	var orphans int
	q := fmt.Sprintf("SELECT count(*) FROM read_parquet('%s/events/**/*.parquet') WHERE run_id NOT IN (SELECT run_id FROM read_parquet('%s/runs/**/*.parquet'))", dir, dir)
	if err := db.QueryRow(q).Scan(&orphans); err != nil || orphans != 0 {
		t.Errorf("events whose run_id is no run's: %d (%v)", orphans, err)
	}
	return b.String()
}

// readXML parses an XES file and returns its attribute values and text,
// one a line.
func readXML(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	dec := xml.NewDecoder(f)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			for _, a := range x.Attr {
				fmt.Fprintln(&b, a.Value)
			}
		case xml.CharData:
			fmt.Fprintln(&b, string(x))
		}
	}
	return b.String()
}

// readJSONStrings parses an OCEL JSON file and returns its keys and
// string values, one a line (ids unescaped: %3A is ':').
func readJSONStrings(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			u, err := url.PathUnescape(x)
			if err != nil {
				u = x
			}
			fmt.Fprintln(&b, x)
			fmt.Fprintln(&b, u)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				fmt.Fprintln(&b, k)
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

// TestURLPasswordsRedacted: the page and trajmine show (text and JSON)
// of the urls run hold none of its secrets, nor their first 12
// characters (the URL passwords whole: they are shorter), while the
// URLs' schemes, users and hosts stay.
func TestURLPasswordsRedacted(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "x.duckdb")
	page := filepath.Join(t.TempDir(), "page.html")
	if _, stderr, code := run(t, d, "report", "-o", page, urlsLog); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	secrets := append(slices.Clone(urlSecrets[:3]), shown(leakySecrets[0]), shown(leakySecrets[2]), shown(leakySecrets[6]))
	outs := map[string]string{"page": string(html)}
	for _, args := range [][]string{{"show", "release"}, {"show", "--json", "release"}} {
		stdout, stderr, code := run(t, d, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		outs[strings.Join(args, " ")] = stdout
	}
	for name, out := range outs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%s shows %s", name, s)
			}
		}
		if !strings.Contains(out, "postgres://app:[REDACTED:url-password]@db.internal") {
			t.Errorf("%s lacks the psql URL with its password redacted", name)
		}
	}
}

// TestMineNoRedactWarning: mine --no-redact warns once, naming where the
// export went (standard output for '-'), and not at all without --export.
func TestMineNoRedactWarning(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "x.duckdb")
	if _, stderr, code := run(t, d, "ingest", urlsLog); code != 0 {
		t.Fatal(stderr)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"mine", "--no-profiles", "--no-redact", "--export", "dot:-"}, "warning: export is not redacted: standard output holds the log text as imported, secrets included (--no-redact)\n"},
		{[]string{"mine", "--no-profiles", "--no-redact"}, ""},
		{[]string{"mine", "--no-profiles", "--export", "dot:-"}, ""},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			_, stderr, code := run(t, d, tc.args...)
			if code != 0 || stderr != tc.want {
				t.Errorf("exit %d, stderr %q; want %q", code, stderr, tc.want)
			}
		})
	}
}
