package middleware_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vane-http/vane/internal/memnet"
	"github.com/vane-http/vane/internal/syncbuf"
	"github.com/vane-http/vane/middleware"
)

// withHeader is middleware that sets a response header before the handler
// runs, as CORS or RequestID do.
func withHeader(k, v string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(k, v)
			next.ServeHTTP(w, r)
		})
	}
}

func TestTimeoutPassesAnAnswerInTime(t *testing.T) {
	h := withHeader("X-Outer", "kept")(withHeader("X-Drop", "set outside")(middleware.Timeout(time.Minute)(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if w.Header().Get("X-Outer") != "kept" {
				t.Error("the handler does not see headers set outside")
			}
			w.Header().Del("X-Drop")
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, "made ")
			io.WriteString(w, "it")
		}))))
	srv := httptest.NewServer(h)
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 201 || string(b) != "made it" || res.Header.Get("Content-Type") != "text/plain" ||
		res.Header.Get("X-Outer") != "kept" || res.Header.Get("X-Drop") != "" {
		t.Errorf("%d %q %v", res.StatusCode, b, res.Header)
	}
}

func TestTimeoutAnswers503AndCancelsTheHandler(t *testing.T) {
	release := make(chan struct{})
	finished := make(chan struct{})
	var ctxErr, lateErr, lateFlushErr error
	h := withHeader("X-Request-Id", "r1")(middleware.Timeout(50 * time.Millisecond)(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer close(finished)
			w.Header().Set("X-Handler", "not sent")
			io.WriteString(w, "held back, then dropped")
			<-r.Context().Done()
			ctxErr = r.Context().Err()
			<-release // a handler that goes on after its context ends
			_, lateErr = io.WriteString(w, "too late")
			lateFlushErr = http.NewResponseController(w).Flush()
			w.Header().Set("X-Late", "1") // harmless
		})))
	srv := httptest.NewServer(h)
	defer srv.Close()

	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	close(release) // only now: the 503 came while the handler still ran
	var p struct {
		Status int
		Title  string
	}
	if err := json.Unmarshal(body, &p); err != nil || res.StatusCode != 503 || p.Status != 503 ||
		res.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("%d %q %q (%v)", res.StatusCode, res.Header.Get("Content-Type"), body, err)
	}
	if res.Header.Get("X-Request-Id") != "r1" || res.Header.Get("X-Handler") != "" {
		t.Errorf("headers %v: want those set outside, not the handler's", res.Header)
	}
	<-finished
	if !errors.Is(ctxErr, context.DeadlineExceeded) {
		t.Errorf("the handler's context ended with %v", ctxErr)
	}
	if !errors.Is(lateErr, http.ErrHandlerTimeout) || !errors.Is(lateFlushErr, http.ErrHandlerTimeout) {
		t.Errorf("late write: %v; late flush: %v", lateErr, lateFlushErr)
	}
}

// A handler that goes on writing while its time runs out: run with -race,
// this shows that the late handler and the response never touch the same
// memory unsynchronized. In a synctest bubble on memnet, what the handler
// wrote before its time ran out does not depend on the machine's load:
// the held-back response is always replaced, the started one always cut.
func TestTimeoutLateWritesDoNotRace(t *testing.T) {
	for _, first := range []int{10, middleware.TimeoutBuffer + 1} { // held back; sent on
		t.Run(fmt.Sprint(first), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const clients = 8
				finished := make(chan struct{}, clients)
				h := middleware.Timeout(100 * time.Millisecond)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					defer func() { finished <- struct{}{} }()
					w.Write(bytes.Repeat([]byte("x"), first))
					buf := []byte("0123456789")
					for {
						w.Header().Set("X-N", "1")
						if _, err := w.Write(buf); err != nil {
							return
						}
						time.Sleep(time.Millisecond)
					}
				}))
				client, stop := serveBubble(h)
				defer stop()
				var wg sync.WaitGroup
				for range clients {
					wg.Add(1)
					go func() {
						defer wg.Done()
						res, err := client.Get("http://memnet/")
						if err != nil {
							t.Error(err)
							return
						}
						_, err = io.ReadAll(res.Body)
						res.Body.Close()
						switch {
						case first == 10 && (res.StatusCode != 503 || err != nil):
							t.Errorf("held-back response: %d, %v", res.StatusCode, err)
						case first > 10 && (res.StatusCode != 200 || err == nil):
							t.Errorf("started response: %d, read error %v; want 200 cut short", res.StatusCode, err)
						}
					}()
				}
				wg.Wait()
				for range clients {
					<-finished // every late handler has stopped writing
				}
			})
		})
	}
}

// serveBubble serves h on memnet, for a test inside a synctest bubble, and
// returns a client of it and a function that closes both.
func serveBubble(h http.Handler) (*http.Client, func()) {
	ln := memnet.Listen()
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	client := ln.Client()
	return client, func() {
		client.CloseIdleConnections()
		srv.Close()
	}
}

func TestTimeoutCutsShortAStartedResponse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		finished := make(chan error, 1)
		h := middleware.Timeout(50 * time.Millisecond)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "partial")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			_, err := io.WriteString(w, "more")
			finished <- err
		}))
		client, stop := serveBubble(h)
		defer stop()
		res, err := client.Get("http://memnet/")
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || string(b) != "partial" || err == nil {
			t.Errorf("%d %q, read error %v: want the flushed part, then an error", res.StatusCode, b, err)
		}
		if err := <-finished; !errors.Is(err, http.ErrHandlerTimeout) {
			t.Errorf("write after the timeout: %v", err)
		}
	})
}

func TestTimeoutLargeResponseInTime(t *testing.T) {
	want := strings.Repeat("0123456789abcdef", 3*middleware.TimeoutBuffer/16+5)
	h := middleware.Timeout(time.Minute)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for chunk := range strings.SplitSeq(want, "f") {
			io.WriteString(w, chunk+"f")
		}
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if got := w.Body.String(); got != want+"f" {
		t.Errorf("body of %d bytes, want %d", len(got), len(want)+1)
	}
}

func TestTimeoutPanicReachesRecovererWithItsStack(t *testing.T) {
	var logs bytes.Buffer
	h := middleware.Recoverer(slog.New(slog.NewTextHandler(&logs, nil)))(middleware.Timeout(time.Minute)(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic("kaboom") })))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != 500 || !strings.Contains(logs.String(), "kaboom") || !strings.Contains(logs.String(), "timeout_test.go") {
		t.Errorf("%d; log:\n%s", w.Code, logs.String())
	}
}

func TestTimeoutPassesErrAbortHandlerAsItIs(t *testing.T) {
	h := middleware.Timeout(time.Minute)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic(http.ErrAbortHandler)
	}))
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Errorf("recovered %v", v)
		}
	}()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
}

func TestTimeoutWriterInterfaces(t *testing.T) {
	var leaked http.ResponseWriter
	h := middleware.Timeout(time.Minute)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked = w
		rc := http.NewResponseController(w)
		if _, _, err := rc.Hijack(); !errors.Is(err, http.ErrNotSupported) {
			t.Errorf("Hijack: %v, want ErrNotSupported", err)
		}
		io.WriteString(w, "a")
		if err := rc.Flush(); err != nil {
			t.Errorf("Flush: %v", err)
		}
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if !w.Flushed || w.Body.String() != "a" {
		t.Errorf("flushed %v, body %q", w.Flushed, w.Body)
	}
	if _, err := leaked.Write([]byte("after")); err == nil || w.Body.String() != "a" {
		t.Errorf("a write after the handler returned: %v; body %q", err, w.Body)
	}
}

func TestTimeoutPassesInformationalResponses(t *testing.T) {
	h := middleware.Timeout(time.Minute)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Del("Link")
		io.WriteString(w, "body")
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	var hints []string
	trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, header textproto.MIMEHeader) error {
		hints = append(hints, fmt.Sprint(code, " ", header.Get("Link")))
		return nil
	}}
	req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "GET", srv.URL, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if len(hints) != 1 || hints[0] != "103 </style.css>; rel=preload" || res.StatusCode != 200 ||
		string(b) != "body" || res.Header.Get("Link") != "" {
		t.Errorf("hints %q; final %d %q %v", hints, res.StatusCode, b, res.Header)
	}
}

func TestTimeoutKeepsPatternVisibleOutside(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {})
	var outside string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		middleware.Timeout(time.Minute)(mux).ServeHTTP(w, r)
		outside = r.Pattern
	})
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/items/7", nil))
	if outside != "GET /items/{id}" {
		t.Errorf("pattern outside Timeout = %q", outside)
	}
}

func ExampleTimeout() {
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(time.Minute): // work that takes too long
			io.WriteString(w, "done")
		case <-r.Context().Done(): // stops when the timeout passes
		}
	})
	h := middleware.Timeout(10 * time.Millisecond)(slow)

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/report", nil))
	fmt.Println(w.Code, w.Header().Get("Content-Type"))
	// Output: 503 application/problem+json
}

// A handler that panics after its timeout has answered cannot reach the
// client or Recoverer any more; the panic is logged, not lost. In a
// synctest bubble the timeout passes on the bubble's clock, and
// synctest.Wait returns once the late handler and its reporter are done.
func TestTimeoutLatePanicIsLogged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs syncbuf.Buffer
		prev := slog.Default()
		slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
		defer slog.SetDefault(prev)
		answered := make(chan struct{})
		h := middleware.Timeout(10 * time.Millisecond)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-answered
			panic("too late to tell anyone")
		}))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		close(answered)
		if w.Code != 503 {
			t.Errorf("status %d", w.Code)
		}
		synctest.Wait()
		if !strings.Contains(logs.String(), "too late to tell anyone") {
			t.Fatalf("the late panic was not logged: %q", logs.String())
		}
		if !strings.Contains(logs.String(), "timeout_test.go") {
			t.Errorf("the record lacks the handler's stack: %s", logs.String())
		}
	})
}

// TestTimeoutSendsTheLengthOfAWholeResponse checks that a response held
// back whole until its handler returned goes out with a Content-Length,
// not chunked, past net/http's own 2 KB buffer too; and that the
// responses that must not get one (HEAD, 204, announced trailers, a
// length the handler set, one sent before the handler returned) keep
// theirs.
func TestTimeoutSendsTheLengthOfAWholeResponse(t *testing.T) {
	page := strings.Repeat("0123456789", 1000) // 10,000 bytes
	h := middleware.Timeout(time.Minute)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "application/json")
			if r.Method == http.MethodHead {
				return // a HEAD answer need not write the body
			}
			for i := 0; i < len(page); i += 1000 {
				io.WriteString(w, page[i:i+1000])
			}
		case "/empty":
		case "/nocontent":
			w.WriteHeader(http.StatusNoContent)
		case "/trailer":
			w.Header().Set("Trailer", "X-Sum")
			io.WriteString(w, page)
			w.Header().Set("X-Sum", "42")
		case "/own":
			w.Header().Set("Content-Length", "5")
			io.WriteString(w, "hello")
		case "/large":
			io.WriteString(w, strings.Repeat(page, middleware.TimeoutBuffer/len(page)+1))
		}
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	do := func(method, path string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		return res, string(b)
	}

	res, body := do("GET", "/page")
	if res.ContentLength != int64(len(page)) || len(res.TransferEncoding) != 0 || body != page {
		t.Errorf("GET /page: Content-Length %d, Transfer-Encoding %v, body of %d bytes; want %d, none, the page",
			res.ContentLength, res.TransferEncoding, len(body), len(page))
	}
	res, _ = do("GET", "/empty")
	if res.ContentLength != 0 || len(res.TransferEncoding) != 0 {
		t.Errorf("GET /empty: Content-Length %d, Transfer-Encoding %v", res.ContentLength, res.TransferEncoding)
	}
	res, _ = do("HEAD", "/page")
	if got := res.Header.Get("Content-Length"); got == "0" {
		t.Errorf("HEAD /page: Content-Length %q, the length of the body HEAD did not write", got)
	}
	res, _ = do("GET", "/nocontent")
	if res.StatusCode != http.StatusNoContent || res.Header.Get("Content-Length") != "" {
		t.Errorf("GET /nocontent: %d, Content-Length %q", res.StatusCode, res.Header.Get("Content-Length"))
	}
	res, body = do("GET", "/trailer")
	if res.Trailer.Get("X-Sum") != "42" || body != page || len(res.TransferEncoding) == 0 {
		t.Errorf("GET /trailer: trailer %v, Transfer-Encoding %v, body of %d bytes", res.Trailer, res.TransferEncoding, len(body))
	}
	res, body = do("GET", "/own")
	if res.ContentLength != 5 || body != "hello" {
		t.Errorf("GET /own: Content-Length %d, body %q", res.ContentLength, body)
	}
	res, body = do("GET", "/large")
	if res.ContentLength != -1 || len(res.TransferEncoding) == 0 || len(body) <= middleware.TimeoutBuffer {
		t.Errorf("GET /large (sent before the handler returned): Content-Length %d, Transfer-Encoding %v, body of %d bytes",
			res.ContentLength, res.TransferEncoding, len(body))
	}
}
