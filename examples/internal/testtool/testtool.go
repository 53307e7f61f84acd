// Package testtool lets the examples' tests use tools Go does not fetch
// (PostgreSQL): a test that finds one missing skips, saying how to get it,
// or fails when VANE_REQUIRE_TOOLS=1 (as CI sets it).
//
// It stands in, inside the examples module, for the root module's
// internal/testtool; the two follow the same rules.
package testtool

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// Missing skips t because what is missing, saying how to get it; with
// VANE_REQUIRE_TOOLS=1 it fails t instead.
func Missing(t testing.TB, what, how string) {
	t.Helper()
	if os.Getenv("VANE_REQUIRE_TOOLS") == "1" {
		t.Fatalf("%s is missing (VANE_REQUIRE_TOOLS=1): %s", what, how)
	}
	t.Skipf("%s is missing: %s", what, how)
}

// PostgresURL returns the URL of the PostgreSQL server for tests: the value
// of $VANE_TEST_POSTGRES_URL, else the contents of <repo>/.tools/postgres.url
// (written by scripts/setup). When neither names a server that answers, t
// is skipped (failed under VANE_REQUIRE_TOOLS=1).
func PostgresURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("VANE_TEST_POSTGRES_URL")
	from := "$VANE_TEST_POSTGRES_URL"
	if u == "" {
		if root := repoRoot(); root != "" {
			from = filepath.Join(root, ".tools", "postgres.url")
			if b, err := os.ReadFile(from); err == nil {
				u = strings.TrimSpace(string(b))
			}
		}
	}
	if u == "" {
		Missing(t, "PostgreSQL", "run scripts/setup, or set VANE_TEST_POSTGRES_URL to a server's URL")
		return ""
	}
	db, err := sql.Open("pgx", u)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = db.PingContext(ctx)
		cancel()
		db.Close()
	}
	if err != nil {
		Missing(t, "PostgreSQL", "the server named by "+from+" does not answer ("+err.Error()+"); run scripts/setup")
		return ""
	}
	return u
}

// PostgresSchema creates a schema of its own for t in the test server and
// returns a URL whose connections use it (search_path), so that tests
// share a server but no tables. The schema is dropped when t ends.
func PostgresSchema(t testing.TB) string {
	t.Helper()
	base := PostgresURL(t)
	name := "test_" + strings.ToLower(rand.Text()[:12])
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := db.ExecContext(ctx, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Errorf("dropping the test schema: %v", err)
		}
	})
	return withSearchPath(base, name)
}

// withSearchPath sets the search_path run-time parameter in a connection
// URL or keyword/value string.
func withSearchPath(conn, schema string) string {
	if u, err := url.Parse(conn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return conn + " search_path=" + schema
}

// repoRoot returns the directory of the root module (github.com/vane-http/vane),
// found upwards from the working directory, or "".
func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if f, err := os.Open(filepath.Join(dir, "go.mod")); err == nil {
			sc := bufio.NewScanner(f)
			first := ""
			if sc.Scan() {
				first = strings.TrimSpace(sc.Text())
			}
			f.Close()
			if first == "module github.com/vane-http/vane" {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
