package middleware_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vane-http/vane/internal/syncbuf"
	"github.com/vane-http/vane/middleware"
)

func TestRecovererTurnsPanicInto500Problem(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	h := middleware.Recoverer(logger)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Secret", "set before the panic")
		panic("boom: database password is hunter2")
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/items/7", nil))

	if w.Code != 500 {
		t.Fatalf("status %d", w.Code)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q", ct)
	}
	if w.Header().Get("X-Secret") != "" {
		t.Error("headers set by the handler survived the panic")
	}
	var p struct {
		Type   string `json:"type"`
		Title  string `json:"title"`
		Status int    `json:"status"`
		Detail string `json:"detail"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, w.Body)
	}
	if p.Status != 500 || p.Title != "Internal Server Error" || p.Type != "about:blank" {
		t.Errorf("problem %+v", p)
	}
	if strings.Contains(w.Body.String(), "hunter2") {
		t.Error("the response leaks the panic value")
	}

	var rec map[string]any
	if err := json.Unmarshal(logs.Bytes(), &rec); err != nil {
		t.Fatalf("want one JSON log record, got %q", logs.String())
	}
	if rec["level"] != "ERROR" || rec["path"] != "/items/7" || rec["method"] != "GET" ||
		!strings.Contains(rec["panic"].(string), "hunter2") {
		t.Errorf("log record %v", rec)
	}
	if stack, _ := rec["stack"].(string); !strings.Contains(stack, "recoverer_test.go") {
		t.Errorf("the stack does not reach the panicking handler:\n%s", stack)
	}
}

func TestRecovererAbortsAStartedResponse(t *testing.T) {
	var logs syncbuf.Buffer
	srv := httptest.NewServer(middleware.Recoverer(slog.New(slog.NewTextHandler(&logs, nil)))(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100")
			w.WriteHeader(200)
			io.WriteString(w, "partial")
			w.(http.Flusher).Flush() // the client has the status line now
			panic("late")
		})))
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	if _, err := io.ReadAll(res.Body); err == nil {
		t.Error("a response cut short by a panic read as complete")
	}
	if !strings.Contains(logs.String(), "late") {
		t.Errorf("panic not logged: %s", logs.String())
	}
}

func TestRecovererPassesErrAbortHandler(t *testing.T) {
	var logs bytes.Buffer
	h := middleware.Recoverer(slog.New(slog.NewTextHandler(&logs, nil)))(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) }))
	defer func() {
		v := recover()
		if err, ok := v.(error); !ok || !errors.Is(err, http.ErrAbortHandler) {
			t.Errorf("recovered %v, want http.ErrAbortHandler", v)
		}
		if logs.Len() != 0 {
			t.Errorf("ErrAbortHandler was logged: %s", logs.String())
		}
	}()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
}

func TestRecovererKeepsFlusherAndController(t *testing.T) {
	h := middleware.Recoverer(nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(http.Flusher); !ok {
			t.Error("the wrapped writer is not an http.Flusher")
		}
		io.WriteString(w, "a")
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("ResponseController.Flush: %v", err)
		}
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if !w.Flushed || w.Body.String() != "a" {
		t.Errorf("flushed %v body %q", w.Flushed, w.Body)
	}
}

func ExampleRecoverer() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) { panic("bug") })
	h := middleware.Recoverer(slog.New(slog.DiscardHandler))(mux)

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	fmt.Println(w.Code, w.Header().Get("Content-Type"))
	// Output: 500 application/problem+json
}
