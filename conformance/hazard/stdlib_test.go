package hazard

import (
	"database/sql"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vane-http/vane"
	_ "modernc.org/sqlite" // database/sql driver "sqlite", pure Go
)

// Load cases: handlers hand req.Context() to the standard library, whose
// own goroutines (http.Transport's read and write loops, database/sql's
// awaitDone, the driver's interrupt watcher) keep using it after the
// handler returned. Under -race a reuse of that context is a reported data
// race, which fails the case; every answer is checked against the request
// that asked.

// workers and each size every load case: workers×each requests.
const (
	workers = 8
	each    = 30
)

// echoBackend is a second loopback server that answers with its request's
// path, query value v and X-User header.
func echoBackend(t *testing.T) (*httptest.Server, *http.Transport) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.WriteString(w, req.URL.Path+"|"+req.URL.Query().Get("v")+"|"+req.Header.Get(hdrUser))
	}))
	t.Cleanup(backend.Close)
	// One idle connection per host (the default is two): under load,
	// connections are closed and dialled again all the time, and a dial
	// started for one request, with its context, often ends after that
	// request got another connection and its handler returned.
	tr := &http.Transport{MaxIdleConnsPerHost: 1}
	t.Cleanup(tr.CloseIdleConnections)
	return backend, tr
}

// testHTTPClient: a handler calls a second server with
// http.NewRequestWithContext(req.Context(), …) under concurrent load.
func testHTTPClient(t *testing.T, e engine) {
	backend, tr := echoBackend(t)
	client := &http.Client{Transport: tr, Timeout: patience}
	rg := newRig(t, e)
	r := vane.New()
	r.Use(withUser)
	r.HandleFunc(http.MethodGet, "/calls/{id}", func(w http.ResponseWriter, req *http.Request) {
		id := req.Header.Get(hdrID)
		rg.expect(id, "vane.Param(id)", vane.Param(req, "id"), id)
		out, err := http.NewRequestWithContext(req.Context(), http.MethodGet,
			backend.URL+"/echo?v="+url.QueryEscape(vane.Param(req, "id")), nil)
		if err != nil {
			rg.fault("%s: %v", id, err)
			return
		}
		out.Header.Set(hdrUser, userOf(req.Context()))
		resp, err := client.Do(out)
		if err != nil {
			rg.fault("%s: calling the backend: %v", id, err)
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		if _, err := io.Copy(w, resp.Body); err != nil {
			rg.fault("%s: copying the backend's answer: %v", id, err)
		}
	})
	rg.start(r, false)
	rg.load(workers, each, func(id string) error {
		return rg.get("/calls/"+id, roleLoad, id, 200, "/echo|"+id+"|"+userFor(id))
	})
}

// testDatabaseSQL: a handler queries a real database (SQLite, pure Go)
// with req.Context() under concurrent load; database/sql's awaitDone
// goroutine of each query outlives the handler.
func testDatabaseSQL(t *testing.T, e engine) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "hazard.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(4) // requests also wait for a connection, with their context
	if _, err := db.Exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 64; i++ {
		if _, err := db.Exec(`INSERT INTO items (id, name) VALUES (?, ?)`, i, fmt.Sprintf("item-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	rg := newRig(t, e)
	r := vane.New()
	r.Use(withUser)
	r.HandleFunc(http.MethodGet, "/items/{n}", func(w http.ResponseWriter, req *http.Request) {
		id := req.Header.Get(hdrID)
		n := vane.Param(req, "n")
		rg.expect(id, "vane.Param(n)", n, strconv.Itoa(itemFor(id)))
		var name string
		if err := db.QueryRowContext(req.Context(), `SELECT name FROM items WHERE id = ?`, n).Scan(&name); err != nil {
			rg.fault("%s: %v", id, err)
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		rows, err := db.QueryContext(req.Context(), `SELECT id FROM items WHERE id <= ? ORDER BY id`, n)
		if err != nil {
			rg.fault("%s: %v", id, err)
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		defer rows.Close()
		count := 0
		for rows.Next() {
			count++
		}
		if err := rows.Err(); err != nil {
			rg.fault("%s: %v", id, err)
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, "%s|%d|%s", name, count, userOf(req.Context()))
	})
	rg.start(r, false)
	rg.load(workers, each, func(id string) error {
		n := itemFor(id)
		return rg.get("/items/"+strconv.Itoa(n), roleLoad, id, 200, fmt.Sprintf("item-%d|%d|%s", n, n, userFor(id)))
	})
}

// itemFor is the item, 1 to 64, that the request id asks for.
func itemFor(id string) int {
	h := fnv.New32a()
	io.WriteString(h, id)
	return int(h.Sum32()%64) + 1
}

// testReverseProxy: httputil.ReverseProxy routed by vane to a backend, on a
// route and under a Mount, under concurrent load. Its Rewrite reads the
// route's parameter and the user.
func testReverseProxy(t *testing.T, e engine) {
	backend, tr := echoBackend(t)
	target, err := url.Parse(backend.URL)
	if err != nil {
		t.Fatal(err)
	}
	rg := newRig(t, e)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.URL.Path = "/echo/" + vane.Param(pr.In, "id")
			pr.Out.URL.RawPath = ""
			pr.Out.Header.Set(hdrUser, userOf(pr.In.Context()))
		},
		Transport: tr,
		ErrorHandler: func(w http.ResponseWriter, req *http.Request, err error) {
			rg.fault("%s: proxying: %v", req.Header.Get(hdrID), err)
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	r := vane.New()
	r.Use(withUser)
	r.Handle(http.MethodGet, "/api/{id}", proxy)
	r.Mount("/mounted/{id}", proxy)
	rg.start(r, false)
	rg.load(workers, each, func(id string) error {
		path := "/api/" + id
		if strings.HasSuffix(id, "1") || strings.HasSuffix(id, "3") || strings.HasSuffix(id, "5") {
			path = "/mounted/" + id + "/rest"
		}
		return rg.get(path, roleLoad, id, 200, "/echo/"+id+"||"+userFor(id))
	})
}
