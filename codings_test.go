package vane

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http/httptest"
	"strings"
	"testing"
)

type codedIn struct {
	Body struct {
		Text string `json:"text" maxLength:"2000000"`
	}
}

type codedOut struct {
	Body struct {
		N int `json:"n"`
	}
}

func gz(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func codingsRouter() *Router {
	r := New(BodyLimit(64 << 10))
	Post(r, "/notes", func(ctx context.Context, in *codedIn) (*codedOut, error) {
		out := &codedOut{}
		out.Body.N = len(in.Body.Text)
		return out, nil
	})
	return r
}

func postCoded(r *Router, coding string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest("POST", "/notes", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if coding != "" {
		req.Header.Set("Content-Encoding", coding)
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w
}

// A gzip body is decoded within the body limit, compressed and
// decompressed; another coding is a 415 with Accept-Encoding, never
// silently read as it is.
func TestRequestContentCodings(t *testing.T) {
	r := codingsRouter()
	if w := postCoded(r, "gzip", gz(`{"text":"hello"}`)); w.Code != 200 || !strings.Contains(w.Body.String(), `"n":5`) {
		t.Errorf("gzip: %d %s", w.Code, w.Body)
	}
	if w := postCoded(r, "identity", []byte(`{"text":"hello"}`)); w.Code != 200 {
		t.Errorf("identity: %d %s", w.Code, w.Body)
	}
	for _, coding := range []string{"br", "compress", "gzip, gzip", "x-unknown"} {
		w := postCoded(r, coding, []byte(`{"text":"hello"}`))
		if w.Code != 415 || w.Header().Get("Accept-Encoding") != "gzip" {
			t.Errorf("%s: %d %v", coding, w.Code, w.Header())
		}
	}
	if w := postCoded(r, "gzip", []byte(`{"text":"not gzip"}`)); w.Code != 400 {
		t.Errorf("not gzip: %d %s", w.Code, w.Body)
	}
	// 10 MiB of spaces inflate from about 10 KiB: refused at the limit.
	bomb := gz(`{"text":"x"}` + strings.Repeat(" ", 10<<20))
	if w := postCoded(r, "gzip", bomb); w.Code != 413 || len(bomb) > 64<<10 {
		t.Errorf("a gzip bomb of %d bytes: %d %s", len(bomb), w.Code, w.Body)
	}
}

func FuzzRequestContentCoding(f *testing.F) {
	f.Add(gz(`{"text":"a"}`))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	f.Add(gz(strings.Repeat("{", 1000)))
	r := codingsRouter()
	f.Fuzz(func(t *testing.T, body []byte) {
		if w := postCoded(r, "gzip", body); w.Code >= 500 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
	})
}

// A patch is read with the same codings as any body.
func TestPatchContentCodings(t *testing.T) {
	s := &petStore{pets: map[int]*storedPet{1: {version: 1, pet: patchPet{Name: "Rex", Species: "dog"}}}}
	r := patchRouter(s)
	req := httptest.NewRequest("PATCH", "/pets/1", bytes.NewReader(gz(`{"name":"Max"}`)))
	req.Header.Set("Content-Type", MergePatchType)
	req.Header.Set("Content-Encoding", "gzip")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"name":"Max"`) {
		t.Errorf("gzip patch: %d %s", w.Code, w.Body)
	}
	req = httptest.NewRequest("PATCH", "/pets/1", strings.NewReader(`{"name":"Kit"}`))
	req.Header.Set("Content-Type", MergePatchType)
	req.Header.Set("Content-Encoding", "br")
	w = httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != 415 || w.Header().Get("Accept-Encoding") != "gzip" {
		t.Errorf("br patch: %d %v", w.Code, w.Header())
	}
}

type oneFourTwoTwo struct {
	Body struct {
		Name    string   `json:"name" minLength:"2"`
		Species string   `json:"species" enum:"cat,dog"`
		Tags    []string `json:"tags"`
	}
}

// Every failure of a body is in one 422: a value of the wrong type does
// not hide the others.
func TestOneUnprocessableEntityListsAll(t *testing.T) {
	r := New()
	Post(r, "/pets", func(ctx context.Context, in *oneFourTwoTwo) (*codedOut, error) { return &codedOut{}, nil })
	w := serve(r, "POST", "/pets", `{"name":"a","species":"x","tags":[1]}`, "Content-Type", "application/json")
	for _, loc := range []string{"body.tags[0]", "body.species", "body.name"} {
		if w.Code != 422 || strings.Count(w.Body.String(), `"location":"`+loc+`"`) != 1 {
			t.Errorf("%s not listed once: %d %s", loc, w.Code, w.Body)
		}
	}
}
