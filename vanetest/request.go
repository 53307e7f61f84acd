package vanetest

import (
	"net/http"
	"strings"
)

// A RequestOption adds a header or a cookie to the requests a test sends:
// to one call (Call's options) or to every request of an API (With).
type RequestOption struct {
	name, value string
	cookie      bool // name=value is a cookie, not a header
}

// Header sets the request header name to value, replacing the values it
// had (those the input gave it, for Call). Header("Host", h) sets the
// request's Host, as a client's Host header would.
//
//	vanetest.Call[GetMe, User](api, "getMe", &GetMe{}, vanetest.Header("Authorization", "Bearer "+token))
func Header(name, value string) RequestOption {
	return RequestOption{name: name, value: value}
}

// Cookie sends the cookie name=value, replacing a cookie of that name the
// request had (one the input gave it, for Call). Name and value are sent as
// they are, as a browser would send them, so a test can send a value that
// net/http's own client would reject.
func Cookie(name, value string) RequestOption {
	return RequestOption{name: name, value: value, cookie: true}
}

// With returns an API that sends opts with every request it makes (Do
// and its shorthands, and Call), beneath what each request says itself: a
// header or cookie that the request already has, from Do's header pairs,
// Call's input or Call's own options, is not replaced. The returned API
// shares a's test, router and checks; a is unchanged.
//
//	ann := api.With(vanetest.Header("Authorization", "Bearer ann-token"))
//	ann.Get("/me")                                    // as Ann
//	vanetest.Call[GetMe, User](ann, "getMe", &GetMe{}) // as Ann
func (a *API) With(opts ...RequestOption) *API {
	b := *a
	b.defaults = append(append([]RequestOption(nil), a.defaults...), opts...)
	return &b
}

// applyDefaults adds the API's options that req does not override.
func (a *API) applyDefaults(req *http.Request) {
	for _, o := range a.defaults {
		o.apply(req, true)
	}
}

// apply adds o to req. beneath: only when req has no header or cookie
// of o's name.
func (o RequestOption) apply(req *http.Request, beneath bool) {
	if !o.cookie {
		if strings.EqualFold(o.name, "Host") {
			req.Host = o.value
			return
		}
		if beneath && len(req.Header.Values(o.name)) > 0 {
			return
		}
		req.Header.Set(o.name, o.value)
		return
	}
	var kept []string
	for _, line := range req.Header.Values("Cookie") {
		for pair := range strings.SplitSeq(line, ";") {
			pair = strings.TrimSpace(pair)
			if pair == "" {
				continue
			}
			if name, _, _ := strings.Cut(pair, "="); name == o.name {
				if beneath {
					return
				}
				continue
			}
			kept = append(kept, pair)
		}
	}
	req.Header.Set("Cookie", strings.Join(append(kept, o.name+"="+o.value), "; "))
}
