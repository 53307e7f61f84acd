package fast

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// TestPutHeader: a handler's header goes out as net/http's server writes
// it: names sorted and as written, every value, line breaks in a value
// never breaking the header (the Content-Type too, which is set without
// fasthttp's Add), and whether there was a Content-Type.
func TestPutHeader(t *testing.T) {
	for _, tc := range []struct {
		h     http.Header
		typed bool
		want  []string // the header lines after the status line, in order
	}{
		{http.Header{"X-B": {"2"}, "Content-Type": {"application/json"}, "X-A": {"1", "1b"}, "x-lower": {"l"}}, true,
			[]string{"Content-Type: application/json", "X-A: 1", "X-A: 1b", "X-B: 2", "x-lower: l"}},
		{http.Header{"Content-Type": {"text/plain\r\nX-Injected: yes"}}, true,
			[]string{"Content-Type: text/plain  X-Injected: yes"}},
		{http.Header{"X-Value": {"a\r\nX-Injected: yes"}}, false,
			[]string{"X-Value: a  X-Injected: yes"}},
		{http.Header{"Content-Type": nil, "Z": {"z"}}, true, []string{"Z: z"}},
	} {
		got, typed := put(tc.h, nil)
		if typed != tc.typed || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%v: lines %q, typed %v; want %q, %v", tc.h, got, typed, tc.want, tc.typed)
		}
	}
}

// put is putHeader of h into a new response: its header lines after the
// status line (but Content-Length and Date), and whether h has a
// Content-Type.
func put(h http.Header, sc *headerScratch) ([]string, bool) {
	var resp fasthttp.Response
	resp.Header.SetNoDefaultContentType(true)
	typed := putHeader(&resp.Header, h, sc)
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(resp.Header.String()), "\r\n")[1:] {
		if !strings.HasPrefix(line, "Content-Length:") && !strings.HasPrefix(line, "Date:") {
			lines = append(lines, line)
		}
	}
	return lines, typed
}

// TestPutHeaderKnown: headers put one after another with a connection's
// scratch, which remembers the names of the header before, go out as
// each does alone: whether a header repeats the names before (with other
// values), has as many other names, fewer, more, names that differ in
// case only, or more names than are remembered.
func TestPutHeaderKnown(t *testing.T) {
	many := http.Header{}
	for i := range maxKnownNames + 1 {
		many[fmt.Sprintf("X-%02d", i)] = []string{"v"}
	}
	headers := []http.Header{
		{"Content-Type": {"application/json"}, "X-Content-Type-Options": {"nosniff"}},
		{"Content-Type": {"text/plain"}, "X-Content-Type-Options": {"nosniff", "again"}},
		{"Content-Type": {"text/plain"}, "X-Other": {"o"}},
		{"X-Other": {"o"}},
		{"X-Other": {"p"}, "Content-Type": nil, "": {"empty name"}},
		{"x-other": {"q"}, "content-type": {"a/b"}, "": {"e"}},
		{},
		many,
		many,
		{"Content-Type": {"application/json"}, "X-Content-Type-Options": {"nosniff"}, "Etag": {`"1"`}},
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var sc headerScratch
	h := headers[0]
	for i := range 2000 {
		if rng.IntN(2) == 0 {
			h = headers[rng.IntN(len(headers))] // else the header before again
		}
		got, gotTyped := put(h, &sc)
		want, wantTyped := put(h, nil)
		if gotTyped != wantTyped || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("put %d, %v: %q, typed %v; alone: %q, %v", i, h, got, gotTyped, want, wantTyped)
		}
	}
}

// TestPutHeaderAsAdd: putHeader (which sets a single value of a plain
// name with fasthttp's SetCanonical) leaves the response header as
// fasthttp's Add of every value does, on headers of names fasthttp
// treats apart (Content-Type, Content-Length, Connection, Server, Date,
// Set-Cookie, Transfer-Encoding, Trailer and a trailer it announces),
// names differing in case, names with line breaks or spaces, the empty
// name, one value or several, values with line breaks; with a
// connection's scratch and without.
func TestPutHeaderAsAdd(t *testing.T) {
	names := []string{"Content-Type", "content-type", "Content-Length", "Connection", "Server", "Date", "Set-Cookie",
		"Transfer-Encoding", "Trailer", "trailer", "X-T", "X-A", "x-a", "X\r\nInjected", "Bad Name", "", "Content-Encoding", "Etag"}
	values := []string{"v", "a\r\nb", "close", "keep-alive", "5", "X-T", "x-t, X-A", "gzip", "chunked", "text/plain", ""}
	rng := rand.New(rand.NewPCG(9, 10))
	var sc headerScratch
	h := http.Header{}
	for i := range 5000 {
		if rng.IntN(3) > 0 { // else the header before again
			h = http.Header{}
			for range rng.IntN(6) {
				vs := make([]string, 1+rng.IntN(2)*rng.IntN(3))
				for j := range vs {
					vs[j] = values[rng.IntN(len(values))]
				}
				h[names[rng.IntN(len(names))]] = vs
			}
		}
		want := headerAfter(h, func(rh *fasthttp.ResponseHeader) bool { return putHeaderAdd(rh, h) })
		for _, s := range []*headerScratch{nil, &sc} {
			if got := headerAfter(h, func(rh *fasthttp.ResponseHeader) bool { return putHeader(rh, h, s) }); got != want {
				t.Fatalf("header %d %q (scratch %v):\n%s\nwith Add:\n%s", i, h, s != nil, got, want)
			}
		}
	}
}

// headerAfter is what a response header holds after put: its text, its
// trailer's, its length and Connection: close, and what put reported.
func headerAfter(h http.Header, put func(*fasthttp.ResponseHeader) bool) string {
	var resp fasthttp.Response
	resp.Header.SetNoDefaultContentType(true)
	typed := put(&resp.Header)
	var text strings.Builder
	for _, line := range strings.SplitAfter(resp.Header.String(), "\r\n") {
		if !strings.HasPrefix(line, "Date: ") { // the clock's second, which may turn between two calls
			text.WriteString(line)
		}
	}
	return fmt.Sprintf("%s|trailer %q|length %d|close %v|typed %v", text.String(), resp.Header.TrailerHeader(),
		resp.Header.ContentLength(), resp.Header.ConnectionClose(), typed)
}

// putHeaderAdd is putHeader with fasthttp's Add for every value.
func putHeaderAdd(rh *fasthttp.ResponseHeader, h http.Header) bool {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	rh.DisableNormalizing()
	typed := false
	for _, k := range names {
		if k == "Content-Type" {
			typed = true
			if len(h[k]) == 1 {
				rh.SetContentType(h[k][0])
				continue
			}
		}
		for _, v := range h[k] {
			rh.Add(k, v)
		}
	}
	return typed
}

// TestSetBodyHeader: the Content-Type a typed answer hands the writer
// (respond.BodyHeaderSetter) goes out with nosniff as if the handler had
// set both in Header: alone, beside lines a middleware set, or after a Header call, which then holds both. Discard drops it.
func TestSetBodyHeader(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(w *writer)
		want []string
	}{
		{"alone", func(w *writer) {}, []string{"Content-Type: application/json", "X-Content-Type-Options: nosniff"}},
		{"beside others", func(w *writer) {
			w.Header()["X-Request-Id"] = []string{"r1"}
			w.Header()["A-First"] = []string{"a"}
		}, []string{"Content-Type: application/json", "A-First: a", "X-Content-Type-Options: nosniff", "X-Request-Id: r1"}}, // fasthttp puts Content-Type first
		{"read back", func(w *writer) {
			h := w.Header()
			if got := fmt.Sprint(h["Content-Type"], h["X-Content-Type-Options"]); got != "[application/json] [nosniff]" {
				t.Errorf("Header after SetBodyHeader: %s", got)
			}
			h["Content-Type"] = []string{"text/plain"} // a middleware replacing it
		}, []string{"Content-Type: text/plain", "X-Content-Type-Options: nosniff"}},
		{"discarded", func(w *writer) { w.Discard(); w.WriteHeader(500) }, nil},
	} {
		var c fasthttp.RequestCtx
		c.Response.Header.SetNoDefaultContentType(true)
		var w writer
		w.reset(&c)
		if !w.SetBodyHeader([]string{"application/json"}) {
			t.Fatal("SetBodyHeader declined")
		}
		tc.do(&w)
		w.finish(new(headerScratch))
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(c.Response.Header.String()), "\r\n")[1:] {
			if !strings.HasPrefix(line, "Content-Length:") && !strings.HasPrefix(line, "Date:") {
				got = append(got, line)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		w.reset(&c)
		if len(w.Header()) != 0 || w.bodyCT != nil {
			t.Errorf("%s: reset left %v %q", tc.name, w.Header(), w.bodyCT)
		}
	}
}
