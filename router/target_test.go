package router

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func targetRouter() *Router {
	r := New()
	for _, p := range []string{"/pets", "/pets/{id}", "/files/{path...}"} {
		r.Get(p, echoHandler(p))
		r.Post(p, echoHandler(p))
	}
	r.Handle("CONNECT", "/tunnel", echoHandler("/tunnel"))
	return r
}

// Request targets that RFC 9112 section 3.2 does not allow are a 400
// problem before routing, whatever route they would reach: the asterisk
// form for anything but OPTIONS, a fragment anywhere, an absolute form
// whose scheme is not http or https, or whose authority is empty or
// carries userinfo. OPTIONS * still gets the server's methods, an http or
// https absolute form is routed on its path, and CONNECT's target is left
// alone.
func TestRequestTargets(t *testing.T) {
	r := targetRouter()
	refused := []struct{ method, target, detail string }{
		{"GET", "*", "asterisk"},
		{"HEAD", "*", "asterisk"},
		{"POST", "*", "asterisk"},
		{"DELETE", "*", "asterisk"},
		{"GET", "/pets/1#x", "fragment"},
		{"GET", "/pets#", "fragment"},
		{"GET", "/pets?a=1#x", "fragment"},
		{"GET", "/pets/1?#", "fragment"},
		{"GET", "/pets/a%2Fb#x", "fragment"},
		{"GET", "/files/a/b#c", "fragment"},
		{"GET", "/nowhere#x", "fragment"},
		{"GET", "http://h/pets/1#x", "fragment"},
		{"GET", "ftp://h/pets/1", "neither a path"},
		{"GET", "FTP://h/pets", "neither a path"},
		{"POST", "file:///pets", "neither a path"},
		{"GET", "mailto:x", "neither a path"},
		{"GET", "example.com:80", "neither a path"},
		{"GET", "http:/pets", "neither a path"},
		{"GET", "httpx://h/pets", "neither a path"},
		{"GET", "http:///pets/1", "no host"},
		{"GET", "http://user@h/pets/1", "userinfo"},
		{"GET", "https://u:p@h/pets", "userinfo"},
	}
	for _, c := range refused {
		w := do(r, c.method, c.target)
		if w.Code != http.StatusBadRequest || w.Header().Get("Content-Type") != "application/problem+json" ||
			w.Header().Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(w.Body.String(), c.detail) ||
			w.Header().Get("Allow") != "" {
			t.Errorf("%s %s: %d %v %s", c.method, c.target, w.Code, w.Header(), w.Body)
		}
	}
	allowed := []struct {
		method, target string
		code           int
		body           string
	}{
		{"GET", "/pets/1", 200, "/pets/{id} id=1"},
		{"GET", "/pets?a=1", 200, "/pets"},
		{"GET", "/pets/%23", 200, "/pets/{id} id=#"}, // an escaped '#' is data
		{"GET", "http://h/pets/1", 200, "/pets/{id} id=1"},
		{"GET", "HTTPS://h:8443/pets/7?x=1", 200, "/pets/{id} id=7"},
		{"POST", "https://h/files/a/b", 200, "/files/{path...} path=a/b"},
		{"GET", "http://h?x=1", 404, ""}, // an empty path: no route, but a valid target
		{"OPTIONS", "*", 204, ""},
		{"CONNECT", "example.com:443", 404, ""},
	}
	for _, c := range allowed {
		w := do(r, c.method, c.target)
		if w.Code != c.code || c.body != "" && w.Body.String() != c.body {
			t.Errorf("%s %s: %d %v %s, want %d %s", c.method, c.target, w.Code, w.Header(), w.Body, c.code, c.body)
		}
	}
	if allow := do(r, "OPTIONS", "*").Header().Get("Allow"); !strings.Contains(allow, "GET") || !strings.Contains(allow, "POST") {
		t.Errorf("OPTIONS *: Allow %q", allow)
	}

	// A request made in process has no RequestURI: nothing to check.
	req := httptest.NewRequest("GET", "/pets/1", nil)
	req.RequestURI = ""
	req.URL.Path = "/pets/1#x"
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != 200 {
		t.Errorf("in-process request: %d %s", w.Code, w.Body)
	}
}

// The targets reach the router as a client sends them over a connection
// (net/http's server parses the request line and passes them on), and are
// refused there; net/http itself answers OPTIONS * unless told not to.
func TestRequestTargetsOverTheWire(t *testing.T) {
	srv := httptest.NewUnstartedServer(targetRouter())
	srv.Config.DisableGeneralOptionsHandler = true
	srv.Start()
	defer srv.Close()
	for _, c := range []struct {
		line string
		code int
	}{
		{"GET * HTTP/1.1", 400},
		{"GET /pets/1#x HTTP/1.1", 400},
		{"GET /pets?a#b HTTP/1.1", 400},
		{"GET ftp://h/pets/1 HTTP/1.1", 400},
		{"GET http://h/pets/1 HTTP/1.1", 200},
		{"OPTIONS * HTTP/1.1", 204},
	} {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		// A generous bound on a loopback exchange: only a hang trips it.
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		fmt.Fprintf(conn, "%s\r\nHost: h\r\nConnection: close\r\n\r\n", c.line)
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		if res.StatusCode != c.code {
			t.Errorf("%s: %d, want %d", c.line, res.StatusCode, c.code)
		}
		res.Body.Close()
		conn.Close()
	}
}

// checkTarget and the router agree on every target net/http passes on:
// a target is refused exactly when it is not OPTIONS' asterisk, holds a
// '#', or is neither origin form nor http(s) absolute form with a host
// and no userinfo; a refused request never reaches a handler and gets a
// 400, an accepted one is routed on its path as before.
func FuzzRequestTarget(f *testing.F) {
	for _, s := range []string{"*", "/pets/1#x", "/pets?a#b", "ftp://h/x", "http://h/pets/1", "HTTP://u@h/", "http:///x",
		"/pets/%23", "mailto:x", "https://h?x#", "//h/x", "/pets/../x"} {
		f.Add("GET", s)
		f.Add("OPTIONS", s)
	}
	r := targetRouter()
	f.Fuzz(func(t *testing.T, method, target string) {
		if methodIndex(method) < 0 {
			return
		}
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(method + " " + target + " HTTP/1.1\r\nHost: h\r\n\r\n")))
		if err != nil {
			return // net/http refuses it before any handler
		}
		want := expectRefused(method, req.RequestURI)
		reached := false
		inner := New()
		inner.HandleFunc(method, "/{rest...}", func(http.ResponseWriter, *http.Request) { reached = true })
		w := httptest.NewRecorder()
		inner.ServeHTTP(w, req)
		if want {
			if w.Code != 400 || reached {
				t.Fatalf("%s %q: %d, reached %v; want a 400 before routing", method, req.RequestURI, w.Code, reached)
			}
		} else if w.Code == 400 {
			t.Fatalf("%s %q: 400 %s", method, req.RequestURI, w.Body)
		}
		w = httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if want != (w.Code == 400) {
			t.Fatalf("%s %q: %d, refused %v", method, req.RequestURI, w.Code, want)
		}
	})
}

// expectRefused is RFC 9112 section 3.2's rule, written plainly.
func expectRefused(method, t string) bool {
	if method == "CONNECT" {
		return false
	}
	if t == "*" {
		return method != "OPTIONS"
	}
	if strings.Contains(t, "#") {
		return true
	}
	if strings.HasPrefix(t, "/") {
		return false
	}
	lower := strings.ToLower(t)
	var rest string
	switch {
	case strings.HasPrefix(lower, "http://"):
		rest = t[7:]
	case strings.HasPrefix(lower, "https://"):
		rest = t[8:]
	default:
		return true
	}
	host, _, _ := strings.Cut(rest, "/")
	host, _, _ = strings.Cut(host, "?")
	return host == "" || strings.Contains(host, "@")
}
