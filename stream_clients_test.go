package vane

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"

	"github.com/vane-http/vane/middleware"
)

// heldStreams is a router whose stream /s stays open until release is
// closed, reporting each opening on opened; open serves a stream request
// from a client address in the background and returns its recorder once
// it is answered or open, and wait waits for every stream to end.
type heldStreams struct {
	r       *Router
	opened  chan struct{}
	release chan struct{}
	wg      sync.WaitGroup
}

func newHeldStreams(opts ...Option) *heldStreams {
	h := &heldStreams{r: New(opts...), opened: make(chan struct{}), release: make(chan struct{})}
	h.r.Use(middleware.RealIP(middleware.RealIPConfig{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")}}))
	Stream(h.r, "/s", map[string]any{"created": petEvent{}}, func(ctx context.Context, _ *struct{}, send Sender) error {
		h.opened <- struct{}{}
		select {
		case <-ctx.Done():
		case <-h.release:
		}
		return nil
	}, Heartbeat(Off))
	return h
}

// open sends GET /s from addr with header (name, value pairs): a stream
// that opens is left running (and its opening awaited); an answer that
// is not a stream is returned at once.
func (h *heldStreams) open(addr string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", "/s", nil)
	req.RemoteAddr = addr
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	answered := make(chan struct{}, 1)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.r.ServeHTTP(w, req)
		answered <- struct{}{}
	}()
	select {
	case <-h.opened:
		return nil // open: w belongs to the stream
	case <-answered:
		return w
	}
}

func (h *heldStreams) end() {
	close(h.release)
	h.wg.Wait()
}

// One client holds at most MaxStreamsPerClient streams: past it, a 429
// with Retry-After and a problem body, before the handler runs, while
// other clients still open theirs. A client is its address (RealIP's
// behind a trusted proxy; an IPv6 address by its /64). Streams that end
// give their slots back, and leave no client counted.
func TestEventStreamPerClientCap(t *testing.T) {
	h := newHeldStreams(MaxStreams(100), MaxStreamsPerClient(2, nil))
	refused := func(w *httptest.ResponseRecorder, status int) bool {
		return w != nil && w.Code == status && w.Header().Get("Retry-After") != "" &&
			w.Header().Get("Content-Type") == "application/problem+json" && w.Header().Get("X-Accel-Buffering") == ""
	}
	for _, c := range []struct {
		addr   string
		header []string
		opens  bool
	}{
		{"192.0.2.1:1000", nil, true},
		{"192.0.2.1:1001", nil, true},
		{"192.0.2.1:1002", nil, false}, // a third from one address
		{"192.0.2.2:1000", nil, true},  // another client
		{"[2001:db8::1]:1", nil, true},
		{"[2001:db8::2]:1", nil, true},
		{"[2001:db8::3]:1", nil, false},      // the same /64
		{"[2001:db8:0:1::1]:1", nil, true},   // another /64
		{"[::ffff:192.0.2.2]:1", nil, true},  // 192.0.2.2's second
		{"[::ffff:192.0.2.2]:2", nil, false}, // and third
		{"10.0.0.1:1", []string{"X-Forwarded-For", "198.51.100.7"}, true},
		{"10.0.0.1:2", []string{"X-Forwarded-For", "198.51.100.7"}, true},
		{"10.0.0.1:3", []string{"X-Forwarded-For", "198.51.100.7"}, false}, // the client behind the proxy
		{"10.0.0.1:4", []string{"X-Forwarded-For", "198.51.100.8"}, true},  // another client behind it
	} {
		w := h.open(c.addr, c.header...)
		if c.opens && w != nil || !c.opens && !refused(w, http.StatusTooManyRequests) {
			if w != nil {
				t.Errorf("%s %v: %d %v %s", c.addr, c.header, w.Code, w.Header(), w.Body)
			} else {
				t.Errorf("%s %v: opened", c.addr, c.header)
			}
		}
	}
	h.end()
	if n, clients := h.r.api.streams.Load(), len(h.r.api.streamClients.open); n != 0 || clients != 0 {
		t.Errorf("after every stream ended: %d streams, %d clients counted", n, clients)
	}
	// The slots came back.
	h.release = make(chan struct{})
	if w := h.open("192.0.2.1:1003"); w != nil {
		t.Errorf("after the end: %d %s", w.Code, w.Body)
	}
	h.end()

	// The global cap answers 503 whoever asks; a client under its own
	// cap is not counted against it for nothing.
	g := newHeldStreams(MaxStreams(1), MaxStreamsPerClient(5, nil))
	if w := g.open("192.0.2.1:1"); w != nil {
		t.Fatalf("first stream: %d", w.Code)
	}
	if w := g.open("192.0.2.9:1"); !refused(w, http.StatusServiceUnavailable) {
		t.Errorf("past MaxStreams: %v", w)
	}
	g.end()
	if clients := len(g.r.api.streamClients.open); clients != 0 {
		t.Errorf("%d clients counted after a 503 and the end", clients)
	}

	// The 429 is documented, with Retry-After, as the 503 is.
	for _, status := range []int{429, 503} {
		resp := h.r.Operations()[0].Response(status)
		if resp == nil || len(resp.Headers) == 0 || resp.Headers[0].Name != "Retry-After" {
			t.Errorf("%d documented as %+v", status, resp)
		}
	}
}

// A key of one's own decides who a client is; a request whose key is ""
// counts only against MaxStreams; a negative cap is none.
func TestEventStreamPerClientKey(t *testing.T) {
	h := newHeldStreams(MaxStreamsPerClient(1, func(req *http.Request) string { return req.Header.Get("X-User") }))
	if w := h.open("192.0.2.1:1", "X-User", "ann"); w != nil {
		t.Fatalf("ann's first: %d", w.Code)
	}
	if w := h.open("192.0.2.2:1", "X-User", "ann"); w == nil || w.Code != 429 {
		t.Errorf("ann's second, from elsewhere: %v", w)
	}
	if w := h.open("192.0.2.1:2", "X-User", "bob"); w != nil {
		t.Errorf("bob's first, from ann's address: %d", w.Code)
	}
	for i := range 3 {
		if w := h.open("192.0.2.1:3"); w != nil {
			t.Errorf("keyless stream %d: %d", i, w.Code)
		}
	}
	h.end()

	u := newHeldStreams(MaxStreamsPerClient(-1, nil))
	for i := range DefaultMaxStreamsPerClient + 1 {
		if w := u.open("192.0.2.1:1"); w != nil {
			t.Fatalf("uncapped stream %d: %d", i, w.Code)
		}
	}
	u.end()
	if u.r.Operations()[0].Response(429) != nil {
		t.Error("429 documented without a cap per client")
	}

	// By default a client holds DefaultMaxStreamsPerClient.
	d := newHeldStreams()
	for i := range DefaultMaxStreamsPerClient {
		if w := d.open("192.0.2.1:1"); w != nil {
			t.Fatalf("default cap, stream %d: %d", i, w.Code)
		}
	}
	if w := d.open("192.0.2.1:1"); w == nil || w.Code != 429 {
		t.Errorf("past the default cap: %v", w)
	}
	d.end()
}
