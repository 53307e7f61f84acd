package adopt_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/vane-http/vane/conformance/adopt"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/vanetest"
)

// app starts host h with the notes API and the tenants API mounted, each
// through vanetest's Handler, so that every answer of theirs is checked
// against their documents, reported to t.
func app(t *testing.T, h host) *httptest.Server {
	r, _ := adopt.NewAPI(adopt.Prefix)
	api := vanetest.New(t, r, vanetest.ExplicitStatuses()).Handler()
	tenants := vanetest.New(t, adopt.NewTenantAPI(), vanetest.ExplicitStatuses()).Handler()
	srv := httptest.NewServer(h.new(api, tenants))
	t.Cleanup(srv.Close)
	return srv
}

// send sends a request to srv as user (none when empty) and returns the
// response with its body read.
func send(t *testing.T, srv *httptest.Server, method, path, user, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if user != "" {
		req.Header.Set("Authorization", "Bearer "+user)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// document is what the tests read of an OpenAPI document.
type document struct {
	Servers []struct {
		URL string `json:"url"`
	} `json:"servers"`
	Paths map[string]map[string]struct {
		OperationID string                     `json:"operationId"`
		Responses   map[string]json.RawMessage `json:"responses"`
	} `json:"paths"`
}

// Every operation of the document that vane serves under the prefix is
// reached, through the host and its middleware, at the path the document
// states.
func TestDocumentPathsReachTheOperations(t *testing.T) {
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) {
			srv := app(t, h)
			res, body := send(t, srv, "GET", adopt.Prefix+"/openapi.json", "", "")
			if res.StatusCode != http.StatusOK {
				t.Fatalf("GET %s/openapi.json: %d %s", adopt.Prefix, res.StatusCode, body)
			}
			var doc document
			if err := json.Unmarshal([]byte(body), &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Servers) != 0 {
				t.Errorf("servers %v: the paths carry the prefix, so the document needs none", doc.Servers)
			}
			var ids []string
			for path, item := range doc.Paths {
				if !strings.HasPrefix(path, adopt.Prefix+"/") {
					t.Errorf("path %s is not under %s", path, adopt.Prefix)
				}
				for method, op := range item {
					ids = append(ids, op.OperationID)
					if _, ok := op.Responses["401"]; !ok {
						t.Errorf("%s does not document the host's 401", op.OperationID)
					}
					body := ""
					if method == "post" {
						body = `{"text":"hello"}`
					}
					res, got := send(t, srv, strings.ToUpper(method), strings.ReplaceAll(path, "{id}", "7"), "ann", body)
					if res.StatusCode/100 != 2 || res.Header.Get("X-Operation") != op.OperationID || res.Header.Get("X-Served-By") != h.name {
						t.Errorf("%s %s: %d, X-Operation %q, X-Served-By %q: %s", method, path, res.StatusCode,
							res.Header.Get("X-Operation"), res.Header.Get("X-Served-By"), got)
					}
					if !strings.Contains(got, `"ann"`) {
						t.Errorf("%s %s: the user the host authenticated did not reach the handler: %s", method, path, got)
					}
				}
			}
			slices.Sort(ids)
			if strings.Join(ids, " ") != "createNote getMe getNote" {
				t.Errorf("operations %v", ids)
			}
			if res, body := send(t, srv, "GET", adopt.Prefix+"/docs", "", ""); res.StatusCode != http.StatusOK || !strings.Contains(body, "<html") {
				t.Errorf("the docs page: %d", res.StatusCode)
			}
		})
	}
}

// The host's middleware answers before vane; its own routes stay its own;
// what vane derives from the path (redirects, its 404) is under the
// prefix.
func TestHostAndPaths(t *testing.T) {
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) {
			srv := app(t, h)
			res, body := send(t, srv, "GET", adopt.Prefix+"/notes/7", "bad", "")
			if res.StatusCode != http.StatusUnauthorized || res.Header.Get("X-Served-By") != h.name || res.Header.Get("Content-Type") != problem.ContentType {
				t.Errorf("a bad token: %d %v %s", res.StatusCode, res.Header, body)
			}
			if res, body := send(t, srv, "GET", "/", "", ""); res.StatusCode != http.StatusOK || body != h.name+" home" {
				t.Errorf("the host's own route: %d %q", res.StatusCode, body)
			}
			res, body = send(t, srv, "GET", adopt.Prefix+"/notes/7/", "", "")
			if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != adopt.Prefix+"/notes/7" {
				t.Errorf("a trailing slash: %d, Location %q", res.StatusCode, res.Header.Get("Location"))
			}
			res, body = send(t, srv, "GET", adopt.Prefix+"/nothing/here", "", "")
			if res.StatusCode != http.StatusNotFound || res.Header.Get("Content-Type") != problem.ContentType {
				t.Errorf("no such route: %d %s %s", res.StatusCode, res.Header.Get("Content-Type"), body)
			}
			res, body = send(t, srv, "GET", adopt.Prefix+"/notes/5000", "", "")
			if res.StatusCode != http.StatusNotFound || !strings.Contains(body, "no note 5000") {
				t.Errorf("the operation's 404: %d %s", res.StatusCode, body)
			}
			res, body = send(t, srv, "POST", adopt.Prefix+"/notes", "ann", `{"text":""}`)
			if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "body.text") {
				t.Errorf("an invalid body: %d %s", res.StatusCode, body)
			}
		})
	}
}

// No spelling of a path reaches vane around the host's middleware: with a
// refused token, nothing is answered 2xx, and every answer went through
// the host's middleware.
func TestNoWayAroundTheHost(t *testing.T) {
	paths := []string{
		"/api/notes/7", "/api//notes/7", "/api/./notes/7", "/api/x/../notes/7", "/api/notes/7/", "/api/notes/%37",
		"/api%2Fnotes/7", "/API/notes/7", "/api/openapi.json", "/api/docs", "/api/me",
		"/tenants/acme/api/notes/7", "/tenants/acme/api/raw/1", "/tenants/acme/../../api/notes/7", "/tenants//api/notes/7",
	}
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) {
			srv := app(t, h)
			for _, method := range []string{"GET", "HEAD", "POST", "OPTIONS"} {
				for _, path := range paths {
					req, err := http.NewRequest(method, srv.URL+path, nil)
					if err != nil {
						t.Fatal(err)
					}
					req.URL.Opaque = path // sent as written, not cleaned by the client
					req.Header.Set("Authorization", "Bearer bad")
					res, err := http.DefaultTransport.RoundTrip(req)
					if err != nil {
						t.Fatal(err)
					}
					res.Body.Close()
					if res.StatusCode/100 == 2 || res.Header.Get("X-Operation") != "" {
						t.Errorf("%s %s with a refused token: %d, X-Operation %q", method, path, res.StatusCode, res.Header.Get("X-Operation"))
					}
				}
			}
		})
	}
}

// A parameter of the prefix is a path parameter of vane's operations and
// routes: typed inputs bind it and vane.Param reads it.
func TestParameterInThePrefix(t *testing.T) {
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) {
			srv := app(t, h)
			res, body := send(t, srv, "GET", "/tenants/acme/api/notes/7", "bob", "")
			if res.StatusCode != http.StatusOK || body != `{"tenant":"acme","id":7,"author":"bob"}` {
				t.Errorf("typed: %d %s", res.StatusCode, body)
			}
			if res, body := send(t, srv, "GET", "/tenants/acme/api/raw/x%20y", "bob", ""); res.StatusCode != http.StatusOK || body != "acme/x y/bob" {
				t.Errorf("vane.Param: %d %q", res.StatusCode, body)
			}
			res, body = send(t, srv, "GET", "/tenants/ACME/api/notes/7", "bob", "")
			if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "path.tenant") {
				t.Errorf("a tenant its pattern refuses: %d %s", res.StatusCode, body)
			}
		})
	}
}
