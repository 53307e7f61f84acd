package main

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane/internal/browsertest"
	"github.com/vane-http/vane/internal/oasvalidate"
	"github.com/vane-http/vane/vanetest"
)

const testToken = "test-token"

// client talks to a fresh service over real HTTP.
type client struct {
	t    *testing.T
	base string
}

// startService serves the whole service, its middleware included, on a
// fresh database of db, over real HTTP.
func startService(t *testing.T, db testDB) *client {
	t.Helper()
	return startServiceOn(t, db.freshStore(t))
}

// startServiceOn is startService on store. The API's Timeout is a minute:
// a loaded machine must not turn a slow answer into a 503.
func startServiceOn(t *testing.T, store *Store) *client {
	t.Helper()
	h := newService(store, map[string]string{testToken: "tester"}, options{timeout: time.Minute})
	// Every answer of a typed operation is checked against the document,
	// its status listed there by number.
	srv := httptest.NewServer(vanetest.New(t, h, vanetest.ExplicitStatuses()).Handler())
	t.Cleanup(srv.Close)
	return &client{t, srv.URL}
}

type response struct {
	status int
	header http.Header
	body   []byte
}

// problem decodes an RFC 9457 body.
func (r response) problem(t *testing.T) (p struct {
	Status int
	Detail string
	Errors []struct {
		Location string
		Message  string
		Value    any
	}
}) {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type %q, want application/problem+json; body %s", ct, r.body)
	}
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("problem body: %v\n%s", err, r.body)
	}
	if p.Status != r.status {
		t.Errorf("problem status %d, response status %d", p.Status, r.status)
	}
	return p
}

func (c *client) do(method, path, ctype string, body io.Reader, token string) response {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return response{res.StatusCode, res.Header, b}
}

func (c *client) get(path string) response { return c.do("GET", path, "", nil, "") }

func (c *client) sendJSON(method, path, body, token string) response {
	return c.do(method, path, "application/json", strings.NewReader(body), token)
}

func decode[T any](t *testing.T, r response, want int) T {
	t.Helper()
	if r.status != want {
		t.Fatalf("status %d, want %d; body %s", r.status, want, r.body)
	}
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("body: %v\n%s", err, r.body)
	}
	return v
}

func TestListPets(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		c := startService(t, db)

		all := decode[Page[Pet]](t, c.get("/pets?total=true"), 200)
		if all.Total == nil || *all.Total != 7 || len(all.Items) != 7 || all.Limit != 20 || all.Next != nil {
			t.Fatalf("default page: total %v, %d items, limit %d, next %v", all.Total, len(all.Items), all.Limit, all.Next)
		}
		if p := decode[Page[Pet]](t, c.get("/pets"), 200); p.Total != nil {
			t.Errorf("a total nobody asked for: %d", *p.Total)
		}

		// Paging: follow next links to the end.
		var names []string
		path := "/pets?limit=3"
		for pages := 0; path != ""; pages++ {
			if pages > 3 {
				t.Fatal("next links do not end")
			}
			p := decode[Page[Pet]](t, c.get(path), 200)
			for _, pet := range p.Items {
				names = append(names, pet.Name)
			}
			path = ""
			if p.Next != nil {
				path = *p.Next
			}
		}
		if got := strings.Join(names, ","); got != "Rex,Mittens,Captain,Bubbles,Luna,Biscuit,Shadow" {
			t.Errorf("paged through %s", got)
		}

		for query, want := range map[string]string{
			"species=cat":                  "Mittens,Luna",
			"status=pending":               "Captain,Shadow",
			"tag=friendly":                 "Rex,Luna,Biscuit",
			"tag=friendly&tag=indoor":      "Luna",
			"tag=friendly&tag=trained":     "Rex",
			"q=BI":                         "Biscuit",
			"species=dog&status=pending":   "Shadow",
			"species=dog&limit=1&offset=1": "Shadow",
		} {
			p := decode[Page[Pet]](t, c.get("/pets?"+query), 200)
			var got []string
			for _, pet := range p.Items {
				got = append(got, pet.Name)
			}
			if strings.Join(got, ",") != want {
				t.Errorf("?%s: %v, want %s", query, got, want)
			}
		}

		// Every broken rule is reported, with where it came from.
		r := c.get("/pets?limit=500&offset=-1&species=lizard")
		if r.status != 422 {
			t.Fatalf("bad query: %d %s", r.status, r.body)
		}
		locs := map[string]bool{}
		for _, e := range r.problem(t).Errors {
			locs[e.Location] = true
		}
		for _, want := range []string{"query.limit", "query.offset", "query.species"} {
			if !locs[want] {
				t.Errorf("no error for %s in %s", want, r.body)
			}
		}
	})
}

func TestGetPet(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		c := startService(t, db)
		p := decode[Pet](t, c.get("/pets/1"), 200)
		if p.ID != 1 || p.Name != "Rex" || p.Species != "dog" || p.CreatedAt.IsZero() {
			t.Errorf("pet 1: %+v", p)
		}
		if r := c.get("/pets/99"); r.status != 404 || !strings.Contains(r.problem(t).Detail, "99") {
			t.Errorf("unknown pet: %d %s", r.status, r.body)
		}
		if r := c.get("/pets/0"); r.status != 422 || r.problem(t).Errors[0].Location != "path.id" {
			t.Errorf("id 0: %d %s", r.status, r.body)
		}
		if r := c.get("/pets/abc"); r.status != 422 {
			t.Errorf("id abc: %d %s", r.status, r.body)
		}
	})
}

func TestCreateUpdateDeletePet(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		c := startService(t, db)

		// Writing needs the token.
		for _, token := range []string{"", "wrong"} {
			r := c.sendJSON("POST", "/pets", `{"name":"Nemo","species":"fish"}`, token)
			if r.status != 401 || r.header.Get("WWW-Authenticate") == "" {
				t.Errorf("token %q: %d %s", token, r.status, r.body)
			}
			r.problem(t)
		}

		r := c.sendJSON("POST", "/pets", `{"name":"Nemo","species":"fish","tags":["orange"]}`, testToken)
		created := decode[Pet](t, r, 201)
		if created.ID != 8 || created.Status != "available" || r.header.Get("Location") != "/pets/8" {
			t.Errorf("created %+v at %q", created, r.header.Get("Location"))
		}
		if got := decode[Pet](t, c.get("/pets/8"), 200); got.Name != "Nemo" {
			t.Errorf("stored %+v", got)
		}

		// Every failure at once, each with its location and the value sent.
		r = c.sendJSON("POST", "/pets", `{"name":"","species":"lizard","tags":["a","a"],"birthDate":"yesterday"}`, testToken)
		if r.status != 422 {
			t.Fatalf("invalid pet: %d %s", r.status, r.body)
		}
		got := map[string]bool{}
		for _, e := range r.problem(t).Errors {
			got[e.Location] = true
		}
		for _, want := range []string{"body.name", "body.species", "body.tags[1]", "body.birthDate"} {
			if !got[want] {
				t.Errorf("no error at %s: %s", want, r.body)
			}
		}
		if r := c.sendJSON("POST", "/pets", `{"name":"x",`, testToken); r.status != 400 {
			t.Errorf("malformed JSON: %d %s", r.status, r.body)
		}
		if r := c.do("POST", "/pets", "text/plain", strings.NewReader("Nemo"), testToken); r.status != 415 {
			t.Errorf("text body: %d %s", r.status, r.body)
		}

		// Replace.
		updated := decode[Pet](t, c.sendJSON("PUT", "/pets/8", `{"name":"Nemo","species":"fish","status":"adopted","owner":"Marlin"}`, testToken), 200)
		if updated.Status != "adopted" || updated.Owner == nil || *updated.Owner != "Marlin" || len(updated.Tags) != 0 ||
			!updated.CreatedAt.Equal(created.CreatedAt) {
			t.Errorf("updated %+v", updated)
		}
		if r := c.sendJSON("PUT", "/pets/99", `{"name":"x","species":"dog"}`, testToken); r.status != 404 {
			t.Errorf("update unknown: %d", r.status)
		}
		if r := c.sendJSON("PUT", "/pets/8", `{"name":"x","species":"dog"}`, ""); r.status != 401 {
			t.Errorf("update without token: %d", r.status)
		}

		// Delete: 204, then gone.
		if r := c.do("DELETE", "/pets/8", "", nil, testToken); r.status != 204 || len(r.body) != 0 {
			t.Errorf("delete: %d %q", r.status, r.body)
		}
		if r := c.get("/pets/8"); r.status != 404 {
			t.Errorf("deleted pet: %d", r.status)
		}
		if r := c.do("DELETE", "/pets/8", "", nil, testToken); r.status != 404 {
			t.Errorf("delete twice: %d", r.status)
		}
	})
}

// multipartPhoto builds a multipart/form-data body with one file.
func multipartPhoto(t *testing.T, field, ctype string, data []byte) (string, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="`+field+`"; filename="photo"`)
	h.Set("Content-Type", ctype)
	part, err := w.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	part.Write(data)
	w.Close()
	return w.FormDataContentType(), &buf
}

func TestPhotoUploadAndDownload(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		c := startService(t, db)
		if r := c.get("/pets/1/photo"); r.status != 404 {
			t.Errorf("photo before upload: %d", r.status)
		}
		png := []byte("\x89PNG\r\n\x1a\n fake image bytes")
		ctype, body := multipartPhoto(t, "photo", "image/png", png)
		p := decode[Pet](t, c.do("POST", "/pets/1/photo", ctype, body, testToken), 200)
		if !p.HasPhoto {
			t.Errorf("after upload: %+v", p)
		}
		r := c.get("/pets/1/photo")
		if r.status != 200 || r.header.Get("Content-Type") != "image/png" || !bytes.Equal(r.body, png) {
			t.Errorf("download: %d %q %q", r.status, r.header.Get("Content-Type"), r.body)
		}

		ctype, body = multipartPhoto(t, "photo", "text/plain", []byte("not an image"))
		if r := c.do("POST", "/pets/1/photo", ctype, body, testToken); r.status != 422 || r.problem(t).Errors[0].Location != "body.photo" {
			t.Errorf("text file: %d %s", r.status, r.body)
		}
		ctype, body = multipartPhoto(t, "other", "image/png", png)
		if r := c.do("POST", "/pets/1/photo", ctype, body, testToken); r.status != 422 {
			t.Errorf("no photo field: %d %s", r.status, r.body)
		}
		ctype, body = multipartPhoto(t, "photo", "image/png", png)
		if r := c.do("POST", "/pets/99/photo", ctype, body, testToken); r.status != 404 {
			t.Errorf("unknown pet: %d %s", r.status, r.body)
		}
		ctype, body = multipartPhoto(t, "photo", "image/png", png)
		if r := c.do("POST", "/pets/1/photo", ctype, body, ""); r.status != 401 {
			t.Errorf("without token: %d", r.status)
		}
		ctype, body = multipartPhoto(t, "photo", "image/png", bytes.Repeat([]byte("x"), maxPhotoBytes+1))
		if r := c.do("POST", "/pets/1/photo", ctype, body, testToken); r.status != 413 {
			t.Errorf("photo over 4 MiB: %d %s", r.status, r.body)
		}
	})
}

func TestWhoAmI(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		c := startService(t, db)
		if me := decode[Me](t, c.do("GET", "/me", "", nil, testToken), 200); me.User != "tester" {
			t.Errorf("me: %+v", me)
		}
		if r := c.get("/me"); r.status != 401 {
			t.Errorf("without token: %d", r.status)
		}
	})
}

// TestOpenAPIDocument checks the served document with the independent
// validator, and that it describes every route of the service.
func TestOpenAPIDocument(t *testing.T) {
	c := startService(t, testDBs[0])
	j, y := c.get("/openapi.json"), c.get("/openapi.yaml")
	if j.status != 200 || y.status != 200 {
		t.Fatalf("document: %d, %d", j.status, y.status)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Security    []map[string][]string
		}
	}
	if err := json.Unmarshal(j.body, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"GET /pets": "listPets", "POST /pets": "createPet", "GET /pets/{id}": "getPet",
		"PUT /pets/{id}": "updatePet", "DELETE /pets/{id}": "deletePet",
		"POST /pets/{id}/photo": "uploadPetPhoto", "GET /pets/{id}/photo": "getPetPhoto", "GET /me": "whoAmI",
		"PATCH /pets/{id}": "patchPet", "GET /pets/events": "petEvents",
	}
	n := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			n++
			key := strings.ToUpper(method) + " " + path
			if want[key] != op.OperationID {
				t.Errorf("%s: operationId %q, want %q", key, op.OperationID, want[key])
			}
			secured := len(op.Security) > 0
			if wantSecured := method != "get" || path == "/me"; secured != wantSecured {
				t.Errorf("%s: security %v", key, op.Security)
			}
		}
	}
	if n != len(want) {
		t.Errorf("%d operations documented, want %d", n, len(want))
	}
	// `petstore openapi` writes the document served, in each form; the
	// command indents its JSON, the service serves it compact.
	for _, form := range []struct {
		args []string
		path string
	}{
		{nil, "/openapi.yaml"}, {[]string{"json"}, "/openapi.json"},
		{[]string{"3.0"}, "/openapi-3.0.yaml"}, {[]string{"json", "3.0"}, "/openapi-3.0.json"},
	} {
		var out bytes.Buffer
		if err := app.Run(t.Context(), append([]string{"openapi"}, form.args...), noEnv, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		served := c.get(form.path)
		written := out.Bytes()
		if strings.HasSuffix(form.path, ".json") {
			var compact bytes.Buffer
			if err := json.Compact(&compact, written); err != nil {
				t.Fatal(err)
			}
			written, served.body = compact.Bytes(), bytes.TrimSpace(served.body)
		}
		if served.status != 200 || !bytes.Equal(written, served.body) {
			t.Errorf("`petstore openapi %s` writes a different document from the one served at %s (%d)",
				strings.Join(form.args, " "), form.path, served.status)
		}
	}
	if err := app.Run(t.Context(), []string{"openapi", "xml"}, noEnv, io.Discard, io.Discard); err == nil {
		t.Error("unknown format accepted")
	}
	oasvalidate.Validate(t, map[string][]byte{"petstore.json": j.body, "petstore.yaml": y.body})
}

// TestDocsPageInBrowser opens the service's docs page in headless Chromium
// and checks that it shows every operation.
func TestDocsPageInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	browsertest.Chromium(t)
	c := startService(t, testDBs[0])
	dom := browsertest.DOM(t, c.base+"/docs", 20*time.Second)
	blocks := regexp.MustCompile(`class="opblock opblock-(get|post|put|patch|delete)[^"]*"`).FindAllString(dom, -1)
	if len(blocks) != 10 {
		t.Errorf("the page shows %d operations, want 10", len(blocks))
	}
	for _, want := range []string{"Pet store", "List pets", "Upload a pet's photo", `data-path="/pets/{id}/photo"`, "Authorize"} {
		if !strings.Contains(dom, want) && !strings.Contains(dom, strings.ReplaceAll(want, "'", "&#39;")) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("DOM (first 3000 bytes):\n%.3000s", dom)
	}
}

func TestBrowsable(t *testing.T) {
	for in, want := range map[string]string{"[::]:8080": "localhost:8080", "0.0.0.0:80": "localhost:80", "127.0.0.1:9": "127.0.0.1:9"} {
		a, _ := net.ResolveTCPAddr("tcp", in)
		if got := browsable(a); got != want {
			t.Errorf("browsable(%s) = %s, want %s", in, got, want)
		}
	}
}
