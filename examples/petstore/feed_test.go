package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane"
)

// A client that reconnects with the id of an event this replica's feed
// has not read yet (it saw it through another replica) is not sent that
// event again.
func TestEventsNoDuplicateAcrossReplicas(t *testing.T) {
	store := testDBs[0].freshStore(t)
	srv := httptest.NewServer(newService(store, map[string]string{testToken: "tester"}, options{}))
	t.Cleanup(srv.Close)
	c := &client{t, srv.URL}
	newPet(t, c, `{"name":"Seen","species":"cat"}`)
	newest, err := store.LastEventID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Once the feed has read it, it is made to lag by one event, as
	// another replica's does until its notification or poll comes.
	waitFeed(t, store, newest)
	store.feed.mu.Lock()
	store.feed.last = newest - 1
	store.feed.mu.Unlock()

	s := openStream(t, srv.URL, strconv.FormatInt(newest, 10))
	defer s.close()
	store.feed.poke() // the feed now reads the event the client has
	waitFeed(t, store, newest)
	id := newPet(t, c, `{"name":"New","species":"cat"}`)
	if got := s.next(t); got.Name != "created" || petID(got) != id || got.ID != strconv.FormatInt(newest+1, 10) {
		t.Fatalf("first event %s %s (id %s), want the new pet %s with id %d", got.Name, petID(got), got.ID, id, newest+1)
	}
}

// waitFeed waits until the store's feed has handed out the event of id
// last, up to a minute: the feed reads on its own goroutine, which a
// loaded machine may leave waiting; the wait ends as soon as it has.
func waitFeed(t *testing.T, store *Store, last int64) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		store.feed.mu.Lock()
		at := store.feed.last
		store.feed.mu.Unlock()
		if at == last {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the feed is at event %d a minute on, want %d", at, last)
		}
	}
}

// A Last-Event-ID that no event of the database ever had gets a reset
// event first, then the new events.
func TestEventsUnknownLastEventID(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		srv := httptest.NewServer(newService(db.freshStore(t), map[string]string{testToken: "tester"}, options{}))
		t.Cleanup(srv.Close)
		s := openStream(t, srv.URL, "999")
		defer s.close()
		if got := s.next(t); got.Name != "reset" || !strings.Contains(got.Data, "999") {
			t.Fatalf("first event %+v, want a reset", got)
		}
		id := newPet(t, &client{t, srv.URL}, `{"name":"New","species":"cat"}`)
		if got := s.next(t); got.Name != "created" || petID(got) != id {
			t.Fatalf("after the reset: %+v", got)
		}
	})
}

// A subscriber that falls more than its buffer behind is dropped (its
// stream ends, and the client replays) rather than skipping events.
func TestEventsSlowSubscriberIsDropped(t *testing.T) {
	s := testDBs[0].freshStore(t)
	s.feed.size = 2
	sub, _, unsubscribe := s.feed.subscribe()
	defer unsubscribe()
	for range 4 {
		if _, err := s.Create(context.Background(), PetInput{Name: "Nemo", Species: "fish"}); err != nil {
			t.Fatal(err)
		}
	}
	// Read nothing until the feed has handed out all four.
	newest, err := s.LastEventID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	waitFeed(t, s, newest)
	var ids []int64
	timeout := time.After(time.Minute) // generous: the buffered events are there already
	for {
		select {
		case e, ok := <-sub.c:
			if !ok {
				if len(ids) != 2 || ids[1] != ids[0]+1 {
					t.Errorf("received %v before being dropped, want two events in order", ids)
				}
				return
			}
			ids = append(ids, e.ID)
		case <-timeout:
			t.Fatalf("the slow subscriber was not dropped; received %v", ids)
		}
	}
}

// Conditional writes keep their HTTP meaning for a pet that does not
// exist: If-Match is 412, a write without preconditions 404.
func TestConditionalWritesOfMissingPets(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		c := startService(t, db)
		put := `{"name":"Rex","species":"dog"}`
		for _, r := range []struct {
			method, body string
			headers      []string
			want         int
		}{
			{"PUT", put, []string{"If-Match", `"1"`}, 412},
			{"PUT", put, []string{"If-Match", "*"}, 412},
			{"PUT", put, nil, 404},
			{"DELETE", "", []string{"If-Match", `"1"`}, 412},
			{"DELETE", "", nil, 404},
		} {
			ctype := ""
			if r.body != "" {
				ctype = "application/json"
			}
			if got := c.doHeaders(r.method, "/pets/99", ctype, r.body, r.headers...); got.status != r.want {
				t.Errorf("%s %v of no pet: %d %s, want %d", r.method, r.headers, got.status, got.body, r.want)
			}
		}
		if r := c.doHeaders("DELETE", "/pets/1", "", "", "If-Match", `"7"`); r.status != 412 {
			t.Errorf("DELETE with a stale If-Match: %d %s", r.status, r.body)
		}
		if r := c.doHeaders("DELETE", "/pets/1", "", "", "If-Match", `"1"`); r.status != 204 {
			t.Errorf("DELETE with the current If-Match: %d %s", r.status, r.body)
		}
	})
}

// When PostgreSQL ends the service's connections (pg_terminate_backend,
// as a restart does), requests are answered 200 or 503 with Retry-After,
// never 500, and the pool, the readiness probe and the event listener
// recover by themselves (in milliseconds; the limit of a minute is for a
// loaded machine).
func TestPostgresConnectionsKilled(t *testing.T) {
	base := testDBs[1].fresh(t)
	// An application_name of its own picks out this test's connections
	// on a server other tests share.
	app := "petstore_kill_" + strings.ToLower(rand.Text()[:8])
	u, err := url.Parse(base)
	if err != nil {
		t.Skip("the test server's address is not a URL")
	}
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	a, b := testDBs[1].openStore(t, u.String()), testDBs[1].openStore(t, u.String())
	serve := func(s *Store) *client {
		h := httptest.NewServer(newService(s, map[string]string{testToken: "tester"}, options{ready: readiness(&vane.Server{}, s)}))
		t.Cleanup(h.Close)
		return &client{t, h.URL}
	}
	ca, cb := serve(a), serve(b)
	for range 3 { // open a few pooled connections
		if r := ca.get("/pets/1"); r.status != 200 {
			t.Fatalf("before: %d %s", r.status, r.body)
		}
	}

	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var killed int
	if err := admin.QueryRow(`SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND pid <> pg_backend_pid()`, app).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	if killed < 3 { // at least a pooled connection of each store and the listeners
		t.Fatalf("terminated %d connections", killed)
	}

	deadline := time.Now().Add(time.Minute)
	ok, unavailable := 0, 0
	for ok < 5 {
		if time.Now().After(deadline) {
			t.Fatalf("no recovery within a minute: %d answers 200, %d 503", ok, unavailable)
		}
		switch r := ca.get("/pets/1"); {
		case r.status == 200:
			ok++
		case r.status == 503 && r.header.Get("Retry-After") != "":
			unavailable++
		default:
			t.Fatalf("after the connections were killed: %d %v %s", r.status, r.header, r.body)
		}
	}
	t.Logf("after pg_terminate_backend of %d connections: %d answers 503 before 5 answers 200", killed, unavailable)
	for _, c := range []*client{ca, cb} {
		for time.Now().Before(deadline) && c.get("/readyz").status != 200 {
			time.Sleep(50 * time.Millisecond)
		}
		if r := c.get("/readyz"); r.status != 200 {
			t.Errorf("readiness %d after the database came back", r.status)
		}
	}

	// Both replicas' listeners reconnect.
	for listening := 0; listening < 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of 2 event listeners reconnected within a minute", listening)
		}
		if err := admin.QueryRow(`SELECT COUNT(*) FROM pg_stat_activity
			WHERE application_name = $1 AND query LIKE 'LISTEN %'`, app).Scan(&listening); err != nil {
			t.Fatal(err)
		}
	}
	// A stream on B sees a change made through A. (A stream whose first
	// query met a killed connection ends at once; its client reconnects.
	// Readiness has since replaced B's connections.)
	newest, err := b.LastEventID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := openStream(t, cb.base, strconv.FormatInt(newest, 10))
	defer s.close()
	id := newPet(t, ca, `{"name":"After","species":"bird"}`)
	if got := s.next(t); got.Name != "created" || petID(got) != id {
		t.Fatalf("B's stream got %+v", got)
	}
}

// A store whose database is closed (the process shutting down) answers
// 503 with Retry-After, not 500.
func TestClosedDatabaseIs503(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		store := db.freshStore(t)
		srv := httptest.NewServer(newService(store, map[string]string{testToken: "tester"},
			options{ready: readiness(&vane.Server{}, store)}))
		t.Cleanup(srv.Close)
		c := &client{t, srv.URL}
		if err := store.db.Close(); err != nil {
			t.Fatal(err)
		}
		for _, r := range []response{
			c.get("/pets/1"),
			c.get("/pets"),
			c.sendJSON("POST", "/pets", `{"name":"Nemo","species":"fish"}`, testToken),
			c.doHeaders("PUT", "/pets/1", "application/json", `{"name":"Nemo","species":"fish"}`),
			c.do("DELETE", "/pets/1", "", nil, testToken),
		} {
			if r.status != 503 || r.header.Get("Retry-After") == "" {
				t.Errorf("%d %v %s, want 503 with Retry-After", r.status, r.header, r.body)
			}
		}
		if r := c.get("/readyz"); r.status != 503 {
			t.Errorf("readiness %d with the database closed", r.status)
		}
	})
}

// FuzzBearerToken: what bearerToken accepts is an Authorization value of
// the Bearer scheme (any case), spaces, and the token it returns.
func FuzzBearerToken(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer  abc", "Basic abc", "Bearer", "Bearer ", "BEARER\tabc", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		token, ok := bearerToken(h)
		if !ok {
			if token != "" {
				t.Fatalf("refused %q with token %q", h, token)
			}
			return
		}
		if token == "" || token[0] == ' ' || len(h) < 7 || !strings.EqualFold(h[:6], "Bearer") ||
			!strings.HasSuffix(h, token) || strings.Trim(h[6:len(h)-len(token)], " ") != "" || h[6] != ' ' {
			t.Fatalf("bearerToken(%q) = %q", h, token)
		}
		if again, ok := bearerToken("bEaReR " + token); !ok || again != token {
			t.Fatalf("token %q does not round-trip: %q, %v", token, again, ok)
		}
	})
}
