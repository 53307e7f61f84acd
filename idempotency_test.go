package vane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vane-http/vane/middleware"
)

// orders is a service whose writes count: each create appends an order.
type orders struct {
	mu     sync.Mutex
	items  []string
	writes atomic.Int32
	fail   atomic.Int32 // how many of the next creates fail with a 500
	// block, when not nil, holds the first create in its handler until
	// it is closed; entered receives a value once it is there.
	block   chan struct{}
	entered chan struct{}
	calls   atomic.Int32
}

type orderInput struct {
	Item string `json:"item" minLength:"1"`
	Qty  int    `json:"qty,omitempty"`
	Note any    `json:"note,omitempty"`
}

type createOrder struct {
	Idempotent
	Body orderInput
}

type orderCreated struct {
	Location string `header:"Location"`
	ETag     string `header:"ETag"`
	Cookie   string `header:"Set-Cookie"`
	Body     struct {
		ID   int    `json:"id"`
		Item string `json:"item"`
	}
}

type updateOrder struct {
	Idempotent
	ID   int    `path:"id"`
	Dry  bool   `query:"dry"`
	Tag  string `header:"X-Tag"`
	Body orderInput
}

func (o *orders) create(ctx context.Context, in *createOrder) (*orderCreated, error) {
	if o.block != nil && o.calls.Add(1) == 1 {
		o.entered <- struct{}{}
		<-o.block
	}
	if o.fail.Load() > 0 {
		o.fail.Add(-1)
		return nil, errors.New("the disk is full")
	}
	o.mu.Lock()
	o.items = append(o.items, in.Body.Item)
	id := len(o.items)
	o.mu.Unlock()
	o.writes.Add(1)
	out := &orderCreated{Location: "/orders/" + strconv.Itoa(id), ETag: `"1"`, Cookie: "seen=1"}
	out.Body.ID, out.Body.Item = id, in.Body.Item
	return out, nil
}

func (o *orders) update(ctx context.Context, in *updateOrder) (*struct{ Body orderInput }, error) {
	o.writes.Add(1)
	return &struct{ Body orderInput }{in.Body}, nil
}

// clock is a clock a test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

type principalKey struct{}

// keyedOrders serves o with idempotency keys kept in store, scoped to the
// X-User header's value as the principal.
func keyedOrders(o *orders, cfg Idempotency) *Router {
	if cfg.Principal == nil {
		cfg.Principal = func(req *http.Request) string { return req.Header.Get("X-User") }
	}
	keyed := IdempotencyKeys(cfg)
	r := New()
	Post(r, "/orders", o.create, keyed, Status(http.StatusCreated))
	Put(r, "/orders/{id}", o.update, keyed)
	return r
}

const key1 = "8e03978e-40d5-43e8-bc93-6894a57f9324"

// The same key with the same request is answered with the first outcome
// (status, headers, body), marked as a replay, and writes once; member
// order and white space in the JSON body do not make it another request.
func TestIdempotencyReplay(t *testing.T) {
	o := &orders{}
	r := keyedOrders(o, Idempotency{Store: NewMemoryIdempotencyStore()})
	first := send(r, "POST", "/orders", `{"item":"tea","qty":2}`, IdempotencyKeyHeader, `"`+key1+`"`)
	if first.Code != 201 || first.Header().Get(ReplayedHeader) != "" {
		t.Fatalf("first: %d %v %s", first.Code, first.Header(), first.Body)
	}
	for _, body := range []string{`{"item":"tea","qty":2}`, `{ "qty": 2, "item": "tea" }`} {
		for _, k := range []string{`"` + key1 + `"`, key1} { // an sf-string, or bare
			again := send(r, "POST", "/orders", body, IdempotencyKeyHeader, k)
			if again.Code != 201 || again.Header().Get(ReplayedHeader) != "true" {
				t.Fatalf("retry %s: %d %v %s", body, again.Code, again.Header(), again.Body)
			}
			for _, h := range []string{"Location", "ETag", "Content-Type"} {
				if again.Header().Get(h) != first.Header().Get(h) || again.Header().Get(h) == "" {
					t.Errorf("retry's %s %q, first's %q", h, again.Header().Get(h), first.Header().Get(h))
				}
			}
			if again.Header().Get("Set-Cookie") != "" {
				t.Errorf("a replay sets a cookie again: %q", again.Header().Get("Set-Cookie"))
			}
			if again.Body.String() != first.Body.String() {
				t.Errorf("retry's body %s, first's %s", again.Body, first.Body)
			}
		}
	}
	if n := o.writes.Load(); n != 1 {
		t.Fatalf("%d writes, want 1", n)
	}
	// Without a key, every request is a write.
	send(r, "POST", "/orders", `{"item":"tea","qty":2}`)
	send(r, "POST", "/orders", `{"item":"tea","qty":2}`)
	if n := o.writes.Load(); n != 3 {
		t.Fatalf("%d writes, want 3", n)
	}
}

// The same key with another request is a 422 of its own type, and writes
// nothing: another body, another path, other parameters.
func TestIdempotencyKeyReused(t *testing.T) {
	o := &orders{}
	r := keyedOrders(o, Idempotency{Store: NewMemoryIdempotencyStore()})
	if w := send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, key1); w.Code != 201 {
		t.Fatal(w.Code, w.Body)
	}
	if w := send(r, "PUT", "/orders/1?dry=true", `{"item":"tea"}`, IdempotencyKeyHeader, key1, "X-Tag", "a"); w.Code != 200 {
		t.Fatal(w.Code, w.Body)
	}
	for _, c := range []struct {
		method, path, body string
		headers            []string
	}{
		{"POST", "/orders", `{"item":"coffee"}`, nil},
		{"POST", "/orders", `{"item":"tea","qty":1}`, nil},
		{"POST", "/orders", `{"item":"tea","note":{"a":1}}`, nil},
		{"PUT", "/orders/2?dry=true", `{"item":"tea"}`, []string{"X-Tag", "a"}},
		{"PUT", "/orders/1?dry=false", `{"item":"tea"}`, []string{"X-Tag", "a"}},
		{"PUT", "/orders/1?dry=true", `{"item":"tea"}`, []string{"X-Tag", "b"}},
		{"PUT", "/orders/1", `{"item":"tea"}`, []string{"X-Tag", "a"}},
	} {
		w := send(r, c.method, c.path, c.body, append([]string{IdempotencyKeyHeader, key1}, c.headers...)...)
		if w.Code != 422 || problemOfBody(t, w).Type != KeyReusedType {
			t.Errorf("%s %s %s %v: %d %s, want 422 of type %s", c.method, c.path, c.body, c.headers, w.Code, w.Body, KeyReusedType)
		}
	}
	if n := o.writes.Load(); n != 2 {
		t.Fatalf("%d writes, want 2", n)
	}
	// A query parameter the operation does not declare is no part of the request.
	if w := send(r, "PUT", "/orders/1?dry=true&_=123", `{"item":"tea"}`, IdempotencyKeyHeader, key1, "X-Tag", "a"); w.Code != 200 || w.Header().Get(ReplayedHeader) != "true" {
		t.Errorf("with an undeclared query parameter: %d %v", w.Code, w.Header())
	}
}

// A key in progress is a 409 with Retry-After, and the request is not
// served; once the first is answered, the retry gets its outcome.
func TestIdempotencyInFlight(t *testing.T) {
	o := &orders{block: make(chan struct{}), entered: make(chan struct{}, 1)}
	r := keyedOrders(o, Idempotency{Store: NewMemoryIdempotencyStore()})
	done := make(chan *httptest.ResponseRecorder)
	go func() { done <- send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, key1) }()
	<-o.entered
	w := send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, key1)
	if w.Code != 409 || w.Header().Get("Retry-After") == "" || problemOfBody(t, w).Type != KeyInUseType {
		t.Fatalf("in flight: %d %v %s", w.Code, w.Header(), w.Body)
	}
	close(o.block)
	first := <-done
	if first.Code != 201 {
		t.Fatal(first.Code, first.Body)
	}
	if w := send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, key1); w.Code != 201 || w.Header().Get(ReplayedHeader) != "true" {
		t.Fatalf("after: %d %v", w.Code, w.Header())
	}
	if n := o.writes.Load(); n != 1 {
		t.Fatalf("%d writes, want 1", n)
	}
}

// An outcome expires after the retention, by the configured clock: the
// key is then new, and its record is forgotten.
func TestIdempotencyExpiry(t *testing.T) {
	c := &clock{now: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	store := NewMemoryIdempotencyStore()
	o := &orders{}
	r := keyedOrders(o, Idempotency{Store: store, Retention: time.Hour, Now: c.Now})
	send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, key1)
	c.Add(time.Hour - time.Second)
	if w := send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, key1); w.Header().Get(ReplayedHeader) != "true" {
		t.Fatalf("within the retention: %d %v", w.Code, w.Header())
	}
	c.Add(time.Second)
	w := send(r, "POST", "/orders", `{"item":"coffee"}`, IdempotencyKeyHeader, key1)
	if w.Code != 201 || w.Header().Get(ReplayedHeader) != "" {
		t.Fatalf("after the retention: %d %v %s", w.Code, w.Header(), w.Body)
	}
	if n := o.writes.Load(); n != 2 {
		t.Fatalf("%d writes, want 2", n)
	}
	// The first record was forgotten when the second was saved.
	if store.Len() != 1 {
		t.Fatalf("the store keeps %d records, want 1", store.Len())
	}
	// The document publishes the retention.
	for _, p := range r.Operations()[0].Parameters {
		if p.Name == IdempotencyKeyHeader && !strings.Contains(p.Description, "within 1 hour,") {
			t.Errorf("the key's description does not give the retention: %s", p.Description)
		}
	}
}

// N identical keyed requests at once write once: one 201, and the others
// either 409 (in progress) or the replay.
func TestIdempotencyConcurrentRace(t *testing.T) {
	for round := range 20 {
		o := &orders{}
		r := keyedOrders(o, Idempotency{Store: NewMemoryIdempotencyStore()})
		const n = 16
		var wg sync.WaitGroup
		codes := make([]*httptest.ResponseRecorder, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, fmt.Sprintf("race-%d-%s", round, key1))
			}()
		}
		wg.Wait()
		firsts := 0
		for _, w := range codes {
			switch {
			case w.Code == 201 && w.Header().Get(ReplayedHeader) == "":
				firsts++
			case w.Code == 201, w.Code == 409:
			default:
				t.Fatalf("round %d: %d %s", round, w.Code, w.Body)
			}
		}
		if o.writes.Load() != 1 || firsts != 1 {
			t.Fatalf("round %d: %d writes, %d first answers; want 1 and 1", round, o.writes.Load(), firsts)
		}
	}
}

// A failure is not recorded: a 5xx or a 4xx from the handler changed
// nothing a retry would repeat, and the retry runs again.
func TestIdempotencyErrorsAreNotRecorded(t *testing.T) {
	o := &orders{}
	o.fail.Store(1)
	r := keyedOrders(o, Idempotency{Store: NewMemoryIdempotencyStore()})
	if w := send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, key1); w.Code != 500 {
		t.Fatalf("first: %d %s", w.Code, w.Body)
	}
	w := send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, key1)
	if w.Code != 201 || w.Header().Get(ReplayedHeader) != "" {
		t.Fatalf("retry after a 500: %d %v %s", w.Code, w.Header(), w.Body)
	}
	// A request that fails validation is not recorded either.
	if w := send(r, "POST", "/orders", `{"item":""}`, IdempotencyKeyHeader, "k2-"+key1); w.Code != 422 {
		t.Fatal(w.Code)
	}
	if w := send(r, "POST", "/orders", `{"item":"cake"}`, IdempotencyKeyHeader, "k2-"+key1); w.Code != 201 {
		t.Fatalf("the corrected request: %d %s", w.Code, w.Body)
	}
}

// Keys are scoped: the same key on two operations, or from two
// principals, is two keys; neither is answered with the other's outcome.
func TestIdempotencyScopes(t *testing.T) {
	o := &orders{}
	r := keyedOrders(o, Idempotency{Store: NewMemoryIdempotencyStore()})
	alice := send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, key1, "X-User", "alice")
	bob := send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, key1, "X-User", "bob")
	if alice.Code != 201 || bob.Code != 201 || bob.Header().Get(ReplayedHeader) != "" || bob.Body.String() == alice.Body.String() {
		t.Fatalf("alice %d %s, bob %d %v %s", alice.Code, alice.Body, bob.Code, bob.Header(), bob.Body)
	}
	put := send(r, "PUT", "/orders/1", `{"item":"tea"}`, IdempotencyKeyHeader, key1, "X-User", "alice")
	if put.Code != 200 || put.Header().Get(ReplayedHeader) != "" {
		t.Fatalf("the key on another operation: %d %v %s", put.Code, put.Header(), put.Body)
	}
	if n := o.writes.Load(); n != 3 {
		t.Fatalf("%d writes, want 3", n)
	}
}

// A key that is not of the published grammar is a 422 naming the header,
// and the handler does not run; two key fields are a 400; a key of the
// grammar is accepted; the grammar is the document's pattern.
func TestIdempotencyKeyGrammar(t *testing.T) {
	o := &orders{}
	r := keyedOrders(o, Idempotency{Store: NewMemoryIdempotencyStore()})
	for _, k := range []string{
		strings.Repeat("k", 10_000),
		strings.Repeat("k", 256),
		"short",
		"\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14",
		"aaaaaaaaaaaaaaaa\x00",
		`"aaaaaaaaaaaaaaaa`,
		`"aaaaaaaa\"aaaaaaaa"`,
		"aaaaaaaa aaaaaaaa",
		"aaaaaaaa,aaaaaaaa",
		"ключключключключ",
	} {
		w := send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, k)
		if w.Code != 422 || !strings.Contains(w.Body.String(), "header.Idempotency-Key") {
			t.Errorf("key %q: %d %s", truncated(k), w.Code, w.Body)
		}
	}
	// Two fields are one value joined by a comma (RFC 9110 section 5.3),
	// which is no key.
	if w := send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, key1, IdempotencyKeyHeader, key1); w.Code != 422 || !strings.Contains(w.Body.String(), "header.Idempotency-Key") {
		t.Errorf("two key fields: %d %s", w.Code, w.Body)
	}
	if n := o.writes.Load(); n != 0 {
		t.Fatalf("%d writes, want 0", n)
	}
	for _, k := range []string{strings.Repeat("k", 255), `"` + strings.Repeat("k", 255) + `"`, "a-b.c_d~e:f+g/h=0123"} {
		if w := send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, k); w.Code != 201 {
			t.Errorf("key %q: %d %s", k, w.Code, w.Body)
		}
	}
	var pattern string
	for _, p := range r.Operations()[0].Parameters {
		if p.Name == IdempotencyKeyHeader {
			pattern = p.Schema.Pattern
		}
	}
	if pattern != idempotencyKeyPattern {
		t.Fatalf("the document's pattern %q, want %q", pattern, idempotencyKeyPattern)
	}
}

// FuzzIdempotencyKey: parseIdempotencyKey accepts exactly the values of
// the published pattern, and the key it returns is the value without its
// quotes, of the allowed characters only.
func FuzzIdempotencyKey(f *testing.F) {
	re := regexp.MustCompile(idempotencyKeyPattern)
	for _, s := range []string{key1, `"` + key1 + `"`, "", `""`, `"` + strings.Repeat("a", 16), strings.Repeat("a", 256), "aaaaaaaa\x00aaaaaaaa"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		key, ok := parseIdempotencyKey(v)
		if ok != re.MatchString(v) {
			t.Fatalf("parse %q: %v, the pattern says %v", v, ok, !ok)
		}
		if !ok {
			return
		}
		if key != strings.Trim(v, `"`) || len(key) < MinIdempotencyKeyLength || len(key) > MaxIdempotencyKeyLength {
			t.Fatalf("parse %q = %q", v, key)
		}
		for i := 0; i < len(key); i++ {
			if !keyChar(key[i]) {
				t.Fatalf("parse %q = %q, with %q", v, key, key[i])
			}
		}
	})
}

// FuzzCanonicalJSON: canonicalJSON of a JSON text is a text of the same
// value (numbers spelt as they were), canonical itself, and the same for
// another text of the value: its members in reverse order, with white
// space.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1,2,{"d":null,"c":"x"}]}`, `[]`, `1.0`, `"\u00e9"`, `{"a":1}{`, `{`, `{"a":{"y":1e3,"x":-0}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := decodeNumbers(s)
		if !ok {
			if c := canonicalJSON([]byte(s)); string(c) != s {
				t.Fatalf("not JSON %q, made %q", s, c)
			}
			return
		}
		c := canonicalJSON([]byte(s))
		if again := canonicalJSON(c); string(again) != string(c) {
			t.Fatalf("canonical %s, then %s", c, again)
		}
		if w, ok := decodeNumbers(string(c)); !ok || !reflect.DeepEqual(v, w) {
			t.Fatalf("%s: canonical %s is another value", s, c)
		}
		if other := canonicalJSON([]byte(reversed(v))); string(other) != string(c) {
			t.Fatalf("%s and %s: canonical %s and %s", s, reversed(v), c, other)
		}
	})
}

// decodeNumbers decodes s, numbers as json.Number.
func decodeNumbers(s string) (any, bool) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

// reversed writes v with every object's members in reverse order of
// their names, and spaces between tokens.
func reversed(v any) string {
	switch v := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		slices.Reverse(keys)
		var parts []string
		for _, k := range keys {
			kb, _ := json.Marshal(k)
			parts = append(parts, string(kb)+" : "+reversed(v[k]))
		}
		return "{ " + strings.Join(parts, " , ") + " }"
	case []any:
		var parts []string
		for _, x := range v {
			parts = append(parts, reversed(x))
		}
		return "[ " + strings.Join(parts, " , ") + " ]"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// An operation that records its outcome in the transaction of its write
// answers a retry with it after a crash at commit: the write was made,
// its answer lost (a 503 OutcomeUnknown), and the retry with the key
// gets the first outcome without a second write.
func TestIdempotencyRecordedInTheWritesTransaction(t *testing.T) {
	db := &txDB{records: map[string]*IdempotencyRecord{}}
	cfg := Idempotency{Store: db}
	r := New()
	var lose atomic.Bool
	Post(r, "/orders", func(ctx context.Context, in *createOrder) (*orderCreated, error) {
		var out *orderCreated
		err := db.inTx(func(tx *txDB) error {
			tx.orders++
			out = &orderCreated{Location: "/orders/" + strconv.Itoa(tx.orders)}
			out.Body.ID, out.Body.Item = tx.orders, in.Body.Item
			rec, err := in.Outcome(out)
			if err != nil || rec == nil {
				return err
			}
			return tx.insert(rec)
		})
		if err == nil && lose.Load() {
			// The commit was made and its answer lost.
			return nil, OutcomeUnknown(time.Second, "the database's answer to the write was lost")
		}
		return out, err
	}, IdempotencyKeys(cfg), Status(http.StatusCreated))

	lose.Store(true)
	first := send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, key1)
	p := problemOfBody(t, first)
	if first.Code != 503 || p.Type != OutcomeUnknownType || first.Header().Get("Retry-After") == "" {
		t.Fatalf("the lost commit: %d %v %s", first.Code, first.Header(), first.Body)
	}
	lose.Store(false)
	retry := send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, key1)
	if retry.Code != 201 || retry.Header().Get(ReplayedHeader) != "true" || retry.Header().Get("Location") != "/orders/1" ||
		!strings.Contains(retry.Body.String(), `"id":1`) {
		t.Fatalf("the retry: %d %v %s", retry.Code, retry.Header(), retry.Body)
	}
	if db.orders != 1 {
		t.Fatalf("%d orders, want 1", db.orders)
	}
	// A fresh request is answered with what it recorded.
	fresh := send(r, "POST", "/orders", `{"item":"cake"}`, IdempotencyKeyHeader, "k2-"+key1)
	if fresh.Code != 201 || fresh.Header().Get("Location") != "/orders/2" || fresh.Header().Get(ReplayedHeader) != "" {
		t.Fatalf("fresh: %d %v %s", fresh.Code, fresh.Header(), fresh.Body)
	}
	if db.saves != 0 {
		t.Fatalf("vane saved %d outcomes of a handler that recorded its own", db.saves)
	}
}

// txDB is a database whose transactions either commit everything or
// nothing, with a table of outcomes whose key is unique.
type txDB struct {
	mu      sync.Mutex
	orders  int
	records map[string]*IdempotencyRecord
	saves   int
	pending []*IdempotencyRecord // the transaction's inserts
}

func (db *txDB) inTx(fn func(tx *txDB) error) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	before := db.orders
	db.pending = nil
	if err := fn(db); err != nil {
		db.orders = before
		return err
	}
	for _, r := range db.pending {
		db.records[r.Key] = r
	}
	return nil
}

func (db *txDB) insert(rec *IdempotencyRecord) error {
	if old := db.records[rec.Key]; old != nil && old.Expires.After(rec.Created) {
		return fmt.Errorf("unique violation: %w", ErrIdempotencyKeyInUse)
	}
	db.pending = append(db.pending, rec)
	return nil
}

func (db *txDB) Lookup(_ context.Context, key string, now time.Time) (*IdempotencyRecord, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if r := db.records[key]; r != nil && r.Expires.After(now) {
		return r, nil
	}
	return nil, nil
}

func (db *txDB) Save(ctx context.Context, rec *IdempotencyRecord) error {
	db.saves++
	return db.inTx(func(tx *txDB) error { return tx.insert(rec) })
}

// A handler whose write found the key taken by another request (in
// another process: its unique index) is answered with that request's
// outcome; when it cannot be read, 409.
func TestIdempotencyKeyTakenInTheWrite(t *testing.T) {
	store := NewMemoryIdempotencyStore()
	cfg := Idempotency{Store: store}
	r := New()
	var other *IdempotencyRecord
	Post(r, "/orders", func(ctx context.Context, in *createOrder) (*orderCreated, error) {
		// Another process recorded its outcome while this one wrote.
		if other != nil {
			if err := store.Save(ctx, other); err != nil {
				return nil, err
			}
		}
		return nil, fmt.Errorf("insert: %w", ErrIdempotencyKeyInUse)
	}, IdempotencyKeys(cfg))
	if w := send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, key1); w.Code != 409 || w.Header().Get("Retry-After") == "" {
		t.Fatalf("taken, unreadable: %d %v %s", w.Code, w.Header(), w.Body)
	}
	// The other request's record: made as this operation would make it.
	other = &IdempotencyRecord{Status: 201, Header: http.Header{"Location": {"/orders/7"}}, Body: []byte(`{"id":7}`),
		Created: time.Now(), Expires: time.Now().Add(time.Hour)}
	other.Key, other.Fingerprint = scopedFor(t, r, key1, `{"item":"tea"}`)
	w := send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, key1)
	if w.Code != 201 || w.Header().Get("Location") != "/orders/7" || w.Header().Get(ReplayedHeader) != "true" {
		t.Fatalf("taken, recorded: %d %v %s", w.Code, w.Header(), w.Body)
	}
}

// scopedFor returns the key and fingerprint r's POST /orders gives a
// request with key and body, read from what a memory store is given.
func scopedFor(t *testing.T, r *Router, key, body string) (string, string) {
	t.Helper()
	spy := &spyStore{}
	cfg := Idempotency{Store: spy}
	r2 := New()
	Post(r2, "/orders", func(ctx context.Context, in *createOrder) (*orderCreated, error) { return &orderCreated{}, nil },
		IdempotencyKeys(cfg), ID(r.api.ops[0].ID))
	send(r2, "POST", "/orders", body, IdempotencyKeyHeader, key)
	if spy.saved == nil {
		t.Fatal("nothing saved")
	}
	return spy.saved.Key, spy.saved.Fingerprint
}

type spyStore struct{ saved *IdempotencyRecord }

func (s *spyStore) Lookup(context.Context, string, time.Time) (*IdempotencyRecord, error) {
	return nil, nil
}
func (s *spyStore) Save(_ context.Context, rec *IdempotencyRecord) error { s.saved = rec; return nil }

// A store that cannot be read is a 503 with Retry-After, before the
// handler runs.
func TestIdempotencyStoreDown(t *testing.T) {
	o := &orders{}
	r := keyedOrders(o, Idempotency{Store: downStore{}})
	w := send(r, "POST", "/orders", `{"item":"tea"}`, IdempotencyKeyHeader, key1)
	if w.Code != 503 || w.Header().Get("Retry-After") == "" || o.writes.Load() != 0 {
		t.Fatalf("%d %v %s, %d writes", w.Code, w.Header(), w.Body, o.writes.Load())
	}
}

type downStore struct{}

func (downStore) Lookup(context.Context, string, time.Time) (*IdempotencyRecord, error) {
	return nil, errors.New("connection refused")
}
func (downStore) Save(context.Context, *IdempotencyRecord) error {
	return errors.New("connection refused")
}

// Required makes a request without a key a 400 of its own type, and the
// document marks the header required; the document lists the header, the
// 409, the 503 and the replay marker.
func TestIdempotencyRequiredAndDocumented(t *testing.T) {
	o := &orders{}
	r := keyedOrders(o, Idempotency{Store: NewMemoryIdempotencyStore(), Required: true})
	w := send(r, "POST", "/orders", `{"item":"tea"}`)
	if w.Code != 400 || problemOfBody(t, w).Type != KeyMissingType || o.writes.Load() != 0 {
		t.Fatalf("no key: %d %s", w.Code, w.Body)
	}
	d := r.Operations()[0]
	var param bool
	for _, p := range d.Parameters {
		if p.Name == IdempotencyKeyHeader && p.In == "header" {
			param = p.Required && strings.Contains(p.Description, "24 hours")
		}
	}
	if !param {
		t.Errorf("the key's parameter: %+v", d.Parameters)
	}
	has := map[int]bool{}
	for _, resp := range d.Responses {
		has[resp.Status] = true
		for status, mention := range map[int]string{400: KeyMissingType, 409: "in progress", 422: KeyReusedType} {
			if resp.Status == status && !strings.Contains(resp.Description, mention) {
				t.Errorf("the %d's description does not mention %s: %s", status, mention, resp.Description)
			}
		}
		if resp.Status == 201 {
			found := false
			for _, h := range resp.Headers {
				found = found || h.Name == ReplayedHeader
			}
			if !found {
				t.Errorf("the 201 does not document %s", ReplayedHeader)
			}
		}
	}
	for _, s := range []int{400, 409, 422, 503} {
		if !has[s] {
			t.Errorf("no %d documented", s)
		}
	}
}

// Registration refuses what cannot work: an input that embeds Idempotent
// without a store, a store without the embedding, a safe method, a body
// that cannot be fingerprinted.
func TestIdempotencyRegistrationErrors(t *testing.T) {
	cfg := &Idempotency{Store: NewMemoryIdempotencyStore()}
	h := func(context.Context, *createOrder) (*orderCreated, error) { return nil, nil }
	type streamed struct {
		Idempotent
		Body io.Reader
	}
	for name, reg := range map[string]func(r *Router){
		"no store":      func(r *Router) { Post(r, "/o", h) },
		"nil Store":     func(r *Router) { Post(r, "/o", h, IdempotencyKeys(Idempotency{})) },
		"no embedding":  func(r *Router) { Post(r, "/o", o0, IdempotencyKeys(*cfg)) },
		"a safe method": func(r *Router) { Get(r, "/o", h, IdempotencyKeys(*cfg)) },
		"a stream answer": func(r *Router) {
			Post(r, "/o", func(context.Context, *createOrder) (*struct{ Body io.Reader }, error) { return nil, nil }, IdempotencyKeys(*cfg))
		},
		"a stream body": func(r *Router) {
			Post(r, "/o", func(context.Context, *streamed) (*struct{}, error) { return nil, nil }, IdempotencyKeys(*cfg))
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered", name)
				}
			}()
			reg(New())
		}()
	}
}

func o0(context.Context, *struct{ Body orderInput }) (*struct{}, error) { return nil, nil }

type keyedDocIn struct {
	Conditional
	Idempotent
	Body struct {
		Text string `json:"text"`
	}
}

type keyedDocOut struct {
	ETag string `header:"ETag"`
	Body struct {
		Text string `json:"text"`
	}
}

// A PATCH (MergePatch) takes the key of its PUT's input: the retry of a
// patch is answered with the first outcome and patches nothing again, and
// the key with another patch, or the same patch in the other media type,
// is a 422.
func TestIdempotencyMergePatch(t *testing.T) {
	var mu sync.Mutex
	version, text, writes := 1, "a", 0
	cfg := Idempotency{Store: NewMemoryIdempotencyStore()}
	r := New()
	get := func(ctx context.Context, _ *struct{}) (*keyedDocOut, error) {
		mu.Lock()
		defer mu.Unlock()
		out := &keyedDocOut{ETag: `"v` + strconv.Itoa(version) + `"`}
		out.Body.Text = text
		return out, nil
	}
	put := func(ctx context.Context, in *keyedDocIn) (*keyedDocOut, error) {
		err := in.Write(ctx, func(ctx context.Context) (Version, error) {
			mu.Lock()
			defer mu.Unlock()
			return Version{ETag: `"v` + strconv.Itoa(version) + `"`, Exists: true}, nil
		}, func(ctx context.Context, v Version) (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			if v.ETag != `"v`+strconv.Itoa(version)+`"` {
				return false, nil
			}
			version, text = version+1, in.Body.Text
			writes++
			return true, nil
		})
		if err != nil {
			return nil, err
		}
		return get(ctx, nil)
	}
	keyed := IdempotencyKeys(cfg)
	r.Use(middleware.Timeout(time.Minute)) // its 503, documented once on each operation
	Get(r, "/doc", get)
	Put(r, "/doc", put, keyed)
	MergePatch(r, "/doc", get, put, keyed)
	patch := func(ctype, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("PATCH", "/doc", strings.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		req.Header.Set(IdempotencyKeyHeader, key1)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w
	}
	first := patch(MergePatchType, `{"text":"b"}`)
	if first.Code != 200 || first.Header().Get("ETag") != `"v2"` || first.Header().Get(ReplayedHeader) != "" {
		t.Fatalf("first: %d %v %s", first.Code, first.Header(), first.Body)
	}
	again := patch(MergePatchType, ` { "text" : "b" } `)
	if again.Code != 200 || again.Header().Get("ETag") != `"v2"` || again.Header().Get(ReplayedHeader) != "true" || again.Body.String() != first.Body.String() {
		t.Fatalf("retry: %d %v %s", again.Code, again.Header(), again.Body)
	}
	for _, c := range []struct{ ctype, body string }{
		{MergePatchType, `{"text":"c"}`},
		{JSONPatchType, `[{"op":"replace","path":"/text","value":"b"}]`},
	} {
		if w := patch(c.ctype, c.body); w.Code != 422 || problemOfBody(t, w).Type != KeyReusedType {
			t.Errorf("%s %s: %d %s", c.ctype, c.body, w.Code, w.Body)
		}
	}
	if writes != 1 || version != 2 {
		t.Fatalf("%d writes, version %d; want 1 and 2", writes, version)
	}
	// The PATCH documents the key and the 409.
	for _, d := range r.Operations() {
		if d.Method != "PATCH" {
			continue
		}
		param, conflict := false, false
		for _, p := range d.Parameters {
			param = param || p.Name == IdempotencyKeyHeader
		}
		for _, resp := range d.Responses {
			conflict = conflict || resp.Status == 409 && strings.Contains(resp.Description, "Idempotency-Key") && strings.Contains(resp.Description, "patch")
			if resp.Status == 503 && strings.Count(resp.Description, "time limit") != 1 {
				t.Errorf("the PATCH's 503: %s", resp.Description)
			}
		}
		if !param || !conflict {
			t.Errorf("the PATCH's document: key %v, 409 %v", param, conflict)
		}
	}
}
