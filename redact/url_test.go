package redact_test

import (
	"strings"
	"testing"

	"github.com/trajmine/trajmine/redact"
)

// TestURLPasswords: the password of a URL's userinfo is replaced, the
// scheme, user and host kept; the near misses (no userinfo, no password,
// an '@' outside the authority, placeholders) are left as they are.
func TestURLPasswords(t *testing.T) {
	const m = "[REDACTED:url-password]"
	pat := planted["github-pat"]
	tests := []struct {
		name, in, want string
		n              int
	}{
		{"postgres", "postgres://user:pass@host/db", "postgres://user:" + m + "@host/db", 1},
		{"https", "curl https://bob:pa55w0rd@example.com/api", "curl https://bob:" + m + "@example.com/api", 1},
		{"mysql with port", "mysql://root:rootpw@localhost:3306/shop", "mysql://root:" + m + "@localhost:3306/shop", 1},
		{"redis without user", "REDIS_URL=redis://:authpass123@cache:6379/0", "REDIS_URL=redis://:" + m + "@cache:6379/0", 1},
		{"amqp", "amqp://guest:guestguest@rabbit:5672/", "amqp://guest:" + m + "@rabbit:5672/", 1},
		{"mongodb+srv with a query", "mongodb+srv://app:Zx9kLm2Qw8@cluster0.abcd.mongodb.net/db?retryWrites=true",
			"mongodb+srv://app:" + m + "@cluster0.abcd.mongodb.net/db?retryWrites=true", 1},
		{"scheme after '='", "DATABASE_URL=postgresql://admin:hunter2hunter@db.internal:5432/app\n",
			"DATABASE_URL=postgresql://admin:" + m + "@db.internal:5432/app\n", 1},
		{"git+https", "pip install git+https://deploy:s3cr3t@git.corp/x.git", "pip install git+https://deploy:" + m + "@git.corp/x.git", 1},
		{"unencoded '@' in the password: up to the last '@'", "postgres://u:p@ss@h/db", "postgres://u:" + m + "@h/db", 1},
		{"a ':' in the password", "postgres://u:a:b@h", "postgres://u:" + m + "@h", 1},
		{"in JSON arguments: the quote ends it", `{"command":"psql \"postgres://app:pw12@db/app\" -c 'select 1'"}`,
			`{"command":"psql \"postgres://app:` + m + `@db/app\" -c 'select 1'"}`, 1},
		{"two URLs", "a=redis://:one1@r b=amqp://u:two2@q", "a=redis://:" + m + "@r b=amqp://u:" + m + "@q", 2},
		{"git remote with a token: gitleaks names it", "git remote add origin https://x-access-token:" + pat + "@github.com/o/r.git",
			"git remote add origin https://x-access-token:[REDACTED:github-pat]@github.com/o/r.git", 1},
		{"a token inside a longer password: the whole password", "https://u:xx" + pat + "yy@github.com/o",
			"https://u:" + m + "@github.com/o", 1},

		// near misses: nothing to redact
		{"port, no userinfo", "http://host:8080/path", "http://host:8080/path", 0},
		{"e-mail address", "write to a@b.com", "write to a@b.com", 0},
		{"scp syntax", "git clone git@github.com:o/r.git; rsync user@host:path .", "git clone git@github.com:o/r.git; rsync user@host:path .", 0},
		{"'@' in the path", "https://example.com/@user", "https://example.com/@user", 0},
		{"'@' in the query", "https://example.com/x?email=a@b.com", "https://example.com/x?email=a@b.com", 0},
		{"user, no password", "ssh://git@github.com:22/o/r.git", "ssh://git@github.com:22/o/r.git", 0},
		{"empty password", "https://user:@host/x", "https://user:@host/x", 0},
		{"no scheme", "see ://user:pw12@host", "see ://user:pw12@host", 0},
		{"scheme not starting with a letter", "1+://user:pw12@host", "1+://user:pw12@host", 0},
		{"variable", "postgres://user:${DB_PASSWORD}@host/db", "postgres://user:${DB_PASSWORD}@host/db", 0},
		{"shell variable", "postgres://user:$PGPASS@host/db", "postgres://user:$PGPASS@host/db", 0},
		{"template", "postgres://{{.User}}:{{.Password}}@host/db", "postgres://{{.User}}:{{.Password}}@host/db", 0},
		{"format verbs", `fmt.Sprintf("postgres://%s:%s@%s/%s", u, p, h, d)`, `fmt.Sprintf("postgres://%s:%s@%s/%s", u, p, h, d)`, 0},
		{"masked", "https://user:****@host and https://user:xxxx@host", "https://user:****@host and https://user:xxxx@host", 0},
		{"angle-bracket placeholder", "postgres://user:<password>@host/db", "postgres://user:<password>@host/db", 0},
		{"already redacted", "postgres://u:" + m + "@h/db", "postgres://u:" + m + "@h/db", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, n := redact.Text(tc.in)
			if got != tc.want || n != tc.n {
				t.Errorf("Text(%q)\n = %q, %d\nwant %q, %d", tc.in, got, n, tc.want, tc.n)
			}
		})
	}
}

// TestURLPasswordHead: a preview's head redacts a URL password as the
// whole text does, and counts it.
func TestURLPasswordHead(t *testing.T) {
	r, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	// the line is 34 bytes: the 40-byte head holds it and 6 x's
	in := "$ psql postgres://app:pw12@db/app\n" + strings.Repeat("x", 200)
	got, n := r.Head(in, 40)
	if want := "$ psql postgres://app:[REDACTED:url-password]@db/app\nxxxxxx"; got != want || n != 1 {
		t.Errorf("Head = %q, %d; want %q, 1", got, n, want)
	}
}
