package middleware_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/internal/syncbuf"
	"github.com/vane-http/vane/middleware"
)

// records decodes the JSON log records in b.
func records(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range bytes.Lines(b) {
		var rec map[string]any
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, rec)
	}
	return out
}

func TestLoggerOneRecordPerRequest(t *testing.T) {
	var logs syncbuf.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	r := vane.New()
	r.Use(middleware.RequestID,
		middleware.RealIP(middleware.RealIPConfig{TrustedProxies: prefixes(t, "127.0.0.1")}),
		middleware.Logger(logger))
	r.HandleFunc(http.MethodGet, "/pets/{id}", func(w http.ResponseWriter, req *http.Request) {
		time.Sleep(2 * time.Millisecond)
		io.WriteString(w, "pet "+vane.Param(req, "id"))
	})
	r.HandleFunc(http.MethodGet, "/boom", func(w http.ResponseWriter, req *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
	})
	srv := httptest.NewServer(r)
	defer srv.Close()

	get := func(path string, header http.Header) *http.Response {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		for k, v := range header {
			req.Header[k] = v
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	res := get("/pets/7", http.Header{"X-Request-Id": {"req-1"}, "X-Forwarded-For": {"203.0.113.7"}})
	get("/nowhere", nil)
	get("/boom", nil)

	recs := records(t, []byte(logs.String()))
	if len(recs) != 3 {
		t.Fatalf("%d records for 3 requests:\n%s", len(recs), logs.String())
	}
	first := recs[0]
	for k, want := range map[string]any{
		"level": "INFO", "msg": "request", "method": "GET", "route": "/pets/{id}", "path": "/pets/7",
		"status": 200.0, "bytes": 5.0, "request_id": "req-1", "client": "203.0.113.7",
	} {
		if first[k] != want {
			t.Errorf("%s = %v, want %v (record %v)", k, first[k], want, first)
		}
	}
	if d, _ := first["duration"].(float64); d < float64(2*time.Millisecond) {
		t.Errorf("duration %v ns, want at least the handler's 2ms", first["duration"])
	}
	if res.Header.Get("X-Request-Id") != "req-1" {
		t.Errorf("X-Request-Id %q", res.Header.Get("X-Request-Id"))
	}
	if nf := recs[1]; nf["route"] != "" || nf["status"] != 404.0 || nf["path"] != "/nowhere" || nf["client"] != "127.0.0.1" {
		t.Errorf("404 record %v", nf)
	}
	if gw := recs[2]; gw["level"] != "ERROR" || gw["status"] != 502.0 || gw["route"] != "/boom" {
		t.Errorf("502 record %v", gw)
	}
	if id, _ := recs[1]["request_id"].(string); len(id) != 26 {
		t.Errorf("generated request ID %q in the log", id)
	}
}

func TestLoggerRecordsPanicAndPassesItOn(t *testing.T) {
	var logs bytes.Buffer
	h := middleware.Logger(slog.New(slog.NewJSONHandler(&logs, nil)))(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic("kaboom") }))
	func() {
		defer func() {
			if v := recover(); v != "kaboom" {
				t.Errorf("recovered %v, want the handler's panic", v)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/x", nil))
	}()
	recs := records(t, logs.Bytes())
	if len(recs) != 1 || recs[0]["status"] != 500.0 || recs[0]["panic"] != true || recs[0]["level"] != "ERROR" {
		t.Errorf("records %v", recs)
	}
}

func TestLoggerRespectsLevel(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	code := 200
	h := middleware.Logger(logger)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) }))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if logs.Len() != 0 {
		t.Errorf("a 200 logged at level Warn: %s", logs.String())
	}
	code = 503
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if recs := records(t, logs.Bytes()); len(recs) != 1 || recs[0]["status"] != 503.0 {
		t.Errorf("records %v", recs)
	}
}

// The writer Logger gives the handler keeps what the server's writer can
// do: flushing (a stream reaches the client before the handler returns),
// hijacking, deadlines through ResponseController, and ReadFrom.
func TestLoggerWriterKeepsOptionalInterfaces(t *testing.T) {
	var logs syncbuf.Buffer
	mw := middleware.Logger(slog.New(slog.NewJSONHandler(&logs, nil)))
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stream", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first\n")
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("ResponseController.Flush: %v", err)
		}
		<-release
		io.WriteString(w, "second\n")
	})
	mux.HandleFunc("GET /hijack", func(w http.ResponseWriter, r *http.Request) {
		c, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Errorf("Hijack: %v", err)
			return
		}
		defer c.Close()
		rw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\nhijacked")
		rw.Flush()
	})
	mux.HandleFunc("GET /deadline", func(w http.ResponseWriter, r *http.Request) {
		if err := http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
			t.Errorf("SetWriteDeadline through Unwrap: %v", err)
		}
		if _, ok := w.(io.ReaderFrom); !ok {
			t.Error("not an io.ReaderFrom")
		}
		io.Copy(w, strings.NewReader("copied")) // through ReadFrom
	})
	srv := httptest.NewServer(mw(mux))
	defer srv.Close()

	res, err := http.Get(srv.URL + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(res.Body).ReadString('\n')
	if err != nil || line != "first\n" {
		t.Fatalf("before the handler returned, read %q, %v: the flush did not reach the client", line, err)
	}
	close(release)
	res.Body.Close()

	for path, want := range map[string]string{"/hijack": "hijacked", "/deadline": "copied"} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if string(b) != want {
			t.Errorf("%s: %q", path, b)
		}
	}
	// The server writes a record after its handler returns, which may be
	// after the client has its answer: wait for the three, up to a minute,
	// a limit generous enough for a loaded machine (the records come at
	// once when all is well).
	deadline := time.Now().Add(time.Minute)
	for strings.Count(logs.String(), "\n") < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	recs := records(t, []byte(logs.String()))
	byPath := map[string]map[string]any{}
	for _, r := range recs {
		byPath[r["path"].(string)] = r
	}
	if r := byPath["/hijack"]; r["hijacked"] != true {
		t.Errorf("hijack record %v", r)
	}
	if r := byPath["/deadline"]; r["bytes"] != 6.0 {
		t.Errorf("ReadFrom's bytes not counted: %v", r)
	}
	if r := byPath["/stream"]; r["bytes"] != 13.0 {
		t.Errorf("stream record %v", r)
	}
}

// readFromRecorder is a ResponseWriter with a ReadFrom of its own.
type readFromRecorder struct {
	*httptest.ResponseRecorder
	readFrom bool
}

func (w *readFromRecorder) ReadFrom(r io.Reader) (int64, error) {
	w.readFrom = true
	return io.Copy(w.ResponseRecorder, r)
}

func TestLoggerWriterUsesUnderlyingReadFrom(t *testing.T) {
	w := &readFromRecorder{ResponseRecorder: httptest.NewRecorder()}
	h := middleware.Logger(slog.New(slog.DiscardHandler))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.(io.ReaderFrom).ReadFrom(strings.NewReader("abc"))
	}))
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if !w.readFrom || w.Body.String() != "abc" {
		t.Errorf("underlying ReadFrom used: %v; body %q", w.readFrom, w.Body)
	}
	// Without one, Hijack reports that it is not supported.
	h = middleware.Logger(slog.New(slog.DiscardHandler))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, _, err := w.(http.Hijacker).Hijack(); !errors.Is(err, http.ErrNotSupported) {
			t.Errorf("Hijack on a recorder: %v", err)
		}
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
}

func ExampleLogger() {
	// A logger without the time, so that the output is the same each run.
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "duration" {
				return slog.Attr{}
			}
			return a
		},
	}))
	r := vane.New()
	r.Use(middleware.RequestID, middleware.Logger(logger))
	r.HandleFunc(http.MethodGet, "/pets/{id}", func(w http.ResponseWriter, req *http.Request) { io.WriteString(w, "Rex") })

	req := httptest.NewRequest("GET", "/pets/1", nil)
	req.Header.Set("X-Request-Id", "abc123")
	r.ServeHTTP(httptest.NewRecorder(), req)
	// Output: level=INFO msg=request method=GET route=/pets/{id} path=/pets/1 status=200 bytes=3 request_id=abc123 client=192.0.2.1
}
