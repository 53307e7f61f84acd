package vane

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane/codec"
)

var codecJSON = codec.JSON

// Huma's greeting operation: POST /foo/{id}?num=5 with a Content-Type
// header and a JSON body whose suffix has a maxLength rule; the response
// has ETag and Last-Modified headers and a JSON body of five fields.

type GreetingInput struct {
	ID          string `path:"id"`
	ContentType string `header:"Content-Type"`
	Num         int    `query:"num"`
	Body        struct {
		Suffix string `json:"suffix" maxLength:"5"`
	}
}

type GreetingOutput struct {
	ETag         string    `header:"ETag"`
	LastModified time.Time `header:"Last-Modified"`
	Body         struct {
		Greeting    string `json:"greeting"`
		Suffix      string `json:"suffix"`
		Length      int    `json:"length"`
		ContentType string `json:"content_type"`
		Num         int    `json:"num"`
	}
}

var greetingModified = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

func greeting(ctx context.Context, in *GreetingInput) (*GreetingOutput, error) {
	out := &GreetingOutput{ETag: "abc123", LastModified: greetingModified}
	out.Body.Greeting = "Hello, " + in.ID + in.Body.Suffix
	out.Body.Suffix = in.Body.Suffix
	out.Body.Length = len(out.Body.Greeting)
	out.Body.ContentType = in.ContentType
	out.Body.Num = in.Num
	return out, nil
}

func greetingRouter() *Router {
	r := New()
	Post(r, "/foo/{id}", greeting)
	return r
}

// handGreeting is the same work written by hand on the router, as one
// would with net/http: read the parameters, decode and check the body,
// set the headers, encode the response (with the same codec, so that the
// comparison is of the framework, not of the JSON library).
func handGreeting(w http.ResponseWriter, req *http.Request) {
	id := Param(req, "id")
	num, err := strconv.Atoi(req.URL.Query().Get("num"))
	if err != nil {
		http.Error(w, "bad num", http.StatusUnprocessableEntity)
		return
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, req.Body, 1<<20))
	if err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	var body struct {
		Suffix string `json:"suffix"`
	}
	if err := codecJSON.Unmarshal(data, &body); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	if len([]rune(body.Suffix)) > 5 {
		http.Error(w, "suffix too long", http.StatusUnprocessableEntity)
		return
	}
	var out struct {
		Greeting    string `json:"greeting"`
		Suffix      string `json:"suffix"`
		Length      int    `json:"length"`
		ContentType string `json:"content_type"`
		Num         int    `json:"num"`
	}
	out.Greeting = "Hello, " + id + body.Suffix
	out.Suffix = body.Suffix
	out.Length = len(out.Greeting)
	out.ContentType = req.Header.Get("Content-Type")
	out.Num = num
	b, err := codecJSON.Marshal(&out)
	if err != nil {
		http.Error(w, "encode", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("ETag", "abc123")
	h.Set("Last-Modified", greetingModified.Format(http.TimeFormat))
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}

// benchWriter is a ResponseWriter that keeps nothing between requests but
// its header map, cleared each time, so that a benchmark measures the
// handler and not the recorder.
type benchWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *benchWriter) Header() http.Header { return w.h }
func (w *benchWriter) WriteHeader(s int)   { w.status = s }
func (w *benchWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = 200
	}
	w.n += len(b)
	return len(b), nil
}
func (w *benchWriter) reset() {
	clear(w.h)
	w.status, w.n = 0, 0
}

// replayBody is a request body that can be rewound without allocating.
type replayBody struct {
	strings.Reader
	s string
}

func (b *replayBody) Close() error { return nil }
func (b *replayBody) rewind()      { b.Reader.Reset(b.s) }

func greetingRequest() (*http.Request, *replayBody) {
	body := &replayBody{s: `{"suffix":"!"}`}
	body.rewind()
	req, _ := http.NewRequest(http.MethodPost, "/foo/123?num=5", body)
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = int64(len(body.s))
	return req, body
}

func benchGreeting(b *testing.B, h http.Handler) {
	req, body := greetingRequest()
	w := &benchWriter{h: http.Header{}}
	h.ServeHTTP(w, req)
	if w.status != 200 || w.n == 0 {
		b.Fatalf("status %d, %d bytes", w.status, w.n)
	}
	b.ReportAllocs()
	for b.Loop() {
		body.rewind()
		w.reset()
		h.ServeHTTP(w, req)
	}
}

// BenchmarkGreeting is Huma's greeting operation as a typed operation.
func BenchmarkGreeting(b *testing.B) { benchGreeting(b, greetingRouter()) }

// BenchmarkGreetingByHand is the same work written by hand on vane's
// router: the in-run reference for BenchmarkGreeting.
func BenchmarkGreetingByHand(b *testing.B) {
	r := New()
	r.HandleFunc(http.MethodPost, "/foo/{id}", handGreeting)
	benchGreeting(b, r)
}

// One typed int64 path parameter with a minimum, against the same route
// read by hand with Param and strconv.

type userInput struct {
	ID int64 `path:"id" minimum:"1"`
}

func benchParam(b *testing.B, h http.Handler) {
	req, _ := http.NewRequest(http.MethodGet, "/users/42", nil)
	w := &benchWriter{h: http.Header{}}
	h.ServeHTTP(w, req)
	if w.status != 200 || w.n == 0 {
		b.Fatalf("status %d", w.status)
	}
	b.ReportAllocs()
	for b.Loop() {
		w.reset()
		h.ServeHTTP(w, req)
	}
}

// userBody is the response both versions write, prepared once: the
// comparison is of binding and validating the parameter.
var userBody = []byte(`{"id":42}`)

// BenchmarkTypedParam binds and validates the parameter and answers with
// a prepared []byte body.
func BenchmarkTypedParam(b *testing.B) { benchParam(b, typedParamRouter()) }

// BenchmarkTypedParamByHand reads the same parameter by hand.
func BenchmarkTypedParamByHand(b *testing.B) { benchParam(b, handParamRouter()) }

func typedParamRouter() *Router {
	r := New()
	Get(r, "/users/{id}", func(ctx context.Context, in *userInput) (*[]byte, error) {
		if in.ID != 42 {
			return nil, NotFound("no such user")
		}
		return &userBody, nil
	})
	return r
}

// BenchmarkTypedParamRatio runs the typed and the hand-written route in
// alternating blocks, so that both see the same machine load, and reports
// the typed route's time as a multiple of the hand-written one's
// (typed/hand, the median over blocks; the target is at most 1.3).
func BenchmarkTypedParamRatio(b *testing.B) {
	benchRatio(b, typedParamRouter(), handParamRouter(), "/users/42")
}

// BenchmarkGreetingRatio is the same for the greeting operation.
func BenchmarkGreetingRatio(b *testing.B) {
	hand := New()
	hand.HandleFunc(http.MethodPost, "/foo/{id}", handGreeting)
	benchRatio(b, greetingRouter(), hand, "")
}

func benchRatio(b *testing.B, typed, hand http.Handler, path string) {
	var req *http.Request
	var body *replayBody
	if path == "" {
		req, body = greetingRequest()
	} else {
		req, _ = http.NewRequest(http.MethodGet, path, nil)
	}
	w := &benchWriter{h: http.Header{}}
	run := func(h http.Handler, n int) time.Duration {
		start := time.Now()
		for i := 0; i < n; i++ {
			if body != nil {
				body.rewind()
			}
			w.reset()
			h.ServeHTTP(w, req)
		}
		return time.Since(start)
	}
	// Blocks of 200 requests each, the two handlers taking turns (and
	// turns at going first); the ratio reported is the median of the
	// blocks' ratios, which a burst of load on a shared machine moves less
	// than it moves a total.
	const block = 200
	var tTyped, tHand time.Duration
	var ratios []float64
	b.ReportAllocs()
	b.ResetTimer()
	for done, round := 0, 0; done < b.N; done, round = done+block, round+1 {
		n := min(block, b.N-done)
		var dt, dh time.Duration
		if round%2 == 0 {
			dt = run(typed, n)
			dh = run(hand, n)
		} else {
			dh = run(hand, n)
			dt = run(typed, n)
		}
		tTyped += dt
		tHand += dh
		if n == block {
			ratios = append(ratios, float64(dt)/float64(dh))
		}
	}
	b.StopTimer()
	if w.status != 200 {
		b.Fatalf("status %d", w.status)
	}
	b.ReportMetric(float64(tTyped.Nanoseconds())/float64(b.N), "typed-ns/op")
	b.ReportMetric(float64(tHand.Nanoseconds())/float64(b.N), "hand-ns/op")
	if len(ratios) > 0 {
		slices.Sort(ratios)
		b.ReportMetric(ratios[len(ratios)/2], "typed/hand")
	}
}

// handContentType is the hand-written handler's Content-Type, allocated once
// as vane's own writer does.
var handContentType = []string{"application/octet-stream"}

func handParamRouter() *Router {
	r := New()
	r.HandleFunc(http.MethodGet, "/users/{id}", func(w http.ResponseWriter, req *http.Request) {
		id, err := strconv.ParseInt(Param(req, "id"), 10, 64)
		if err != nil || id < 1 {
			http.Error(w, "bad id", http.StatusUnprocessableEntity)
			return
		}
		if id != 42 {
			http.Error(w, "no such user", http.StatusNotFound)
			return
		}
		w.Header()["Content-Type"] = handContentType
		w.WriteHeader(http.StatusOK)
		w.Write(userBody)
	})
	return r
}

// BenchmarkTypedParamParallel serves the typed route from every P at once:
// inputs are reused across concurrent requests too.
func BenchmarkTypedParamParallel(b *testing.B) {
	h := typedParamRouter()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		req, _ := http.NewRequest(http.MethodGet, "/users/42", nil)
		w := &benchWriter{h: http.Header{}}
		for pb.Next() {
			w.reset()
			h.ServeHTTP(w, req)
		}
	})
}
