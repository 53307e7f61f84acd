package hazard

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/fast"
)

// An engine is the server a case serves its handler on: net/http's, or
// vane's fast engine (github.com/vane-http/vane/fast), which serves typed
// operations natively from fasthttp's request and everything else through
// its net/http adapter.
type engine string

const (
	netHTTP    engine = "net/http"
	fastEngine engine = "fast"
)

// engines are the servers every case runs on.
var engines = []engine{netHTTP, fastEngine}

// name is the engine's name as a subtest's.
func (e engine) name() string { return strings.ReplaceAll(string(e), "/", "") }

// patience bounds every wait of the suite, each for one step that comes at
// once when all is well: a case that hangs fails instead. A minute, so
// that a loaded machine running the suite under -race does not fail it.
const patience = time.Minute

// Headers the suite sends with every request.
const (
	hdrID   = "X-Hazard-Id"   // unique per request
	hdrRole = "X-Hazard-Role" // the request's role in its round
	hdrUser = "X-User"        // the caller, as withUser reads it
)

// A role is what a request does in an overlap round.
type role string

const (
	roleFirst role = "first" // leaves a reader behind, then returns
	roleLater role = "later" // is served to completion before the read
	roleHeld  role = "held"  // is in flight, inside its handler, during the read
	roleLoad  role = "load"  // a load case's request
)

// userOf returns the caller's user that withUser put into ctx, or "".
func userOf(ctx context.Context) string {
	u, _ := ctx.Value(userKey{}).(string)
	return u
}

type userKey struct{}

// userFor is the user the suite sends with the request id.
func userFor(id string) string { return "user-" + id }

// withUser is router-wide middleware that puts the caller's user into the
// request's context, as authentication middleware does.
func withUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ctx := context.WithValue(req.Context(), userKey{}, req.Header.Get(hdrUser))
		next.ServeHTTP(w, req.WithContext(ctx))
	})
}

// traceKey is the key of a value that group middleware derives a context
// with, as tracing or logging middleware does.
type traceKey struct{}

func withTrace(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ctx := context.WithValue(req.Context(), traceKey{}, "trace-"+req.Header.Get(hdrID))
		next.ServeHTTP(w, req.WithContext(ctx))
	})
}

// recoverer is middleware that answers 500 to a request whose handler
// panicked.
func recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				w.WriteHeader(http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(w, req)
	})
}

// rig is a server under test and what an overlap round orders its events
// with.
type rig struct {
	t      *testing.T
	engine engine
	url    string // the server's base URL
	client *http.Client
	http2  bool

	mu       sync.Mutex
	returned map[string]chan struct{} // closed when the router's ServeHTTP for the request ID returned
	entered  map[string]bool          // held requests whose handler is holding
	faults   []string                 // what handlers found wrong

	held    chan string      // a held request's handler sends its ID, then holds
	release chan struct{}    // until it receives from this
	readNow chan chan string // a parked reader takes a channel, reads, sends what it read
	done    chan struct{}    // closed when the case ends: whatever is parked gives up
	readers sync.WaitGroup
}

// newRig returns a rig for a case; start serves the handler.
func newRig(t *testing.T, e engine) *rig {
	return &rig{
		t:        t,
		engine:   e,
		returned: make(map[string]chan struct{}),
		entered:  make(map[string]bool),
		held:     make(chan string),
		release:  make(chan struct{}),
		readNow:  make(chan chan string),
		done:     make(chan struct{}),
	}
}

// start serves h on a loopback server, over HTTP/1.1 or, with http2, over
// HTTP/2 with TLS, and closes it when the test ends. On the fast engine
// (HTTP/1.1 only) an http2 case is skipped.
func (rg *rig) start(h http.Handler, http2 bool) {
	if rg.engine == fastEngine {
		rg.startFast(h, http2)
		return
	}
	wrapped := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		id := req.Header.Get(hdrID)
		h.ServeHTTP(w, req)
		rg.markReturned(id)
	})
	srv := httptest.NewUnstartedServer(wrapped)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // TLS handshakes cut short by Close
	rg.http2 = http2
	if http2 {
		srv.EnableHTTP2 = true
		srv.StartTLS()
	} else {
		srv.Start()
	}
	rg.url, rg.client = srv.URL, srv.Client()
	rg.client.Timeout = patience
	rg.t.Cleanup(func() {
		close(rg.done)
		srv.Close()
		rg.finish()
	})
}

// startFast is start on the fast engine. h is served as it is, so that a
// router's typed operations are served natively (a wrapper of ours would
// send every request through the adapter); a request counts as returned
// when its whole answer has arrived, which the engine sends only once its
// handler has returned (no case's handler flushes).
func (rg *rig) startFast(h http.Handler, http2 bool) {
	if http2 {
		rg.t.Skip("the fast engine speaks HTTP/1.1 and 1.0 only (docs/guide/fast-engine.md)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		rg.t.Fatal(err)
	}
	srv := &vane.Server{Handler: h, NoSignals: true, ShutdownTimeout: patience, Logger: slog.New(slog.DiscardHandler)}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- fast.ServeListener(ctx, srv, ln) }()
	rg.url = "http://" + ln.Addr().String()
	rg.client = &http.Client{Timeout: patience, Transport: &http.Transport{}}
	rg.t.Cleanup(func() {
		close(rg.done)
		cancel()
		select {
		case err := <-stopped:
			if err != nil {
				rg.t.Errorf("the fast engine: %v", err)
			}
		case <-time.After(patience):
			rg.t.Errorf("the fast engine did not stop within %v", patience)
		}
		rg.finish()
	})
}

// native fails the test if, on the fast engine, a route of r is not
// served natively: the case is about the native path.
func (rg *rig) native(r *vane.Router) {
	if rg.engine != fastEngine {
		return
	}
	for _, rt := range fast.Routes(r) {
		if !rt.Native {
			rg.t.Fatalf("%s %s is served through the adapter: %s", rt.Method, rt.Pattern, rt.Reason)
		}
	}
}

// finish waits for the parked readers and reports the faults handlers
// recorded.
func (rg *rig) finish() {
	waitGroup(rg.t, &rg.readers, "parked readers")
	rg.mu.Lock()
	defer rg.mu.Unlock()
	for i, f := range rg.faults {
		if i == 10 {
			rg.t.Errorf("… and %d more faults", len(rg.faults)-i)
			break
		}
		rg.t.Error(f)
	}
}

func waitGroup(t *testing.T, wg *sync.WaitGroup, what string) {
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	select {
	case <-ch:
	case <-time.After(patience):
		t.Errorf("%s did not finish within %v", what, patience)
	}
}

func (rg *rig) returnedChan(id string) chan struct{} {
	rg.mu.Lock()
	defer rg.mu.Unlock()
	ch := rg.returned[id]
	if ch == nil {
		ch = make(chan struct{})
		rg.returned[id] = ch
	}
	return ch
}

// markReturned records that the request id's handler has returned.
func (rg *rig) markReturned(id string) {
	ch := rg.returnedChan(id)
	rg.mu.Lock()
	defer rg.mu.Unlock()
	select {
	case <-ch:
	default:
		close(ch)
	}
}

func (rg *rig) hasReturned(id string) bool {
	select {
	case <-rg.returnedChan(id):
		return true
	default:
		return false
	}
}

// fault records what a handler found wrong; the test fails with it.
func (rg *rig) fault(format string, args ...any) {
	rg.mu.Lock()
	rg.faults = append(rg.faults, fmt.Sprintf(format, args...))
	rg.mu.Unlock()
}

// expect records a fault unless got is want: what the handler of the
// request id reads while it runs.
func (rg *rig) expect(id, what, got, want string) {
	if got != want {
		rg.fault("%s: during its handler, %s is %q, want %q", id, what, got, want)
	}
}

// hold is called by a held request's handler: it reports the request as in
// flight and waits for the round to release it.
func (rg *rig) hold(id string) {
	rg.mu.Lock()
	rg.entered[id] = true
	rg.mu.Unlock()
	select {
	case rg.held <- id:
	case <-rg.done:
		return
	}
	select {
	case <-rg.release:
	case <-rg.done:
	}
}

// act plays the request's role in its handler: the first parks read, the
// held holds; any other role does nothing. It reports whether r is first
// (the handlers that fail after parking panic then). What read captures is
// taken before act is called, while the request is live.
func (rg *rig) act(r role, id string, read func() string) bool {
	switch r {
	case roleFirst:
		rg.park(read)
		return true
	case roleHeld:
		rg.hold(id)
	}
	return false
}

// park leaves a goroutine behind that calls read when the round tells it
// to, after the handler that called park has returned.
func (rg *rig) park(read func() string) {
	rg.readers.Add(1)
	go func() {
		defer rg.readers.Done()
		rg.readWhenTold(read)
	}()
}

// readWhenTold waits until the round tells it to read, then calls read and
// hands the round what it returned.
func (rg *rig) readWhenTold(read func() string) {
	select {
	case reply := <-rg.readNow:
		reply <- read()
	case <-rg.done:
	}
}

// reply is an answer the client received.
type reply struct {
	status int
	body   string
	proto  int // the HTTP major version
}

// do sends a request with the suite's headers for id and role and returns
// the answer. A body is sent as JSON unless contentType says otherwise.
func (rg *rig) do(method, path string, r role, id, body, contentType string) (reply, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, rg.url+path, rd)
	if err != nil {
		return reply{}, err
	}
	req.Header.Set(hdrID, id)
	req.Header.Set(hdrRole, string(r))
	req.Header.Set(hdrUser, userFor(id))
	req.Header.Set("X-Request-Id", id) // the ID middleware.RequestID keeps
	if body != "" {
		if contentType == "" {
			contentType = "application/json"
		}
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := rg.client.Do(req)
	if err != nil {
		return reply{}, fmt.Errorf("%s %s (%s): %v", method, path, id, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, fmt.Errorf("%s %s (%s): reading the answer: %v", method, path, id, err)
	}
	if rg.http2 && resp.ProtoMajor != 2 {
		return reply{}, fmt.Errorf("%s %s (%s): answered over %s, not HTTP/2", method, path, id, resp.Proto)
	}
	if rg.engine == fastEngine {
		rg.markReturned(id)
	}
	return reply{resp.StatusCode, string(b), resp.ProtoMajor}, nil
}

// get sends a GET and checks the answer: status and, if body is not "",
// the body.
func (rg *rig) get(path string, r role, id string, status int, body string) error {
	a, err := rg.do(http.MethodGet, path, r, id, "", "")
	if err != nil {
		return err
	}
	return a.check(path, id, status, body)
}

func (a reply) check(path, id string, status int, body string) error {
	if a.status != status || body != "" && a.body != body {
		return fmt.Errorf("%s (%s): answered %d %q, want %d %q", path, id, a.status, a.body, status, body)
	}
	return nil
}

// overlap describes an overlap case: rounds of a first request whose
// handler leaves a reader behind, later requests served before the read,
// and one held in flight during it.
type overlap struct {
	rounds int // at most a few hundred requests in all
	later  int // requests served between the first's return and the read

	// send sends one request of a round with the role r and the ID id,
	// and checks its answer.
	send func(r role, id string) error

	// judge returns an error if got, what the first request's reader read,
	// is not what the request with ID id must see.
	judge func(id, got string) error
}

// runOverlap runs the rounds of o, failing the test for each round whose
// reader saw what it must not.
func (rg *rig) runOverlap(o overlap) {
	t := rg.t
	t.Helper()
	bad := 0
	for i := 0; i < o.rounds; i++ {
		first := fmt.Sprintf("%03d-first", i)
		if err := o.send(roleFirst, first); err != nil {
			t.Fatal(err)
		}
		rg.waitReturned(first)
		later := make([]string, o.later)
		for k := range later {
			later[k] = fmt.Sprintf("%03d-later%d", i, k)
			if err := o.send(roleLater, later[k]); err != nil {
				t.Fatal(err)
			}
			rg.waitReturned(later[k])
		}
		heldID := fmt.Sprintf("%03d-held", i)
		heldDone := make(chan error, 1)
		go func() { heldDone <- o.send(roleHeld, heldID) }()
		select {
		case id := <-rg.held:
			if id != heldID {
				t.Fatalf("round %d: %s is held, want %s", i, id, heldID)
			}
		case err := <-heldDone:
			t.Fatalf("round %d: the held request was answered without holding: %v", i, err)
		case <-time.After(patience):
			t.Fatalf("round %d: the held request's handler did not start", i)
		}
		// The barrier: the first request's call of the router has
		// returned, the later ones' too, and the held one is inside its
		// handler. Only now may the reader read.
		if err := rg.checkOrder(first, later, heldID); err != nil {
			t.Fatalf("round %d, before the read: %v", i, err)
		}
		ch := make(chan string, 1)
		var got string
		select {
		case rg.readNow <- ch:
		case <-time.After(patience):
			t.Fatalf("round %d: the first request left no reader behind", i)
		}
		select {
		case got = <-ch:
		case <-time.After(patience):
			t.Fatalf("round %d: the reader did not answer", i)
		}
		if rg.hasReturned(heldID) {
			t.Fatalf("round %d: the held request returned during the read", i)
		}
		rg.release <- struct{}{}
		if err := <-heldDone; err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if err := o.judge(first, got); err != nil {
			bad++
			if bad <= 3 {
				t.Errorf("round %d: after %d later requests, with one in flight: %v", i, o.later, err)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d rounds: the reader saw what its request did not hold", bad, o.rounds)
	}
}

func (rg *rig) waitReturned(id string) {
	select {
	case <-rg.returnedChan(id):
	case <-time.After(patience):
		rg.t.Fatalf("the router's ServeHTTP for %s did not return", id)
	}
}

// checkOrder checks that the first and later requests' calls of the
// router returned and that the held request's handler is holding.
func (rg *rig) checkOrder(first string, later []string, held string) error {
	for _, id := range append([]string{first}, later...) {
		if !rg.hasReturned(id) {
			return fmt.Errorf("%s has not returned", id)
		}
	}
	rg.mu.Lock()
	entered := rg.entered[held]
	rg.mu.Unlock()
	if !entered || rg.hasReturned(held) {
		return fmt.Errorf("%s is not in flight (entered %v)", held, entered)
	}
	return nil
}

// own judges a read of fields separated by "|": each must be the one in
// want, or "" where want marks it optional with a leading '?'.
func own(want ...string) func(got string) error {
	return func(got string) error {
		fields := strings.Split(got, "|")
		if len(fields) != len(want) {
			return fmt.Errorf("read %q, want %d fields", got, len(want))
		}
		var wrong []string
		for i, w := range want {
			optional := strings.HasPrefix(w, "?")
			w = strings.TrimPrefix(w, "?")
			if fields[i] != w && !(optional && fields[i] == "") {
				if optional {
					wrong = append(wrong, fmt.Sprintf("%q (want %q or \"\")", fields[i], w))
				} else {
					wrong = append(wrong, fmt.Sprintf("%q (want %q)", fields[i], w))
				}
			}
		}
		if wrong != nil {
			return fmt.Errorf("read %s", strings.Join(wrong, ", "))
		}
		return nil
	}
}

// load sends workers×each requests, workers at a time, and fails the test
// with what send returned for any of them.
func (rg *rig) load(workers, each int, send func(id string) error) {
	t := rg.t
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := send(fmt.Sprintf("w%d-%03d", w, i)); err != nil {
					errs <- err
				}
			}
		}()
	}
	waitGroup(t, &wg, "the load")
	close(errs)
	n := 0
	for err := range errs {
		if n++; n <= 5 {
			t.Error(err)
		}
	}
	if n > 0 {
		t.Errorf("%d of %d requests were answered wrongly", n, workers*each)
	}
	if !raceEnabled {
		t.Log("built without -race: this case checked the answers only")
	}
}

// paramAfter returns what vane.Param reads from req for each of names,
// separated by "|".
func paramAfter(req *http.Request, names ...string) string {
	vals := make([]string, len(names))
	for i, n := range names {
		vals[i] = vane.Param(req, n)
	}
	return strings.Join(vals, "|")
}
