package vane

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

type docStore struct {
	version  int
	modified time.Time
	text     string
}

type getDoc struct{}

type docOut struct {
	ETag         string    `header:"ETag"`
	LastModified time.Time `header:"Last-Modified"`
	CacheControl string    `header:"Cache-Control"`
	Body         struct {
		Text string `json:"text"`
	}
}

type putDoc struct {
	Conditional
	Body struct {
		Text string `json:"text"`
	}
}

func conditionalRouter(store *docStore, stored *bool) *Router {
	r := New()
	Get(r, "/doc", func(ctx context.Context, _ *getDoc) (*docOut, error) {
		out := &docOut{ETag: fmt.Sprintf(`"v%d"`, store.version), LastModified: store.modified, CacheControl: "no-cache"}
		out.Body.Text = store.text
		return out, nil
	})
	Put(r, "/doc", func(ctx context.Context, in *putDoc) (*struct{}, error) {
		cur := Version{ETag: fmt.Sprintf(`"v%d"`, store.version), LastModified: store.modified, Exists: true}
		if err := in.Check(cur); err != nil {
			return nil, err
		}
		*stored = true
		store.version++
		store.text = in.Body.Text
		return nil, nil
	})
	return r
}

// A GET whose ETag or Last-Modified matches If-None-Match or
// If-Modified-Since is a 304 with the validators and no body; a write with
// a stale If-Match or If-Unmodified-Since is a 412 and the handler does not
// run.
func TestConditionalRequests(t *testing.T) {
	mod := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	store := &docStore{version: 3, modified: mod, text: "hello"}
	var stored bool
	r := conditionalRouter(store, &stored)
	get := func(h ...string) *httptest.ResponseRecorder { return serve(r, "GET", "/doc", "", h...) }
	cases := []struct {
		name    string
		headers []string
		status  int
	}{
		{"no condition", nil, 200},
		{"etag matches", []string{"If-None-Match", `"v3"`}, 304},
		{"weak etag matches", []string{"If-None-Match", `W/"v1", W/"v3"`}, 304},
		{"star", []string{"If-None-Match", "*"}, 304},
		{"etag differs", []string{"If-None-Match", `"v2"`}, 200},
		{"not modified since", []string{"If-Modified-Since", mod.Format(http.TimeFormat)}, 304},
		{"modified since", []string{"If-Modified-Since", mod.Add(-time.Hour).Format(http.TimeFormat)}, 200},
		{"If-None-Match decides alone", []string{"If-None-Match", `"v2"`, "If-Modified-Since", mod.Format(http.TimeFormat)}, 200},
	}
	for _, c := range cases {
		t.Run("GET "+c.name, func(t *testing.T) {
			w := get(c.headers...)
			if w.Code != c.status {
				t.Fatalf("%d %s, want %d", w.Code, w.Body, c.status)
			}
			if w.Header().Get("ETag") != `"v3"` || w.Header().Get("Cache-Control") != "no-cache" {
				t.Errorf("headers %v", w.Header())
			}
			if c.status == 304 && w.Body.Len() != 0 {
				t.Errorf("304 with a body: %q", w.Body)
			}
		})
	}
	writes := []struct {
		name    string
		headers []string
		status  int
	}{
		{"stale If-Match", []string{"If-Match", `"v2"`}, 412},
		{"weak If-Match never matches", []string{"If-Match", `W/"v3"`}, 412},
		{"stale If-Unmodified-Since", []string{"If-Unmodified-Since", mod.Add(-time.Hour).Format(http.TimeFormat)}, 412},
		{"If-None-Match star on an existing resource", []string{"If-None-Match", "*"}, 412},
		{"current If-Match", []string{"If-Match", `"v3"`}, 204},
	}
	for _, c := range writes {
		t.Run("PUT "+c.name, func(t *testing.T) {
			stored = false
			w := serve(r, "PUT", "/doc", `{"text":"new"}`, append([]string{"Content-Type", "application/json"}, c.headers...)...)
			if w.Code != c.status || stored != (c.status == 204) {
				t.Fatalf("%d %s (handler ran: %v), want %d", w.Code, w.Body, stored, c.status)
			}
		})
	}
	var put, getOp []int
	for _, resp := range r.Operations()[1].Responses {
		put = append(put, resp.Status)
	}
	for _, resp := range r.Operations()[0].Responses {
		getOp = append(getOp, resp.Status)
	}
	if !strings.Contains(fmt.Sprint(put), "412") || !strings.Contains(fmt.Sprint(getOp), "304") {
		t.Errorf("documented: GET %v, PUT %v", getOp, put)
	}
	var params []string
	for _, p := range r.Operations()[1].Parameters {
		params = append(params, p.In+" "+p.Name)
	}
	if got := strings.Join(params, ", "); got != "header If-Match, header If-None-Match, header If-Unmodified-Since" {
		t.Errorf("PUT parameters: %s", got)
	}
}
