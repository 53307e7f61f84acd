package fast

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/middleware"
)

type idIn struct {
	ID int64 `path:"id"`
}

type okOut struct {
	OK bool `json:"ok"`
}

func okHandler(ctx context.Context, in *idIn) (*okOut, error) { return &okOut{OK: true}, nil }

type eventIn struct{}

type tick struct {
	N int `json:"n"`
}

// TestRoutes: which routes are native, and the reason of each that is
// not.
func TestRoutes(t *testing.T) {
	plain := func(next http.Handler) http.Handler { return next }
	r := vane.New()
	r.Use(middleware.RequestID, middleware.Logger(nil))
	vane.Get(r, "/native/{id}", okHandler)
	vane.Get(r.Group("/timeout", vane.Middleware(middleware.Timeout(time.Second), middleware.Throttle(2, 1, time.Second))), "/{id}", okHandler)
	vane.Get(r, "/opmw/{id}", okHandler, vane.Middleware(middleware.Timeout(time.Second)))
	vane.Get(r.Group("/plain", vane.Middleware(plain)), "/{id}", okHandler)
	vane.Get(r, "/opplain/{id}", okHandler, vane.Middleware(plain))
	r.HandleFunc(http.MethodGet, "/handler", func(w http.ResponseWriter, req *http.Request) {})
	vane.Stream(r, "/events", map[string]any{"tick": tick{}}, func(ctx context.Context, in *eventIn, send vane.Sender) error {
		return nil
	})
	want := map[string]string{
		"GET /native/{id}":  "",
		"GET /timeout/{id}": "",
		"GET /opmw/{id}":    "",
		"GET /plain/{id}":   "middleware 3 of 3",
		"GET /opplain/{id}": "its Middleware 1 of 1",
		"GET /handler":      "not a typed operation",
		"GET /events":       "an event stream",
	}
	for _, rt := range Routes(r) {
		key := rt.Method + " " + rt.Pattern
		w, ok := want[key]
		if !ok {
			continue
		}
		delete(want, key)
		if rt.Native != (w == "") || !strings.Contains(rt.Reason, w) {
			t.Errorf("%s: native %v, reason %q; want reason containing %q", key, rt.Native, rt.Reason, w)
		}
	}
	for k := range want {
		t.Errorf("%s: not listed", k)
	}
	// UseFunc middleware has no engine form.
	r2 := vane.New()
	r2.UseFunc(func(next http.HandlerFunc) http.HandlerFunc { return next })
	vane.Get(r2, "/x/{id}", okHandler)
	if rts := Routes(r2); rts[0].Native || !strings.Contains(rts[0].Reason, "UseFunc") {
		t.Errorf("behind UseFunc: %+v", rts[0])
	}
}

// TestStrict: with Strict, the engine does not start while a route would
// be served by the adapter, and says which and why.
func TestStrict(t *testing.T) {
	r := vane.New()
	vane.Get(r, "/native/{id}", okHandler)
	r.HandleFunc(http.MethodGet, "/plain", func(w http.ResponseWriter, req *http.Request) {})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	err = ServeListener(context.Background(), &vane.Server{Handler: r}, ln, Strict())
	if err == nil || !strings.Contains(err.Error(), "GET /plain: not a typed operation") || strings.Contains(err.Error(), "/native") {
		t.Fatalf("Strict: %v", err)
	}
}

// TestAdapterFlush: a plain handler's Flush sends what it wrote before
// the handler goes on, and the rest follows; the request's body can no
// longer be read after it.
func TestAdapterFlush(t *testing.T) {
	proceed := make(chan struct{})
	bodyErr := make(chan error, 1)
	r := vane.New()
	r.HandleFunc(http.MethodPost, "/flush", func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "first\n")
		w.(http.Flusher).Flush()
		<-proceed
		_, err := req.Body.Read(make([]byte, 1))
		bodyErr <- err
		io.WriteString(w, "second\n")
	})
	addr := serveOn(t, "fast", r, nil)
	c, err := net.DialTimeout("tcp", addr, patience)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(patience))
	io.WriteString(c, "POST /flush HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
	rd := bufio.NewReader(c)
	res, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(res.Body).ReadString('\n')
	if err != nil || line != "first\n" {
		t.Fatalf("before the handler went on: %q %v", line, err)
	}
	close(proceed)
	rest, _ := io.ReadAll(res.Body)
	if !strings.HasSuffix(string(rest), "second\n") || res.StatusCode != 200 {
		t.Fatalf("then: %d %q", res.StatusCode, rest)
	}
	if err := <-bodyErr; err == nil {
		t.Error("the body was readable after the answer began")
	}
	// The connection serves the next request.
	io.WriteString(c, "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n")
	if res, err := http.ReadResponse(rd, nil); err != nil || res.StatusCode != 404 {
		t.Fatalf("next request: %v %v", res, err)
	}
}

// TestEventStream: vane.Stream's events reach the client through the
// adapter as they are sent, and the stream ends when the server shuts
// down.
func TestEventStream(t *testing.T) {
	next := make(chan int)
	r := vane.New()
	vane.Stream(r, "/events", map[string]any{"tick": tick{}}, func(ctx context.Context, in *eventIn, send vane.Sender) error {
		for {
			select {
			case n := <-next:
				if err := send(vane.Event{Data: tick{N: n}}); err != nil {
					return err
				}
			case <-ctx.Done():
				return nil
			}
		}
	})
	addr := serveOn(t, "fast", r, nil)
	res, err := (&http.Client{Timeout: patience}).Get("http://" + addr + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	rd := bufio.NewReader(res.Body)
	for n := 1; n <= 3; n++ {
		next <- n
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatalf("event %d: %v", n, err)
			}
			if strings.HasPrefix(line, "data:") {
				if !strings.Contains(line, `{"n":`+string(rune('0'+n))+`}`) {
					t.Fatalf("event %d: %q", n, line)
				}
				break
			}
		}
	}
}

// TestUnreadBody: a handler that answers without reading the body leaves
// the connection usable when the rest is small enough to read and drop,
// and closed (the answer still read) when it is not.
func TestUnreadBody(t *testing.T) {
	r := vane.New()
	r.HandleFunc(http.MethodPost, "/refuse", func(w http.ResponseWriter, req *http.Request) { w.WriteHeader(http.StatusUnauthorized) })
	type in struct{ Body io.Reader }
	vane.Post(r, "/native", func(ctx context.Context, _ *in) (*struct{}, error) { return nil, vane.Unauthorized("no") })
	addr := serveOn(t, "fast", r, nil)
	for _, path := range []string{"/refuse", "/native"} {
		small := req("POST", path, strings.Repeat("x", 20000), "Content-Type: application/octet-stream")
		got := exchange(t, addr, small+req("GET", "/nowhere", ""), 2)
		if len(got) != 2 || got[0].status != 401 || got[1].status != 404 {
			t.Errorf("%s, small body: %v", path, got)
		}
		large := req("POST", path, strings.Repeat("x", 1<<20), "Content-Type: application/octet-stream")
		got = exchange(t, addr, large+req("GET", "/nowhere", ""), 0)
		if len(got) != 1 || got[0].status != 401 { // the answer, then the connection closed
			t.Errorf("%s, large body: %v", path, got)
		}
	}
}
