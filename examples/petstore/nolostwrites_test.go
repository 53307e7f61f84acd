package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/vanetest"
)

// Of 16 writers that hold the same version, exactly one succeeds and the
// others get 412, for PUT, PATCH (merge patch and JSON Patch) and DELETE,
// in each of 5 rounds, on each database.
func TestConcurrentConditionalWrites(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		c := startService(t, db)
		const writers = 16
		for round := range 5 {
			id := newPet(t, c, fmt.Sprintf(`{"name":"Round %d","species":"cat"}`, round))
			for _, method := range []string{"PUT", "PATCH", "PATCH+json-patch", "DELETE"} {
				etag := c.get("/pets/" + id).header.Get("ETag")
				codes := make(chan int, writers)
				var wg sync.WaitGroup
				for i := range writers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						m, ctype, body := method, "application/json", fmt.Sprintf(`{"name":"W%d","species":"cat"}`, i)
						switch method {
						case "PATCH":
							ctype, body = "application/merge-patch+json", fmt.Sprintf(`{"name":"P%d"}`, i)
						case "PATCH+json-patch":
							m, ctype, body = "PATCH", "application/json-patch+json", fmt.Sprintf(`[{"op":"replace","path":"/name","value":"J%d"}]`, i)
						case "DELETE":
							ctype, body = "", ""
						}
						codes <- c.doHeaders(m, "/pets/"+id, ctype, body, "If-Match", etag).status
					}()
				}
				wg.Wait()
				close(codes)
				count := map[int]int{}
				for code := range codes {
					count[code]++
				}
				if count[200]+count[204] != 1 || count[412] != writers-1 {
					t.Fatalf("round %d, %s: answers %v; want one success and %d 412s", round, method, count, writers-1)
				}
			}
		}
	})
}

// Merge patches and JSON patches of different members, sent at once
// without If-Match, keep every change that was answered 2xx: 15 rounds of
// 3 on each database.
func TestConcurrentPatchesKeepEveryChange(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		c := startService(t, db)
		for round := range 15 {
			id := newPet(t, c, `{"name":"Patchy","species":"dog"}`)
			name, birth, owner := fmt.Sprintf("Patchy %d", round), fmt.Sprintf("2020-01-%02d", round+1), fmt.Sprintf("Owner %d", round)
			patches := []struct{ ctype, body string }{
				{"application/merge-patch+json", `{"name":"` + name + `"}`},
				{"application/merge-patch+json", `{"birthDate":"` + birth + `"}`},
				{"application/json-patch+json", `[{"op":"add","path":"/owner","value":"` + owner + `"}]`},
			}
			codes := make([]int, len(patches))
			var wg sync.WaitGroup
			for i, p := range patches {
				wg.Add(1)
				go func() {
					defer wg.Done()
					codes[i] = c.doHeaders("PATCH", "/pets/"+id, p.ctype, p.body).status
				}()
			}
			wg.Wait()
			got := decode[Pet](t, c.get("/pets/"+id), 200)
			for i, code := range codes {
				switch {
				case code == 409 || code == 412:
					continue // refused, and said so
				case code != 200:
					t.Fatalf("round %d: patch %d answered %d", round, i, code)
				case i == 0 && got.Name != name, i == 1 && got.BirthDate != birth, i == 2 && (got.Owner == nil || *got.Owner != owner):
					t.Fatalf("round %d: patch %d was answered 200, and its change is lost: %+v", round, i, got)
				}
			}
		}
	})
}

// A stream replays, after a reconnect with Last-Event-ID, exactly the
// events the client missed, in order, and then the new ones; a client
// further behind than the service keeps is told so with a reset event.
func TestEventsReplayAfterReconnect(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		store := db.freshStore(t)
		srv := httptest.NewServer(newService(store, map[string]string{testToken: "tester"}, options{}))
		t.Cleanup(srv.Close)
		c := &client{t, srv.URL}

		s := openStream(t, srv.URL, "0") // from the first event on: none is missed while the stream subscribes
		first := newPet(t, c, `{"name":"One","species":"cat"}`)
		e := s.next(t)
		if e.Name != "created" || e.ID == "" {
			t.Fatalf("first event %+v", e)
		}
		s.close()

		// Missed while away: a create, an update, a delete.
		second := newPet(t, c, `{"name":"Two","species":"cat"}`)
		c.doHeaders("PUT", "/pets/"+second, "application/json", `{"name":"Two II","species":"cat"}`)
		c.do("DELETE", "/pets/"+first, "", nil, testToken)

		s = openStream(t, srv.URL, e.ID)
		want := []string{"created " + second, "updated " + second, "deleted " + first}
		prev, _ := strconv.Atoi(e.ID)
		for i, w := range want {
			got := s.next(t)
			id, _ := strconv.Atoi(got.ID)
			if got.Name+" "+petID(got) != w || id <= prev {
				t.Fatalf("replayed event %d: %s %s (id %s), want %s after id %d", i, got.Name, petID(got), got.ID, w, prev)
			}
			prev = id
		}
		third := newPet(t, c, `{"name":"Three","species":"cat"}`)
		if got := s.next(t); got.Name != "created" || petID(got) != third {
			t.Fatalf("live event after the replay: %+v", got)
		}
		s.close()

		// Retention deleted what a very old client missed.
		if err := store.PruneEvents(context.Background(), 1, time.Hour); err != nil {
			t.Fatal(err)
		}
		s = openStream(t, srv.URL, "1")
		if got := s.next(t); got.Name != "reset" {
			t.Fatalf("a client behind retention got %+v, want a reset event", got)
		}
		if got := s.next(t); got.Name != "created" || petID(got) != third {
			t.Fatalf("after the reset: %+v", got)
		}
		s.close()
	})
}

// Two stores on one PostgreSQL database are two replicas: a stream on one
// sees a change made through the other, by PostgreSQL's notification. The
// feeds' poll is an hour here, so that only the notification brings the
// event before s.next gives up; the time it took is logged, not asserted.
func TestEventsReachEveryReplica(t *testing.T) {
	prev := pollEvery
	pollEvery = time.Hour
	t.Cleanup(func() { pollEvery = prev })
	db := testDBs[1]
	url := db.fresh(t)
	a, b := db.openStore(t, url), db.openStore(t, url)
	waitListening(t, url, 2) // a notification sent before LISTEN is lost
	srvA := httptest.NewServer(newService(a, map[string]string{testToken: "tester"}, options{}))
	t.Cleanup(srvA.Close)
	srvB := httptest.NewServer(newService(b, map[string]string{testToken: "tester"}, options{}))
	t.Cleanup(srvB.Close)
	s := openStream(t, srvB.URL, "0")
	defer s.close()
	start := time.Now()
	id := newPet(t, &client{t, srvA.URL}, `{"name":"Elsewhere","species":"bird"}`)
	got := s.next(t)
	if got.Name != "created" || petID(got) != id {
		t.Fatalf("replica B's stream got %+v", got)
	}
	t.Logf("the event reached the other replica in %v", time.Since(start))
}

// waitListening waits until n connections LISTEN on the database at url,
// up to a minute: the feeds connect on their own goroutines, and a loaded
// machine may take long to; the wait ends as soon as they do.
func waitListening(t *testing.T, url string, n int) {
	t.Helper()
	admin, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	listening := 0
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if err := admin.QueryRow(`SELECT COUNT(*) FROM pg_stat_activity
			WHERE datname = current_database() AND query LIKE 'LISTEN %'`).Scan(&listening); err != nil {
			t.Fatal(err)
		}
		if listening >= n {
			return
		}
	}
	t.Fatalf("%d of %d feeds LISTEN after a minute", listening, n)
}

// A database that cannot be reached is a 503 problem with Retry-After,
// never a 500; readiness fails meanwhile.
func TestDatabaseDownIs503(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connections are refused
	db, err := sql.Open("pgx", "postgres://vane@"+addr+"/pets?connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	store := &Store{db: db, d: postgres, now: time.Now}
	h := httptest.NewServer(newService(store, map[string]string{testToken: "tester"}, options{ready: readiness(&vane.Server{}, store)}))
	t.Cleanup(h.Close)
	c := &client{t, h.URL}
	for _, r := range []response{
		c.get("/pets/1"),
		c.get("/pets"),
		c.sendJSON("POST", "/pets", `{"name":"Nemo","species":"fish"}`, testToken),
		c.doHeaders("PUT", "/pets/1", "application/json", `{"name":"Nemo","species":"fish"}`),
		c.doHeaders("PATCH", "/pets/1", "application/merge-patch+json", `{"name":"Nemo"}`),
		c.do("DELETE", "/pets/1", "", nil, testToken),
	} {
		if r.status != 503 || r.header.Get("Retry-After") == "" {
			t.Errorf("%d %v %s, want 503 with Retry-After", r.status, r.header, r.body)
			continue
		}
		r.problem(t)
	}
	if r := c.get("/readyz"); r.status != 503 {
		t.Errorf("readiness %d with the database down", r.status)
	}
}

// unavailable tells a database that is away from a query that failed.
func TestUnavailable(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{syscall.ECONNREFUSED, true},
		{fmt.Errorf("dial: %w", syscall.ECONNRESET), true},
		{io.ErrUnexpectedEOF, true},
		{sql.ErrConnDone, true},
		{errors.New(`ERROR: syntax error at or near "SELEC" (SQLSTATE 42601)`), false},
		{errNotFound, false},
		{sql.ErrNoRows, false},
	} {
		if got := unavailable(c.err); got != c.want {
			t.Errorf("unavailable(%v) = %v", c.err, got)
		}
	}
}

// ---- helpers ----

// newPet creates a pet and returns its ID.
func newPet(t *testing.T, c *client, body string) string {
	t.Helper()
	return strconv.FormatInt(decode[Pet](t, c.sendJSON("POST", "/pets", body, testToken), 201).ID, 10)
}

// stream is an open event stream, parsed as a browser's EventSource does.
type stream struct {
	res    *http.Response
	events <-chan vanetest.Event
}

// sse is an event of a stream.
type sse = vanetest.Event

// petID is the ID of the pet an event is about.
func petID(e sse) string {
	var d struct {
		ID  int64 `json:"id"`
		Pet struct {
			ID int64 `json:"id"`
		} `json:"pet"`
	}
	json.Unmarshal([]byte(e.Data), &d)
	return strconv.FormatInt(max(d.ID, d.Pet.ID), 10)
}

func openStream(t *testing.T, base, lastID string) *stream {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/pets/events", nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("stream: %v %v", res, err)
	}
	return &stream{res: res, events: vanetest.Events(res.Body)}
}

func (s *stream) next(t *testing.T) sse {
	t.Helper()
	select {
	case e, ok := <-s.events:
		if !ok {
			t.Fatal("the stream ended")
		}
		return e
	case <-time.After(time.Minute): // generous for a loaded machine; an event comes in milliseconds
		t.Fatal("no event within a minute")
	}
	return sse{}
}

func (s *stream) close() { s.res.Body.Close() }

// The bearer scheme's name is case-insensitive, and one or more spaces
// come before the token (RFC 9110 section 11.1).
func TestBearerToken(t *testing.T) {
	for h, want := range map[string]string{
		"Bearer abc": "abc", "bearer abc": "abc", "BEARER   abc": "abc",
		"Bearerabc": "", "Basic abc": "", "Bearer ": "", "": "",
	} {
		if got, ok := bearerToken(h); got != want || ok != (want != "") {
			t.Errorf("bearerToken(%q) = %q, %v", h, got, ok)
		}
	}
}

// A search with a NUL (which ends SQLite's LIKE pattern, matching every
// pet) or another control character is refused, not run.
func TestSearchRefusesControlCharacters(t *testing.T) {
	c := startService(t, testDBs[0])
	for _, q := range []string{"%00", "a%00b", "%0A"} {
		if r := c.get("/pets?q=" + q); r.status != 422 {
			t.Errorf("q=%s: %d %s", q, r.status, r.body)
		}
	}
	if r := c.get("/pets?q=%25"); r.status != 200 || strings.Contains(string(r.body), `"name"`) {
		t.Errorf("q=%%: %d %s; want no pet (a literal %%)", r.status, r.body)
	}
}

// OPTIONS on the event stream's path says what its 405 says, and HEAD on
// it answers the headers without a stream.
func TestEventsAllowAndHead(t *testing.T) {
	c := startService(t, testDBs[0])
	opts := c.do("OPTIONS", "/pets/events", "", nil, "")
	post := c.do("POST", "/pets/events", "application/json", strings.NewReader("{}"), testToken)
	if opts.header.Get("Allow") != post.header.Get("Allow") || post.status != 405 || opts.header.Get("Allow") != "GET, HEAD, OPTIONS" {
		t.Errorf("OPTIONS Allow %q (%d), 405 Allow %q (%d)", opts.header.Get("Allow"), opts.status, post.header.Get("Allow"), post.status)
	}
	head := c.do("HEAD", "/pets/events", "", nil, "")
	if head.status != 200 || !strings.HasPrefix(head.header.Get("Content-Type"), "text/event-stream") || len(head.body) != 0 {
		t.Errorf("HEAD: %d %v", head.status, head.header)
	}
}

// HEAD and GET agree on Content-Encoding and Content-Length under the
// service's compression.
func TestHeadAgreesWithGetUnderGzip(t *testing.T) {
	c := startService(t, testDBs[0])
	for _, path := range []string{"/pets?limit=100", "/pets/1", "/openapi.json"} {
		var got [2]string
		for i, m := range []string{"GET", "HEAD"} {
			req, _ := http.NewRequest(m, c.base+path, nil)
			req.Header.Set("Accept-Encoding", "gzip")
			res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			got[i] = fmt.Sprintf("%d %q %q", res.StatusCode, res.Header.Get("Content-Encoding"), res.Header.Get("Content-Length"))
		}
		if got[0] != got[1] {
			t.Errorf("%s: GET %s, HEAD %s", path, got[0], got[1])
		}
	}
}

// Pages follow by cursor, with the same link in the body and in a Link
// header; a cursor changed, or used with other filters, is a 400 naming
// query.cursor, never another page.
func TestListByCursor(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		c := startService(t, db)
		r := c.get("/pets?limit=1&species=dog")
		p := decode[Page[Pet]](t, r, 200)
		if p.Next == nil || r.header.Get("Link") != "<"+*p.Next+`>; rel="next"` || !strings.Contains(*p.Next, "cursor=") {
			t.Fatalf("next %v, Link %q", p.Next, r.header.Get("Link"))
		}
		u, _ := url.Parse(*p.Next)
		cursor := u.Query().Get("cursor")
		for name, query := range map[string]string{
			"other filters": "species=cat&cursor=" + url.QueryEscape(cursor),
			"changed":       "species=dog&cursor=" + url.QueryEscape(cursor[:len(cursor)-2]+"AA"),
		} {
			r := c.get("/pets?" + query)
			if r.status != 400 || !strings.Contains(string(r.body), `"location":"query.cursor"`) {
				t.Errorf("%s: %d %s", name, r.status, r.body)
			}
		}
	})
}

// A search finds the names that contain it, ignoring case, through the
// index for three characters or more, and reads quotes, percent signs
// and underscores as themselves.
func TestSearchByIndex(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		c := startService(t, db)
		newPet(t, c, `{"name":"Sir \"Quote\" 100%_off","species":"cat"}`)
		for q, want := range map[string]string{
			"isc": "Biscuit", "ISCU": "Biscuit", "bi": "Biscuit", "qj": "", "quote\"": `Sir "Quote" 100%_off`,
			"100%_": `Sir "Quote" 100%_off`, "0%": `Sir "Quote" 100%_off`, "%_o": `Sir "Quote" 100%_off`, "zzz": "",
		} {
			p := decode[Page[Pet]](t, c.get("/pets?q="+url.QueryEscape(q)), 200)
			var got []string
			for _, pet := range p.Items {
				got = append(got, pet.Name)
			}
			if strings.Join(got, ",") != want {
				t.Errorf("q=%s: %v, want %q", q, got, want)
			}
		}
		// The index follows renames and deletes.
		id := newPet(t, c, `{"name":"Zanzibar","species":"bird"}`)
		c.doHeaders("PUT", "/pets/"+id, "application/json", `{"name":"Mombasa","species":"bird"}`)
		if p := decode[Page[Pet]](t, c.get("/pets?q=zanz"), 200); len(p.Items) != 0 {
			t.Errorf("a renamed pet is found by its old name: %v", p.Items)
		}
		if p := decode[Page[Pet]](t, c.get("/pets?q=omba"), 200); len(p.Items) != 1 {
			t.Errorf("a renamed pet is not found by its new name: %v", p.Items)
		}
		c.do("DELETE", "/pets/"+id, "", nil, testToken)
		if p := decode[Page[Pet]](t, c.get("/pets?q=omba"), 200); len(p.Items) != 0 {
			t.Errorf("a deleted pet is found: %v", p.Items)
		}
	})
}
