package interop

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/klauspost/compress/gzhttp"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/internal/memnet"
	"github.com/vane-http/vane/middleware"
)

type ListItems struct {
	N int `query:"n" default:"100" maximum:"1000"`
}

type Items struct {
	Items []Item `json:"items"`
}

// gzipRouter is a vane router whose responses gzhttp compresses, as
// docs/design/middleware.md shows it.
func gzipRouter() *vane.Router {
	r := vane.New()
	r.Use(func(next http.Handler) http.Handler { return gzhttp.GzipHandler(next) })
	vane.Get(r, "/items", func(ctx context.Context, in *ListItems) (*Items, error) {
		out := &Items{Items: make([]Item, in.N)}
		for i := range out.Items {
			out.Items[i] = Item{ID: int64(i), Name: fmt.Sprintf("item %d", i)}
		}
		return out, nil
	})
	r.HandleFunc(http.MethodGet, "/events", func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "data: %d\n\n", i)
			http.NewResponseController(w).Flush()
			<-req.Context().Done() // waits for the client after the first event
			return
		}
	})
	return r
}

func TestGzipWithVane(t *testing.T) {
	srv := httptest.NewServer(gzipRouter())
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(path, accept string) *http.Response {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	res := get("/items", "gzip")
	zr, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatalf("%v; headers %v", err, res.Header)
	}
	var items Items
	if err := json.NewDecoder(zr).Decode(&items); err != nil || len(items.Items) != 100 {
		t.Errorf("decoded %d items: %v", len(items.Items), err)
	}
	res.Body.Close()
	if res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("Content-Type") != "application/json" ||
		!strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
		t.Errorf("headers %v", res.Header)
	}

	for name, path := range map[string]string{"no Accept-Encoding": "/items", "a small body": "/items?n=1"} {
		accept := "gzip"
		if name == "no Accept-Encoding" {
			accept = ""
		}
		res := get(path, accept)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.Header.Get("Content-Encoding") != "" || !json.Valid(b) {
			t.Errorf("%s: Content-Encoding %q, body %.60q", name, res.Header.Get("Content-Encoding"), b)
		}
	}
}

// A flush reaches the client through gzhttp and vane's Logger: the first
// event arrives while the handler still waits.
func TestGzipFlushesStreamsWithVane(t *testing.T) {
	r := gzipRouter()
	h := middleware.Logger(slog.New(slog.DiscardHandler))(r)
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/events", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q", res.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(zr).ReadString('\n')
	if err != nil || line != "data: 0\n" {
		t.Errorf("first event %q, %v", line, err)
	}
}

type heartbeatOnly struct{}

// A vane event stream behind gzhttp, asked for by a browser's EventSource
// (which sends Accept-Encoding: gzip), has its headers at once: the
// stream opens with a flushed comment line, so the client does not wait
// for the first heartbeat. In a synctest bubble, on an in-memory
// listener, "at once" is exact: no time passes on the bubble's clock,
// where waiting for the heartbeat would take its 15 s.
func TestGzipEventStreamOpensAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := vane.New()
		r.Use(func(next http.Handler) http.Handler { return gzhttp.GzipHandler(next) })
		vane.Stream(r, "/stream", map[string]any{"tick": heartbeatOnly{}}, func(ctx context.Context, _ *struct{}, send vane.Sender) error {
			<-ctx.Done()
			return nil
		}) // the default heartbeat: 15 s
		ln := memnet.Listen()
		srv := &http.Server{Handler: r}
		go srv.Serve(ln)
		defer srv.Close()
		req, _ := http.NewRequest("GET", "http://memnet/stream", nil)
		req.Header.Set("Accept-Encoding", "gzip")
		client := &http.Client{Transport: &http.Transport{DialContext: ln.DialContext, DisableCompression: true}}
		defer client.CloseIdleConnections()
		start := time.Now()
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("no headers after %v: %v", time.Since(start), err)
		}
		defer res.Body.Close()
		if res.StatusCode != 200 || time.Since(start) != 0 {
			t.Errorf("%d after %v, want the headers at once", res.StatusCode, time.Since(start))
		}
	})
}

// With gzhttp in front of middleware.Timeout, a response over net/http's
// 2 KB buffer that Timeout held back whole is compressed for a client that
// asks, and sent plain with its exact Content-Length (not chunked) to one
// that does not: the length Timeout sets is the one gzhttp decides by,
// and gzhttp drops it when it compresses.
func TestGzipInFrontOfTimeout(t *testing.T) {
	r := vane.New()
	r.Use(func(next http.Handler) http.Handler { return gzhttp.GzipHandler(next) })
	api := r.Group("", vane.Middleware(middleware.Timeout(time.Minute)))
	vane.Get(api, "/items", func(ctx context.Context, in *ListItems) (*Items, error) {
		out := &Items{Items: make([]Item, in.N)}
		for i := range out.Items {
			out.Items[i] = Item{ID: int64(i), Name: fmt.Sprintf("item %d", i)}
		}
		return out, nil
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(accept string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+"/items?n=300", nil)
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res, b
	}

	res, plain := get("")
	var items Items
	if err := json.Unmarshal(plain, &items); err != nil || len(items.Items) != 300 || len(plain) <= 2048 {
		t.Fatalf("plain: %d items in %d bytes: %v", len(items.Items), len(plain), err)
	}
	if res.ContentLength != int64(len(plain)) || len(res.TransferEncoding) != 0 || res.Header.Get("Content-Encoding") != "" {
		t.Errorf("plain: Content-Length %d for %d bytes, Transfer-Encoding %v, Content-Encoding %q",
			res.ContentLength, len(plain), res.TransferEncoding, res.Header.Get("Content-Encoding"))
	}

	res, packed := get("gzip")
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip asked: Content-Encoding %q", res.Header.Get("Content-Encoding"))
	}
	if res.ContentLength != -1 && res.ContentLength != int64(len(packed)) {
		t.Errorf("gzip: Content-Length %d for %d compressed bytes", res.ContentLength, len(packed))
	}
	zr, err := gzip.NewReader(bytes.NewReader(packed))
	if err != nil {
		t.Fatal(err)
	}
	unpacked, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(unpacked, plain) {
		t.Errorf("gzip: %d bytes unpacked (%v), want the %d plain ones", len(unpacked), err, len(plain))
	}
}
