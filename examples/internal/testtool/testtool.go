// Package testtool gives the examples' tests a PostgreSQL database of their
// own. Finding the server, and skipping (or failing under
// VANE_REQUIRE_TOOLS=1) when there is none, is the root module's
// internal/testtool; this package adds what needs the pgx driver: a check
// that the server answers, and a schema per test.
package testtool

import (
	"context"
	"crypto/rand"
	"database/sql"
	"net/url"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	roottool "github.com/vane-http/vane/internal/testtool"
)

// PostgresURL returns the URL of the PostgreSQL server for tests (see the
// root's testtool.PostgresURL) once it answers; when it does not, t is
// skipped (failed under VANE_REQUIRE_TOOLS=1).
func PostgresURL(t testing.TB) string {
	t.Helper()
	u := roottool.PostgresURL(t)
	db, err := sql.Open("pgx", u)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = db.PingContext(ctx)
		cancel()
		db.Close()
	}
	if err != nil {
		roottool.Unavailable(t, "the PostgreSQL server for tests does not answer ("+err.Error()+")")
	}
	return u
}

// PostgresSchema creates a schema of its own for t in the test server and
// returns a URL whose connections use it (search_path), so that tests
// share a server but no tables. The schema is dropped when t ends.
//
// The search path ends with public, where the extensions the example's
// migrations create are installed once for every test: an extension lives
// in one schema of a database, and one created in a test's own schema
// would be invisible to the tests running beside it, and dropped with it.
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
	if _, err := db.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := db.ExecContext(ctx, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Errorf("dropping the test schema: %v", err)
		}
	})
	return withSearchPath(base, name+",public")
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
