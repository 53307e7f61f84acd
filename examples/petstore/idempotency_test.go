package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/vanetest"
)

// keyedService serves the whole service on store, its answers checked
// against the document, with two users: "tester" (testToken) and "other"
// (otherToken).
func keyedService(t *testing.T, store *Store) *client {
	t.Helper()
	// The API's Timeout is a minute, as startServiceOn's: a loaded machine
	// must not turn a slow answer into a 503.
	h := newService(store, map[string]string{testToken: "tester", otherToken: "other"}, options{timeout: time.Minute})
	srv := httptest.NewServer(vanetest.New(t, h, vanetest.ExplicitStatuses()).Handler())
	t.Cleanup(srv.Close)
	return &client{t, srv.URL}
}

const otherToken = "other-token"

// problemType is the type of a problem answer.
func problemType(t *testing.T, r response) string {
	t.Helper()
	var p struct{ Type string }
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("%d %s: %v", r.status, r.body, err)
	}
	return p.Type
}

// loseNextKeyedCommit makes the next commit of a keyed write succeed and
// then fail as if its answer was lost (a connection reset), as when the
// database crashes right after it committed.
func loseNextKeyedCommit(store *Store) *atomic.Bool {
	armed := new(atomic.Bool)
	store.commitFault = func(ctx context.Context) error {
		if ctx.Value(outcomeKey{}) != nil && armed.CompareAndSwap(true, false) {
			return &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
		}
		return nil
	}
	return armed
}

// countNamed is how many pets are named name.
func countNamed(t *testing.T, store *Store, name string) int {
	t.Helper()
	pets, _, err := store.List(context.Background(), Filter{Query: name}, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range pets {
		if p.Name == name {
			n++
		}
	}
	return n
}

// The committed-but-503 write: a POST whose commit was made and whose
// answer was lost is a 503 that says the outcome is unknown (not that
// nothing changed), and its retry with the same key is answered with the
// first outcome, the pet that was created, without creating another. The
// same for PUT with If-Match (not a 412, as if it had lost), PATCH and
// DELETE (not a 404).
func TestRetryAfterALostCommitWritesOnce(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		store := db.freshStore(t)
		lose := loseNextKeyedCommit(store)
		c := keyedService(t, store)
		const key = "9b1f0c3e-lost-commit-post-0001"

		lose.Store(true)
		first := c.doHeaders("POST", "/pets", "application/json", `{"name":"Lazarus","species":"cat"}`, "Idempotency-Key", `"`+key+`"`)
		if first.status != 503 || problemType(t, first) != vane.OutcomeUnknownType || first.header.Get("Retry-After") == "" {
			t.Fatalf("the lost commit: %d %v %s", first.status, first.header, first.body)
		}
		if n := countNamed(t, store, "Lazarus"); n != 1 {
			t.Fatalf("%d pets after the lost commit, want 1 (it was made)", n)
		}
		retry := c.doHeaders("POST", "/pets", "application/json", `{"name":"Lazarus","species":"cat"}`, "Idempotency-Key", `"`+key+`"`)
		pet := decode[Pet](t, retry, 201)
		if retry.header.Get("Idempotent-Replayed") != "true" || retry.header.Get("Location") != "/pets/"+strconv.FormatInt(pet.ID, 10) {
			t.Fatalf("the retry: %v %s", retry.header, retry.body)
		}
		stored, err := store.Get(context.Background(), pet.ID)
		if err != nil || stored.Name != "Lazarus" {
			t.Fatalf("the replayed pet %d: %+v, %v", pet.ID, stored, err)
		}
		if n := countNamed(t, store, "Lazarus"); n != 1 {
			t.Fatalf("%d pets after the retry, want 1", n)
		}
		id := "/pets/" + strconv.FormatInt(pet.ID, 10)

		// PUT with If-Match: the retry is the first answer, not a 412.
		etag := c.get(id).header.Get("ETag")
		lose.Store(true)
		put := func() response {
			return c.doHeaders("PUT", id, "application/json", `{"name":"Lazarus II","species":"cat"}`,
				"If-Match", etag, "Idempotency-Key", key+"-put")
		}
		if r := put(); r.status != 503 || problemType(t, r) != vane.OutcomeUnknownType {
			t.Fatalf("PUT's lost commit: %d %s", r.status, r.body)
		}
		r := put()
		if r.status != 200 || r.header.Get("Idempotent-Replayed") != "true" || r.header.Get("ETag") == etag {
			t.Fatalf("PUT's retry: %d %v %s", r.status, r.header, r.body)
		}
		if got := c.get(id); got.header.Get("ETag") != r.header.Get("ETag") {
			t.Fatalf("the pet is at %s, the replay says %s", got.header.Get("ETag"), r.header.Get("ETag"))
		}

		// PATCH.
		lose.Store(true)
		patch := func() response {
			return c.doHeaders("PATCH", id, "application/merge-patch+json", `{"owner":"Martha"}`, "Idempotency-Key", key+"-patch")
		}
		if r := patch(); r.status != 503 || problemType(t, r) != vane.OutcomeUnknownType {
			t.Fatalf("PATCH's lost commit: %d %s", r.status, r.body)
		}
		before := c.get(id).header.Get("ETag")
		r = patch()
		if r.status != 200 || r.header.Get("Idempotent-Replayed") != "true" || r.header.Get("ETag") != before {
			t.Fatalf("PATCH's retry: %d %v %s, the pet at %s", r.status, r.header, r.body, before)
		}

		// DELETE: the retry is the first 204, not a 404.
		lose.Store(true)
		del := func() response { return c.doHeaders("DELETE", id, "", "", "Idempotency-Key", key+"-delete") }
		if r := del(); r.status != 503 || problemType(t, r) != vane.OutcomeUnknownType {
			t.Fatalf("DELETE's lost commit: %d %s", r.status, r.body)
		}
		if r := del(); r.status != 204 || r.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("DELETE's retry: %d %v %s", r.status, r.header, r.body)
		}
		if r := c.get(id); r.status != 404 {
			t.Fatalf("the deleted pet: %d", r.status)
		}
	})
}

// The same key with another request is a 422 and writes nothing; keys are
// the user's: another user's same key is another key; a key on another
// operation is another key.
func TestIdempotencyKeysOfTheService(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		store := db.freshStore(t)
		c := keyedService(t, store)
		const key = "5f7e1b2a-keys-of-the-service"
		first := decode[Pet](t, c.doHeaders("POST", "/pets", "application/json", `{"name":"Keyed","species":"dog","tags":["a","b"]}`, "Idempotency-Key", key), 201)
		// Member order does not make another request.
		again := c.doHeaders("POST", "/pets", "application/json", `{"tags":["a","b"],"species":"dog","name":"Keyed"}`, "Idempotency-Key", key)
		if decode[Pet](t, again, 201).ID != first.ID || again.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("the retry: %v %s", again.header, again.body)
		}
		other := c.doHeaders("POST", "/pets", "application/json", `{"name":"Keyed","species":"cat"}`, "Idempotency-Key", key)
		if other.status != 422 || problemType(t, other) != vane.KeyReusedType {
			t.Fatalf("another body: %d %s", other.status, other.body)
		}
		// Another user's key.
		theirs := c.doHeaders("POST", "/pets", "application/json", `{"name":"Keyed","species":"dog","tags":["a","b"]}`,
			"Idempotency-Key", key, "Authorization", "Bearer "+otherToken)
		if p := decode[Pet](t, theirs, 201); p.ID == first.ID || theirs.header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("another user got the first user's pet: %v %s", theirs.header, theirs.body)
		}
		// The key on another operation.
		id := "/pets/" + strconv.FormatInt(first.ID, 10)
		put := c.doHeaders("PUT", id, "application/json", `{"name":"Keyed II","species":"dog"}`, "Idempotency-Key", key)
		if put.status != 200 || put.header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("the key on PUT: %d %v %s", put.status, put.header, put.body)
		}
		// A PUT to another pet with the same key is another request.
		if r := c.doHeaders("PUT", "/pets/1", "application/json", `{"name":"Keyed II","species":"dog"}`, "Idempotency-Key", key); r.status != 422 {
			t.Fatalf("the key on another pet: %d %s", r.status, r.body)
		}
		if n, renamed := countNamed(t, store, "Keyed"), countNamed(t, store, "Keyed II"); n != 1 || renamed != 1 {
			t.Fatalf("%d pets named Keyed and %d Keyed II, want 1 and 1 (the other user's, and the first renamed)", n, renamed)
		}
		// A key that is too long, or of control characters (sent raw:
		// Go's client refuses them), is refused before anything is written.
		if r := c.doHeaders("POST", "/pets", "application/json", `{"name":"Badkey","species":"dog"}`, "Idempotency-Key", string(bytes.Repeat([]byte("k"), 4000))); r.status != 422 {
			t.Fatalf("a long key: %d %s", r.status, r.body)
		}
		for _, k := range []string{"\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13", "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f"} {
			if status := rawPost(t, c.base, "/pets", `{"name":"Badkey","species":"dog"}`, "Idempotency-Key: "+k); status != 400 && status != 422 {
				t.Fatalf("key %q: %d", k, status)
			}
		}
		if n := countNamed(t, store, "Badkey"); n != 0 {
			t.Fatalf("%d pets made with bad keys", n)
		}
	})
}

// Replicas share the keys through the database: the same keyed POST sent
// at once through two replicas of one PostgreSQL database makes one pet;
// every answer is the first outcome, its replay, or a 409.
func TestIdempotencyKeysAcrossReplicas(t *testing.T) {
	db := testDBs[1]
	u := db.fresh(t)
	clients := []*client{keyedService(t, db.openStore(t, u)), keyedService(t, db.openStore(t, u))}
	for round := range 10 {
		key := fmt.Sprintf("replicas-round-%02d-0123456789", round)
		name := fmt.Sprintf("Twin %d", round)
		const n = 8
		answers := make([]response, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[i] = clients[i%2].doHeaders("POST", "/pets", "application/json", `{"name":"`+name+`","species":"bird"}`, "Idempotency-Key", key)
			}()
		}
		wg.Wait()
		var ids []int64
		for _, r := range answers {
			switch r.status {
			case 201:
				ids = append(ids, decode[Pet](t, r, 201).ID)
			case 409:
			default:
				t.Fatalf("round %d: %d %s", round, r.status, r.body)
			}
		}
		for _, id := range ids {
			if id != ids[0] {
				t.Fatalf("round %d: answers name pets %v", round, ids)
			}
		}
		store := db.openStore(t, u)
		if got := countNamed(t, store, name); got != 1 {
			t.Fatalf("round %d: %d pets, want 1", round, got)
		}
	}
}

// The store keeps an outcome until it expires, and then forgets it: the
// key is free again, and the rows of expired keys are deleted as new ones
// are inserted.
func TestIdempotencyStoreExpiry(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		store := db.freshStore(t)
		k := keys{store}
		ctx := context.Background()
		t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
		rec := func(key string, created time.Time) *vane.IdempotencyRecord {
			return &vane.IdempotencyRecord{Key: key, Fingerprint: "fp-" + key, Status: 201,
				Header: http.Header{"Location": {"/pets/1"}}, Body: []byte(`{"id":1}`), Created: created, Expires: created.Add(time.Hour)}
		}
		for i := range 10 {
			if err := k.Save(ctx, rec("old-"+strconv.Itoa(i), t0)); err != nil {
				t.Fatal(err)
			}
		}
		got, err := k.Lookup(ctx, "old-0", t0.Add(time.Hour-time.Millisecond))
		if err != nil || got == nil || got.Status != 201 || got.Header.Get("Location") != "/pets/1" || string(got.Body) != `{"id":1}` ||
			!got.Expires.Equal(t0.Add(time.Hour)) || got.Fingerprint != "fp-old-0" {
			t.Fatalf("within the retention: %+v, %v", got, err)
		}
		if err := k.Save(ctx, rec("old-0", t0.Add(time.Minute))); err == nil {
			t.Fatal("a key saved twice within its retention")
		}
		if got, err := k.Lookup(ctx, "old-0", t0.Add(time.Hour)); err != nil || got != nil {
			t.Fatalf("after the retention: %+v, %v", got, err)
		}
		// The key is free again; and the insert deleted 8 of the expired.
		if err := k.Save(ctx, rec("old-0", t0.Add(time.Hour))); err != nil {
			t.Fatal(err)
		}
		var rows int
		if err := store.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM idempotency_keys").Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if rows != 2 {
			t.Fatalf("%d rows, want 2: the new one, and one of the 9 other expired that the insert's 8 left", rows)
		}
	})
}

// A commit that the database refused is what it says (nothing was
// written); one without an answer is a lostCommit, answered 503 of the
// outcome-unknown type.
func TestCommitErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		lost bool
	}{
		{&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{io.ErrUnexpectedEOF, true},
		{context.DeadlineExceeded, true},
		{fmt.Errorf("commit: %w", syscall.EPIPE), true},
	} {
		if got := !answered(c.err); got != c.lost {
			t.Errorf("%v: lost %v, want %v", c.err, got, c.lost)
		}
	}
	var err error = &lostCommit{cause: io.ErrUnexpectedEOF}
	if unavailable(err) {
		t.Error("a lost commit is taken for a database that is away")
	}
	if se := (&api{logger: slog.New(slog.DiscardHandler)}).storeError(context.Background(), err, 1); se != err {
		t.Errorf("storeError(lost commit) = %v", se)
	}
}

// lossyProxy stands between the store and PostgreSQL, and, when armed,
// loses the answer to a COMMIT: it forwards the COMMIT, waits for
// PostgreSQL's answer (the commit is made), and closes the client's
// connection instead of passing it on, as a crash of the network or of
// the server's host right after the commit would.
type lossyProxy struct {
	ln     net.Listener
	target string
	armed  atomic.Bool
	lost   atomic.Int32
}

func newLossyProxy(t *testing.T, target string) *lossyProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &lossyProxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go p.pipe(conn)
		}
	}()
	return p
}

func (p *lossyProxy) pipe(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	var dropping atomic.Bool
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := server.Read(buf)
			if n > 0 && dropping.Load() {
				// PostgreSQL answered the COMMIT: it is made. The client
				// never hears of it.
				p.lost.Add(1)
				client.Close()
				server.Close()
				return
			}
			if n > 0 {
				if _, err := client.Write(buf[:n]); err != nil {
					server.Close()
					return
				}
			}
			if err != nil {
				client.Close()
				return
			}
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := client.Read(buf)
		if n > 0 {
			// pgx sends COMMIT as a simple query: 'Q', its length, "commit\0".
			if bytes.Contains(bytes.ToLower(buf[:n]), []byte("commit\x00")) && p.armed.CompareAndSwap(true, false) {
				dropping.Store(true)
			}
			if _, err := server.Write(buf[:n]); err != nil {
				client.Close()
				return
			}
		}
		if err != nil {
			server.Close()
			return
		}
	}
}

// Against a real PostgreSQL whose answer to a COMMIT is lost on the
// network: the keyed POST is a 503 outcome unknown, and its retry creates
// nothing and answers with the pet the lost commit made.
func TestLostCommitOnTheWire(t *testing.T) {
	db := testDBs[1]
	u, err := url.Parse(db.fresh(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := newLossyProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	store := db.openStore(t, u.String())
	c := keyedService(t, store)
	const key = "wire-0f9e8d7c6b5a4-lost-commit"
	body := `{"name":"Over the wire","species":"fish"}`
	proxy.armed.Store(true)
	first := c.doHeaders("POST", "/pets", "application/json", body, "Idempotency-Key", key)
	if proxy.lost.Load() != 1 {
		t.Fatalf("the proxy lost %d answers to COMMIT; the first answer %d %s", proxy.lost.Load(), first.status, first.body)
	}
	if first.status != 503 || problemType(t, first) != vane.OutcomeUnknownType || first.header.Get("Retry-After") == "" {
		t.Fatalf("the lost commit: %d %v %s", first.status, first.header, first.body)
	}
	retry := c.doHeaders("POST", "/pets", "application/json", body, "Idempotency-Key", key)
	pet := decode[Pet](t, retry, 201)
	if retry.header.Get("Idempotent-Replayed") != "true" || pet.Name != "Over the wire" {
		t.Fatalf("the retry: %v %s", retry.header, retry.body)
	}
	if n := countNamed(t, store, "Over the wire"); n != 1 {
		t.Fatalf("%d pets, want 1", n)
	}
}

// rawPost sends a POST with the header line extra as it is, over a
// connection of its own, and returns the answer's status.
func rawPost(t *testing.T, base, path, body, extra string) int {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\nConnection: close\r\n\r\n%s",
		path, u.Host, testToken, len(body), extra, body)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}
