package vane

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/vane-http/vane/middleware"
	"github.com/vane-http/vane/problem"
)

type whoAmI struct {
	Req  Request
	Lang string `header:"Accept-Language"`
}

type whoAmIOut struct {
	IP, Host, Method, Lang string
	TLS                    bool
}

func whoAmIHandler(_ context.Context, in *whoAmI) (*whoAmIOut, error) {
	return &whoAmIOut{IP: in.Req.ClientIP().String(), Host: in.Req.Host(), Method: in.Req.HTTP().Method, Lang: in.Lang, TLS: in.Req.TLS()}, nil
}

func TestRequestField(t *testing.T) {
	proxies, _ := middleware.ParseTrustedProxies("10.0.0.0/8")
	cases := []struct {
		name   string
		mw     []func(http.Handler) http.Handler
		remote string
		xff    string
		tls    bool
		want   string
	}{
		{"peer", nil, "192.0.2.7:1234", "", false, `"IP":"192.0.2.7","Host":"example.com","Method":"GET","Lang":"fr","TLS":false`},
		{"forwarded header not believed by default", nil, "192.0.2.7:1234", "203.0.113.9", false, `"IP":"192.0.2.7"`},
		{"RealIP in front, trusted proxy", []func(http.Handler) http.Handler{middleware.RealIP(middleware.RealIPConfig{TrustedProxies: proxies})}, "10.1.2.3:80", "203.0.113.9", false, `"IP":"203.0.113.9"`},
		{"RealIP in front, untrusted peer", []func(http.Handler) http.Handler{middleware.RealIP(middleware.RealIPConfig{TrustedProxies: proxies})}, "192.0.2.7:80", "203.0.113.9", false, `"IP":"192.0.2.7"`},
		{"TLS", nil, "192.0.2.7:1234", "", true, `"TLS":true`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := New()
			r.Use(c.mw...)
			Get(r, "/me", whoAmIHandler)
			req := httptest.NewRequest("GET", "http://example.com/me", nil)
			req.RemoteAddr = c.remote
			req.Header.Set("Accept-Language", "fr")
			if c.xff != "" {
				req.Header.Set("X-Forwarded-For", c.xff)
			}
			if c.tls {
				req.TLS = &tls.ConnectionState{}
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Code != 200 || !strings.Contains(w.Body.String(), c.want) {
				t.Errorf("%d %s, want %s", w.Code, w.Body, c.want)
			}
		})
	}
	d := New()
	Get(d, "/me", whoAmIHandler)
	if ps := d.Operations()[0].Parameters; len(ps) != 1 || ps[0].Name != "Accept-Language" {
		t.Errorf("a Request field is not a parameter: %+v", ps)
	}
	var zero Request
	if zero.HTTP() != nil || zero.ClientIP() != (netip.Addr{}) || zero.Host() != "" || zero.TLS() {
		t.Error("the zero Request is not empty")
	}
}

func TestRequestFieldAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	type plain struct {
		ID int64 `path:"id"`
	}
	type withReq struct {
		ID  int64 `path:"id"`
		Req Request
	}
	measure := func(register func(r *Router)) float64 {
		r := New()
		register(r)
		req := httptest.NewRequest("GET", "/x/7", nil)
		w := &benchWriter{h: http.Header{}}
		return testing.AllocsPerRun(200, func() { w.reset(); r.ServeHTTP(w, req) })
	}
	a := measure(func(r *Router) {
		Get(r, "/x/{id}", func(_ context.Context, in *plain) (*struct{}, error) { return nil, nil })
	})
	b := measure(func(r *Router) {
		Get(r, "/x/{id}", func(_ context.Context, in *withReq) (*struct{}, error) {
			if in.Req.HTTP() == nil {
				panic("no request")
			}
			return nil, nil
		})
	})
	if b > a {
		t.Errorf("a Request field costs %v allocations, without %v", b, a)
	}
}

// clientToken is a field type that resolves itself from the request.
type clientToken struct{ Value string }

func (c *clientToken) Resolve(req *http.Request) []problem.FieldError {
	c.Value = req.Header.Get("X-Token")
	if c.Value == "bad" {
		return []problem.FieldError{{Location: "header.X-Token", Message: "revoked", Value: c.Value}}
	}
	return nil
}

type resolved struct {
	Token clientToken
	Opt   *clientToken // nil: not resolved
	N     int          `query:"n" maximum:"10"`
	Sum   int          `query:"sum" maximum:"10"` // computed by Resolve
}

func (in *resolved) Resolve(req *http.Request) []problem.FieldError {
	in.Sum = in.N * 2
	if in.N == 3 {
		return []problem.FieldError{{Location: "query.n", Message: "not 3"}}
	}
	return nil
}

func TestResolvers(t *testing.T) {
	r := New()
	Get(r, "/r", func(_ context.Context, in *resolved) (*resolved, error) { return in, nil })
	for _, c := range []struct {
		name, target, token string
		status              int
		want                []string // in the body
	}{
		{"computed", "/r?n=2", "t1", 200, []string{`"Token":{"Value":"t1"}`, `"Sum":4`}},
		{"field resolver fails", "/r?n=2", "bad", 422, []string{`"location":"header.X-Token","message":"revoked"`}},
		{"input resolver fails", "/r?n=3", "", 422, []string{`"location":"query.n","message":"not 3"`}},
		{"with binding failures, one 422", "/r?n=x", "bad", 422, []string{`"location":"query.n"`, `"location":"header.X-Token"`}},
		{"with rule failures, one 422", "/r?n=11", "bad", 422, []string{`"location":"query.n","message":"expected`, `"location":"header.X-Token"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := serve(r, "GET", c.target, "", "X-Token", c.token)
			if w.Code != c.status {
				t.Errorf("%d %s", w.Code, w.Body)
			}
			for _, s := range c.want {
				if !strings.Contains(w.Body.String(), s) {
					t.Errorf("%s lacks %s", w.Body, s)
				}
			}
		})
	}
}

func TestRequestFieldRegistrationErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		reg  func(r *Router)
		want string
	}{
		{"pointer", func(r *Router) {
			Get(r, "/p", func(context.Context, *struct{ R *Request }) (*struct{}, error) { return nil, nil })
		}, "not a pointer"},
		{"tagged", func(r *Router) {
			Get(r, "/p", func(context.Context, *struct {
				R Request `header:"X"`
			}) (*struct{}, error) {
				return nil, nil
			})
		}, "takes no header tag"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if msg, _ := recover().(string); !strings.Contains(msg, c.want) {
					t.Errorf("panic %q, want %q", msg, c.want)
				}
			}()
			c.reg(New())
		})
	}
}

// bodyStamp resolves a Body from the request: on the pointer to a Body
// value, or by a *bodyStamp Body's own type.
type bodyStamp struct {
	Name string `json:"name"`
	Via  string `json:"via,omitempty"`
}

func (b *bodyStamp) Resolve(req *http.Request) []problem.FieldError {
	b.Via = req.Header.Get("Via")
	if b.Name == "" {
		return []problem.FieldError{{Location: "body.name", Message: "a name is needed"}}
	}
	return nil
}

func TestBodyResolvers(t *testing.T) {
	r := New()
	Post(r, "/value", func(_ context.Context, in *struct{ Body bodyStamp }) (*bodyStamp, error) { return &in.Body, nil })
	Post(r, "/pointer", func(_ context.Context, in *struct{ Body *bodyStamp }) (*bodyStamp, error) { return in.Body, nil })
	for _, path := range []string{"/value", "/pointer"} {
		t.Run(path, func(t *testing.T) {
			w := serve(r, "POST", path, `{"name":"a"}`, "Content-Type", "application/json", "Via", "1.1 proxy")
			if w.Code != 200 || w.Body.String() != `{"name":"a","via":"1.1 proxy"}` {
				t.Errorf("%d %s", w.Code, w.Body)
			}
			w = serve(r, "POST", path, `{}`, "Content-Type", "application/json")
			if w.Code != 422 || !strings.Contains(w.Body.String(), "a name is needed") {
				t.Errorf("%d %s", w.Code, w.Body)
			}
		})
	}
}
