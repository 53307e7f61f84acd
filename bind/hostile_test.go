package bind_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/internal/memnet"
)

type hostileBody struct {
	Body struct {
		Name  string         `json:"name" maxLength:"100"`
		Count int            `json:"count"`
		Price float64        `json:"price"`
		Tags  []string       `json:"tags" maxItems:"100"`
		Meta  map[string]int `json:"meta"`
		Any   any            `json:"any"`
		Items []struct {
			SKU string `json:"sku"`
		} `json:"items"`
	}
}

type hostileParams struct {
	Tags   []string          `query:"tag" maxItems:"100"`
	IDs    []int             `query:"ids" explode:"false"`
	Filter map[string]string `query:"filter" maxProperties:"20"`
	Page   struct {
		Size int `json:"size" default:"20" maximum:"100"`
	} `query:"page"`
	Nums  []int  `header:"X-Nums" maxItems:"100"`
	Theme string `cookie:"theme" maxLength:"20"`
}

type hostileForm struct {
	Body struct {
		Title string                  `form:"title"`
		Files []*multipart.FileHeader `form:"file" maxItems:"10"`
	}
}

func hostileRouter(opts ...vane.Option) *vane.Router {
	r := vane.New(opts...)
	vane.Post(r, "/body", func(context.Context, *hostileBody) (*struct{}, error) { return nil, nil })
	vane.Get(r, "/params", func(context.Context, *hostileParams) (*struct{}, error) { return nil, nil })
	vane.Post(r, "/form", func(context.Context, *hostileForm) (*struct{}, error) { return nil, nil })
	return r
}

type hostile struct {
	name    string
	method  string
	target  string
	ct      string
	body    string
	header  [][2]string
	length  int64 // declared Content-Length; 0: the body's
	status  int   // 0: any 4xx
	limitOK bool  // a 2xx is fine (valid, if large, input)
}

func hostileInputs() []hostile {
	mib := 1 << 20
	var keys, dupKeys, mapKeys strings.Builder
	keys.WriteString(`{"name":"a"`)
	for i := 0; keys.Len() < mib-40; i++ {
		fmt.Fprintf(&keys, `,"k%d":1`, i)
	}
	keys.WriteString("}")
	dupKeys.WriteString(`{"name":"a"`)
	for dupKeys.Len() < mib-40 {
		dupKeys.WriteString(`,"count":1`)
	}
	dupKeys.WriteString("}")
	mapKeys.WriteString(`{"meta":{"a":1`)
	for i := 0; mapKeys.Len() < mib-40; i++ {
		fmt.Fprintf(&mapKeys, `,"m%d":1`, i)
	}
	mapKeys.WriteString("}}")
	var parts bytes.Buffer
	mw := multipart.NewWriter(&parts)
	for i := range 5000 {
		mw.WriteField(fmt.Sprintf("f%d", i), "v")
	}
	mw.Close()
	var files bytes.Buffer
	fw := multipart.NewWriter(&files)
	for range 200 {
		w, _ := fw.CreateFormFile("file", "x.bin")
		w.Write(bytes.Repeat([]byte("z"), 4000))
	}
	fw.Close()
	var longHeader bytes.Buffer
	lh := multipart.NewWriter(&longHeader)
	h := make(map[string][]string)
	h["Content-Disposition"] = []string{`form-data; name="title"`}
	h["X-Long"] = []string{strings.Repeat("h", 900<<10)}
	w, _ := lh.CreatePart(h)
	w.Write([]byte("t"))
	lh.Close()
	query := func(pair string, n int) string { return strings.TrimSuffix(strings.Repeat(pair+"&", n), "&") }
	json := "application/json"
	return []hostile{
		{name: "deep arrays", method: "POST", target: "/body", ct: json, body: `{"any":` + strings.Repeat("[", mib/2-20) + strings.Repeat("]", mib/2-20) + `}`, status: 400},
		{name: "deep objects", method: "POST", target: "/body", ct: json, body: `{"any":` + strings.Repeat(`{"a":`, (mib-40)/6) + `1` + strings.Repeat("}", (mib-40)/6) + `}`, status: 400},
		{name: "huge exponent", method: "POST", target: "/body", ct: json, body: `{"price":1e999999999}`, status: 422},
		{name: "a million digits", method: "POST", target: "/body", ct: json, body: `{"count":` + strings.Repeat("9", mib-20) + `}`, status: 422},
		{name: "a million digits in any", method: "POST", target: "/body", ct: json, body: `{"any":` + strings.Repeat("9", mib-20) + `}`, status: 422},
		{name: "long string", method: "POST", target: "/body", ct: json, body: `{"name":"` + strings.Repeat("x", mib-20) + `"}`, status: 422},
		{name: "long escaped string", method: "POST", target: "/body", ct: json, body: `{"name":"` + strings.Repeat(`\u00e9`, (mib-20)/6) + `"}`, status: 422},
		{name: "over the limit", method: "POST", target: "/body", ct: json, body: `{"name":"` + strings.Repeat("x", 2*mib) + `"}`, status: 413},
		{name: "many unknown keys", method: "POST", target: "/body", ct: json, body: keys.String(), limitOK: true},
		{name: "many duplicate keys", method: "POST", target: "/body", ct: json, body: dupKeys.String(), status: 400},
		{name: "many map keys", method: "POST", target: "/body", ct: json, body: mapKeys.String(), limitOK: true},
		{name: "many items", method: "POST", target: "/body", ct: json, body: `{"items":[` + strings.TrimSuffix(strings.Repeat(`{"sku":"a"},`, (mib-20)/12), ",") + `]}`, limitOK: true},
		{name: "many tags", method: "POST", target: "/body", ct: json, body: `{"tags":[` + strings.TrimSuffix(strings.Repeat(`"a",`, (mib-20)/4), ",") + `]}`, status: 422},
		{name: "no content type", method: "POST", target: "/body", body: `{"name":"a"}`, status: 415},
		{name: "4 TiB declared", method: "POST", target: "/body", ct: json, body: `{"name":"a"}`, length: 4 << 40, status: 413},
		{name: "many query values", method: "GET", target: "/params?" + query("tag=x", 60000), status: 422},
		{name: "long comma list", method: "GET", target: "/params?ids=" + strings.Repeat("1,", 100000) + "1", limitOK: true},
		{name: "many deepObject keys", method: "GET", target: "/params?" + query("filter[k]=v", 60000), limitOK: true},
		{name: "many distinct deepObject keys", method: "GET", target: "/params?" + func() string {
			var b strings.Builder
			for i := range 30000 {
				fmt.Fprintf(&b, "filter[k%d]=v&", i)
			}
			return b.String()
		}(), status: 422},
		{name: "nested deepObject keys", method: "GET", target: "/params?filter" + strings.Repeat("[a]", 100000) + "=1", status: 422},
		{name: "many header values", method: "GET", target: "/params", header: [][2]string{{"X-Nums", strings.Repeat("1,", 100000) + "1"}}, status: 422},
		{name: "many cookies", method: "GET", target: "/params", header: [][2]string{{"Cookie", strings.Repeat("a=b; ", 50000) + "theme=" + strings.Repeat("t", 100)}}, status: 422},
		{name: "many multipart parts", method: "POST", target: "/form", ct: mw.FormDataContentType(), body: parts.String(), status: 413},
		{name: "many multipart files", method: "POST", target: "/form", ct: fw.FormDataContentType(), body: files.String(), status: 422},
		{name: "long multipart header", method: "POST", target: "/form", ct: lh.FormDataContentType(), body: longHeader.String(), limitOK: true},
	}
}

// serveOnce serves one request to h and returns its response, the time it
// took and the bytes it allocated.
func serveOnce(h http.Handler, c hostile) (*httptest.ResponseRecorder, time.Duration, uint64) {
	req := httptest.NewRequest(c.method, c.target, strings.NewReader(c.body))
	if c.ct != "" {
		req.Header.Set("Content-Type", c.ct)
	}
	for _, kv := range c.header {
		req.Header.Set(kv[0], kv[1])
	}
	if c.length != 0 {
		req.ContentLength = c.length
	}
	w := httptest.NewRecorder()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	h.ServeHTTP(w, req)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	return w, took, after.TotalAlloc - before.TotalAlloc
}

// Hostile input gets a 4xx problem in memory linear in what was sent; the
// time each took is logged, with the worst time and memory (go test -v
// -run Hostile ./bind/). Time is not asserted: it depends on the machine
// and its load.
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	h := hostileRouter()
	goroutines := runtime.NumGoroutine()
	var worstTime, worstMem hostile
	var maxTime time.Duration
	var maxMem uint64
	for _, c := range hostileInputs() {
		t.Run(c.name, func(t *testing.T) {
			w, took, mem := serveOnce(h, c)
			sent := len(c.target) + len(c.body)
			for _, kv := range c.header {
				sent += len(kv[1])
			}
			t.Logf("%-30s %7d bytes sent: %d in %v, %d bytes allocated (%.1f per byte sent)", c.name, sent, w.Code, took.Round(time.Microsecond), mem, float64(mem)/float64(sent))
			switch {
			case c.limitOK && w.Code < 300:
			case c.status != 0 && w.Code != c.status, w.Code < 400, w.Code >= 500:
				t.Errorf("status %d, want %d: %.300s", w.Code, c.status, w.Body)
			case w.Header().Get("Content-Type") != "application/problem+json":
				t.Errorf("%d without a problem body", w.Code)
			}
			// Linear in what was sent: the body read once, the values
			// decoded, the errors reported (bounded by what was sent).
			if limit := uint64(40*sent + 1<<20); mem > limit {
				t.Errorf("%d bytes allocated for %d sent", mem, sent)
			}
			if took > maxTime {
				maxTime, worstTime = took, c
			}
			if mem > maxMem {
				maxMem, worstMem = mem, c
			}
		})
	}
	t.Logf("worst time: %v (%s); worst memory: %d bytes (%s)", maxTime.Round(time.Microsecond), worstTime.name, maxMem, worstMem.name)
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("temporary files left: %v", files)
	}
	if n := settledGoroutines(goroutines); n > goroutines {
		t.Errorf("%d goroutines, %d before", n, goroutines)
	}
}

// settledGoroutines waits for goroutines that are ending, until at most
// want are left or a minute has passed: a generous limit, since a loaded
// machine may take long to schedule them, and one that passes at once
// when nothing leaked.
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(time.Minute); n > want && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

// A body that trickles is bounded by the server's read timeout: the
// client gets a 408 problem when the timeout passes, exactly then (the
// synctest bubble's clock), and the binder waits for the body without
// spinning: the server reads the connection about once a byte.
func TestSlowBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const readTimeout = 700 * time.Millisecond
		ln := &countingListener{Listener: memnet.Listen()}
		srv := &http.Server{Handler: hostileRouter(), ReadTimeout: readTimeout}
		served := make(chan error, 1)
		go func() { served <- srv.Serve(ln) }()

		conn, err := ln.Dial(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		start := time.Now()
		wrote := make(chan struct{})
		go func() { // one byte every 100ms, far slower than the timeout allows
			defer close(wrote)
			fmt.Fprintf(conn, "POST /body HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"name\":")
			for range 30 {
				time.Sleep(100 * time.Millisecond)
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}()
		resp, err := io.ReadAll(io.LimitReader(conn, 4096))
		took := time.Since(start)
		if !bytes.HasPrefix(resp, []byte("HTTP/1.1 408")) || !bytes.Contains(resp, []byte("application/problem+json")) {
			t.Errorf("response (%v): %q", err, resp)
		}
		if took != readTimeout {
			t.Errorf("answered after %v, want at the read timeout of %v", took, readTimeout)
		}
		if n := ln.reads.Load(); n > 100 {
			t.Errorf("%d reads of the connection for about 7 bytes sent: the binder spins", n)
		}
		t.Logf("answered after %v, %d reads of the connection", took, ln.reads.Load())
		conn.Close()
		<-wrote
		srv.Close()
		<-served
	})
}

// countingListener counts the reads of the connections it accepts. Past
// 10,000 reads they fail, so that a reader that spins ends.
type countingListener struct {
	*memnet.Listener
	reads atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, reads: &l.reads}, nil
}

type countingConn struct {
	net.Conn
	reads *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	if c.reads.Add(1) > 10_000 {
		return 0, errors.New("too many reads")
	}
	return c.Conn.Read(p)
}
