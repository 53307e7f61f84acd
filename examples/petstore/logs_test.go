package main

import (
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vane-http/vane/internal/syncbuf"
)

// records parses a JSON log, one record a line, failing on a line that is
// not JSON.
func records(t *testing.T, log string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(log) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("log line is not JSON: %q", line)
			continue
		}
		out = append(out, rec)
	}
	return out
}

// getWithID sends GET base+path with the request ID id and returns the
// status and body.
func getWithID(t *testing.T, base, path, id string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
	req.Header.Set("X-Request-Id", id)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// An operation that fails (a 500, its cause logged by vane through slog's
// default logger) is logged as a JSON record of the service's log, with
// the request's ID, like the request's own line.
func TestOperationFailedIsLoggedAsJSONWithItsRequestID(t *testing.T) {
	dir := t.TempDir()
	r := start(t, []string{"-data", dir}, nil)
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(dir, "pets.db"))+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("DROP TABLE pet_photos"); err != nil {
		t.Fatal(err)
	}
	if status, body := getWithID(t, r.base, "/pets/1", "broken-1"); status != 500 || strings.Contains(body, "pet_photos") {
		t.Errorf("GET /pets/1 with a table missing: %d %s", status, body)
	}
	r.stop()
	failed := 0
	for _, rec := range records(t, r.logs.String()) {
		if strings.Contains(rec["msg"].(string), "operation failed") {
			failed++
			if rec["request_id"] != "broken-1" || !strings.Contains(rec["error"].(string), "pet_photos") {
				t.Errorf("operation failed record %v, want request_id broken-1 and the error", rec)
			}
		}
	}
	if failed != 1 {
		t.Errorf("%d operation failed records, want 1:\n%s", failed, r.logs.String())
	}
}

// The database error behind a 503 is logged, with the request's ID, and
// not shown to the client.
func TestUnavailableDatabaseErrorIsLogged(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		store := db.freshStore(t)
		logs := &syncbuf.Buffer{}
		logger := slog.New(requestIDHandler{slog.NewJSONHandler(logs, nil)})
		srv := httptest.NewServer(newService(store, nil, options{logger: logger}))
		t.Cleanup(srv.Close)
		if err := store.db.Close(); err != nil {
			t.Fatal(err)
		}
		status, body := getWithID(t, srv.URL, "/pets/1", "down-1")
		if status != 503 || strings.Contains(body, "closed") {
			t.Errorf("GET /pets/1 with the database closed: %d %s", status, body)
		}
		found := false
		for _, rec := range records(t, logs.String()) {
			if rec["msg"] == "database unavailable" {
				found = true
				if rec["request_id"] != "down-1" || rec["error"] != "sql: database is closed" {
					t.Errorf("record %v, want request_id down-1 and the database's error", rec)
				}
			}
		}
		if !found {
			t.Errorf("the cause of the 503 is not logged:\n%s", logs.String())
		}
	})
}
