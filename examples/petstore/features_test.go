package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// doHeaders is do with further request headers (name, value pairs).
func (c *client) doHeaders(method, path, ctype, body string, headers ...string) response {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{res.StatusCode, res.Header, b}
}

// The service shows conditional requests, merge patches and content
// negotiation, as a client calls them.
func TestVersionsPatchesAndNegotiation(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		c := startService(t, db)
		first := c.get("/pets/1")
		etag := first.header.Get("ETag")
		if first.status != 200 || etag == "" || first.header.Get("Last-Modified") == "" {
			t.Fatalf("GET: %d %v", first.status, first.header)
		}
		if r := c.doHeaders("GET", "/pets/1", "", "", "If-None-Match", etag); r.status != 304 || len(r.body) != 0 || r.header.Get("ETag") != etag {
			t.Errorf("If-None-Match: %d %v %q", r.status, r.header, r.body)
		}
		put := `{"name":"Rex","species":"dog","status":"pending"}`
		if r := c.doHeaders("PUT", "/pets/1", "application/json", put, "If-Match", `"stale"`); r.status != 412 {
			t.Errorf("stale If-Match: %d %s", r.status, r.body)
		}
		r := c.doHeaders("PUT", "/pets/1", "application/json", put, "If-Match", etag)
		if r.status != 200 || r.header.Get("ETag") == etag {
			t.Fatalf("current If-Match: %d %v %s", r.status, r.header, r.body)
		}
		etag = r.header.Get("ETag")

		r = c.doHeaders("PATCH", "/pets/1", "application/merge-patch+json", `{"status":"adopted","owner":"Ann","tags":null}`, "If-Match", etag)
		p := decode[Pet](t, r, 200)
		if p.Name != "Rex" || p.Status != "adopted" || p.Owner == nil || *p.Owner != "Ann" || len(p.Tags) != 0 {
			t.Errorf("patched: %+v", p)
		}
		if r := c.doHeaders("PATCH", "/pets/1", "application/merge-patch+json", `{"species":"dragon"}`); r.status != 422 || !strings.Contains(string(r.body), "body.species") {
			t.Errorf("invalid patch result: %d %s", r.status, r.body)
		}
		if r := c.doHeaders("PATCH", "/pets/1", "application/json", `{"name":"X"}`); r.status != 415 {
			t.Errorf("patch as JSON: %d %s", r.status, r.body)
		}
		if r := c.doHeaders("PATCH", "/pets/99", "application/merge-patch+json", `{"name":"X"}`); r.status != 404 {
			t.Errorf("patch of no pet: %d %s", r.status, r.body)
		}
		r = c.doHeaders("GET", "/pets/1", "", "", "Accept", "application/xml")
		if r.status != 406 || !strings.Contains(r.problem(t).Detail, "application/json") {
			t.Errorf("Accept application/xml: %d %s", r.status, r.body)
		}
	})
}

// GET /pets/events streams the changes made through the service.
func TestPetEvents(t *testing.T) {
	c := startService(t, testDBs[0])
	s := openStream(t, c.base, "0") // from the first event: none missed while it subscribes
	defer s.close()
	if ct := s.res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type %q", ct)
	}
	created := decode[Pet](t, c.sendJSON("POST", "/pets", `{"name":"Nemo","species":"fish"}`, testToken), 201)
	e := s.next(t)
	var got PetCreated
	if err := json.Unmarshal([]byte(e.Data), &got); e.Name != "created" || err != nil || got.Pet.ID != created.ID {
		t.Errorf("event %s %s: %+v %v", e.Name, e.Data, got, err)
	}
	if r := c.do("DELETE", "/pets/"+strconv.FormatInt(created.ID, 10), "", nil, testToken); r.status != 204 {
		t.Fatalf("delete: %d", r.status)
	}
	if e := s.next(t); e.Name != "deleted" {
		t.Errorf("event %q", e.Name)
	}
}
