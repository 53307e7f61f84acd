package vane

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/vane-http/vane/middleware"
	"github.com/vane-http/vane/problem"
)

// caller is a reusable resolving part: the token's owner.
type caller struct{ Name string }

func (c *caller) Resolve(ctx context.Context, req *http.Request) []problem.FieldError {
	tok := req.Header.Get("X-Token")
	if tok == "" || tok == "bad" {
		return []problem.FieldError{{Location: "header.X-Token", Message: "unknown token", Value: tok}}
	}
	c.Name = "owner-of-" + tok
	return nil
}

// stamp is resolved through a pointer field, when it is set.
type stamp struct {
	Via string `json:"via,omitempty"`
}

func (s *stamp) Resolve(ctx context.Context, req *http.Request) []problem.FieldError {
	s.Via = req.Header.Get("Via")
	return nil
}

type withCaller struct {
	Who   caller
	Stamp *stamp
	N     int `query:"n" maximum:"10"`
	Body  *stamp
}

func (in *withCaller) Resolve(ctx context.Context, req *http.Request) []problem.FieldError {
	if in.N == 3 {
		return []problem.FieldError{{Location: "query.n", Message: "not 3"}}
	}
	return nil
}

func TestFieldResolvers(t *testing.T) {
	r := New()
	Post(r, "/x", func(_ context.Context, in *withCaller) (*struct{ Body []string }, error) {
		via := "none"
		if in.Body != nil {
			via = in.Body.Via
		}
		return &struct{ Body []string }{[]string{in.Who.Name, via, strings.Repeat("stamp", boolInt(in.Stamp != nil))}}, nil
	})
	for _, c := range []struct {
		name, target, token, body string
		status                    int
		want                      []string
		notWant                   string
	}{
		{"resolved", "/x?n=1", "t1", `{}`, 200, []string{`["owner-of-t1","1.1 p",""]`}, ""},
		{"nil pointer not resolved", "/x?n=1", "t1", ``, 200, []string{`["owner-of-t1","none",""]`}, ""},
		{"field fails", "/x?n=1", "bad", `{}`, 422, []string{`"location":"header.X-Token","message":"unknown token"`}, ""},
		{"field and input fail together", "/x?n=3", "bad", `{}`, 422, []string{`"location":"header.X-Token"`, `"location":"query.n","message":"not 3"`}, ""},
		{"after the tag rules", "/x?n=11", "bad", `{}`, 422, []string{`"location":"query.n","message":"expected`}, "X-Token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := serve(r, "POST", c.target, c.body, "X-Token", c.token, "Via", "1.1 p", "Content-Type", "application/json")
			if w.Code != c.status {
				t.Errorf("%d %s", w.Code, w.Body)
			}
			for _, s := range c.want {
				if !strings.Contains(w.Body.String(), s) {
					t.Errorf("%s lacks %s", w.Body, s)
				}
			}
			if c.notWant != "" && strings.Contains(w.Body.String(), c.notWant) {
				t.Errorf("%s has %s", w.Body, c.notWant)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The client address of a handler with an *http.Request field is
// middleware.ClientIP's: what middleware.RealIP found behind a trusted
// proxy, the peer otherwise; a forwarding header alone is never believed.
func TestClientIPFromTheRequestField(t *testing.T) {
	proxies, _ := middleware.ParseTrustedProxies("10.0.0.0/8")
	type in struct{ Req *http.Request }
	for _, c := range []struct {
		name, remote, want string
		realIP             bool
	}{
		{"no RealIP: the peer", "10.1.2.3:80", "10.1.2.3", false},
		{"RealIP, trusted proxy: the forwarded client", "10.1.2.3:80", "203.0.113.9", true},
		{"RealIP, untrusted peer: the peer", "192.0.2.7:80", "192.0.2.7", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := New()
			if c.realIP {
				r.Use(middleware.RealIP(middleware.RealIPConfig{TrustedProxies: proxies}))
			}
			var got netip.Addr
			var remote string
			Get(r, "/ip", func(_ context.Context, in *in) (*struct{}, error) {
				got, remote = middleware.ClientIP(in.Req), in.Req.RemoteAddr
				return nil, nil
			})
			req := httptest.NewRequest("GET", "/ip", nil)
			req.RemoteAddr = c.remote
			req.Header.Set("X-Forwarded-For", "203.0.113.9")
			r.ServeHTTP(httptest.NewRecorder(), req)
			if got.String() != c.want || remote != c.remote {
				t.Errorf("ClientIP %v, RemoteAddr %q; want %s, %q", got, remote, c.want, c.remote)
			}
		})
	}
}
