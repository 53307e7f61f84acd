package middleware_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/vane-http/vane/middleware"
)

// clientOf serves one request through RealIP(cfg) and returns the address
// ClientIP reports in the handler.
func clientOf(t testing.TB, cfg middleware.RealIPConfig, remote string, header http.Header) netip.Addr {
	t.Helper()
	var got netip.Addr
	called := false
	h := middleware.RealIP(cfg)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		called = true
		got = middleware.ClientIP(r)
		if r.RemoteAddr != remote {
			t.Errorf("RemoteAddr changed to %q", r.RemoteAddr)
		}
	}))
	req := httptest.NewRequest("GET", "/", nil)
	req.RemoteAddr = remote
	req.Header = header
	h.ServeHTTP(httptest.NewRecorder(), req)
	if !called {
		t.Fatal("handler not called")
	}
	return got
}

func prefixes(t testing.TB, s string) []netip.Prefix {
	t.Helper()
	p, err := middleware.ParseTrustedProxies(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRealIP(t *testing.T) {
	const proxy = "10.0.0.1:4321"
	xff := func(v ...string) http.Header { return http.Header{"X-Forwarded-For": v} }
	fwd := func(v ...string) http.Header { return http.Header{"Forwarded": v} }
	real := func(v ...string) http.Header { return http.Header{"X-Real-Ip": v} }
	tests := []struct {
		name    string
		trusted string
		header  string // RealIPConfig.Header
		remote  string
		h       http.Header
		want    string
	}{
		// Nothing is believed by default.
		{"no proxies trusted: XFF ignored", "", "", proxy, xff("203.0.113.7"), "10.0.0.1"},
		{"no proxies trusted: Forwarded ignored", "", "Forwarded", proxy, fwd("for=203.0.113.7"), "10.0.0.1"},
		{"untrusted peer: XFF ignored", "192.168.0.0/16", "", "198.51.100.9:80", xff("203.0.113.7"), "198.51.100.9"},
		{"trusted peer, no header", "10.0.0.0/8", "", proxy, http.Header{}, "10.0.0.1"},

		// X-Forwarded-For, read from the right.
		{"one hop", "10.0.0.0/8", "", proxy, xff("203.0.113.7"), "203.0.113.7"},
		{"spoofed entries left of the proxy's", "10.0.0.0/8", "", proxy, xff("6.6.6.6, 203.0.113.7"), "203.0.113.7"},
		{"a chain of trusted proxies", "10.0.0.0/8", "", proxy, xff("203.0.113.7, 10.0.0.2, 10.0.0.3"), "203.0.113.7"},
		{"every hop trusted: the leftmost", "10.0.0.0/8", "", proxy, xff("10.0.0.3,10.0.0.2"), "10.0.0.3"},
		{"garbage at the right: the last trusted hop", "10.0.0.0/8", "", proxy, xff("203.0.113.7, nonsense"), "10.0.0.1"},
		{"garbage past a trusted hop", "10.0.0.0/8", "", proxy, xff("203.0.113.7, unknown, 10.0.0.2"), "10.0.0.2"},
		{"garbage left of the client", "10.0.0.0/8", "", proxy, xff("nonsense, 203.0.113.7"), "203.0.113.7"},
		{"several header lines, in order", "10.0.0.0/8", "", proxy, xff("6.6.6.6", "203.0.113.7, 10.0.0.2"), "203.0.113.7"},
		{"empty entries", "10.0.0.0/8", "", proxy, xff(" , 203.0.113.7, ,"), "203.0.113.7"},
		{"IPv4 with a port", "10.0.0.0/8", "", proxy, xff("203.0.113.7:5555"), "203.0.113.7"},
		{"IPv6", "10.0.0.0/8", "", proxy, xff("2001:db8::7"), "2001:db8::7"},
		{"IPv6 in brackets with a port", "10.0.0.0/8", "", proxy, xff("[2001:db8::7]:443"), "2001:db8::7"},
		{"IPv4-mapped IPv6", "10.0.0.0/8", "", proxy, xff("::ffff:203.0.113.7"), "203.0.113.7"},
		{"a zone is not an address", "10.0.0.0/8", "", proxy, xff("fe80::1%eth0"), "10.0.0.1"},
		{"a bad port", "10.0.0.0/8", "", proxy, xff("203.0.113.7:http"), "10.0.0.1"},
		{"IPv6 peer", "::1/128", "", "[::1]:8080", xff("2001:db8::7"), "2001:db8::7"},
		{"IPv4-mapped peer matches an IPv4 prefix", "10.0.0.0/8", "", "[::ffff:10.0.0.1]:80", xff("203.0.113.7"), "203.0.113.7"},
		{"a single trusted address", "10.0.0.1", "", proxy, xff("203.0.113.7"), "203.0.113.7"},

		// Forwarded (RFC 7239).
		{"Forwarded", "10.0.0.0/8", "Forwarded", proxy, fwd("for=192.0.2.60;proto=http;by=203.0.113.43"), "192.0.2.60"},
		{"Forwarded: case of names", "10.0.0.0/8", "forwarded", proxy, fwd("For=192.0.2.60"), "192.0.2.60"},
		{"Forwarded: quoted IPv6 with a port", "10.0.0.0/8", "Forwarded", proxy, fwd(`for="[2001:db8:cafe::17]:4711"`), "2001:db8:cafe::17"},
		{"Forwarded: a list, from the right", "10.0.0.0/8", "Forwarded", proxy, fwd("for=6.6.6.6, for=192.0.2.60"), "192.0.2.60"},
		{"Forwarded: trusted hops passed over", "10.0.0.0/8", "Forwarded", proxy, fwd("for=192.0.2.60", "for=10.0.0.9;proto=https"), "192.0.2.60"},
		{"Forwarded: unknown ends the walk", "10.0.0.0/8", "Forwarded", proxy, fwd("for=192.0.2.60, for=unknown"), "10.0.0.1"},
		{"Forwarded: obfuscated ends the walk", "10.0.0.0/8", "Forwarded", proxy, fwd("for=192.0.2.60, for=_hidden"), "10.0.0.1"},
		{"Forwarded: an element without for=", "10.0.0.0/8", "Forwarded", proxy, fwd("for=192.0.2.60, proto=https"), "10.0.0.1"},
		{"Forwarded: comma inside quotes", "10.0.0.0/8", "Forwarded", proxy, fwd(`for="_a,b", for=192.0.2.60`), "192.0.2.60"},
		{"Forwarded: a forged for= inside quotes", "10.0.0.0/8", "Forwarded", proxy, fwd(`for=192.0.2.60;ext="x, for=6.6.6.6"`), "192.0.2.60"},
		{"Forwarded: semicolon inside quotes", "10.0.0.0/8", "Forwarded", proxy, fwd(`ext="a;for=6.6.6.6";for=192.0.2.60`), "192.0.2.60"},
		{"Forwarded: unterminated quote", "10.0.0.0/8", "Forwarded", proxy, fwd(`for=192.0.2.60, for="6.6.6.6`), "10.0.0.1"},
		{"Forwarded: escaped quote inside quotes", "10.0.0.0/8", "Forwarded", proxy, fwd(`ext="a\",for=6.6.6.6";for=192.0.2.60`), "192.0.2.60"},

		// A single-address header.
		{"X-Real-Ip", "10.0.0.0/8", "X-Real-Ip", proxy, real("203.0.113.7"), "203.0.113.7"},
		{"X-Real-Ip: config name in any case", "10.0.0.0/8", "x-real-ip", proxy, real("203.0.113.7"), "203.0.113.7"},
		{"X-Real-Ip from an untrusted peer", "10.0.0.0/8", "X-Real-Ip", "198.51.100.9:80", real("203.0.113.7"), "198.51.100.9"},
		{"X-Real-Ip: garbage", "10.0.0.0/8", "X-Real-Ip", proxy, real("nonsense"), "10.0.0.1"},
		{"X-Real-Ip: two lines", "10.0.0.0/8", "X-Real-Ip", proxy, real("6.6.6.6", "203.0.113.7"), "10.0.0.1"},
		{"X-Real-Ip: a list is no address", "10.0.0.0/8", "X-Real-Ip", proxy, real("6.6.6.6, 203.0.113.7"), "10.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := middleware.RealIPConfig{TrustedProxies: prefixes(t, tt.trusted), Header: tt.header}
			if got := clientOf(t, cfg, tt.remote, tt.h); got.String() != tt.want {
				t.Errorf("client %v, want %s", got, tt.want)
			}
		})
	}
}

func TestClientIPWithoutRealIP(t *testing.T) {
	req := httptest.NewRequest("GET", "/", nil)
	req.RemoteAddr = "[2001:db8::1]:5000"
	req.Header.Set("X-Forwarded-For", "6.6.6.6")
	if got := middleware.ClientIP(req); got.String() != "2001:db8::1" {
		t.Errorf("ClientIP = %v", got)
	}
	if got := middleware.ClientIPFrom(req.Context()); got.IsValid() {
		t.Errorf("ClientIPFrom without RealIP = %v", got)
	}
}

func TestRealIPWithRemoteAddrThatIsNoAddress(t *testing.T) {
	cfg := middleware.RealIPConfig{TrustedProxies: prefixes(t, "0.0.0.0/0")}
	if got := clientOf(t, cfg, "@unix-socket", http.Header{"X-Forwarded-For": {"203.0.113.7"}}); got.IsValid() {
		t.Errorf("client %v from a RemoteAddr that is no address", got)
	}
}

// A header of a megabyte is read in one walk: a quadratic one would take
// some 10^11 steps, hours, and end in the go test binary's own timeout
// rather than pass.
func TestRealIPLongHeadersAreLinear(t *testing.T) {
	cfg := func(h string) middleware.RealIPConfig {
		return middleware.RealIPConfig{TrustedProxies: prefixes(t, "0.0.0.0/0"), Header: h}
	}
	list := strings.Repeat("10.1.2.3, ", 100_000) + "10.1.2.4"
	if got := clientOf(t, cfg(""), "10.0.0.1:1", http.Header{"X-Forwarded-For": {list}}); got.String() != "10.1.2.3" {
		t.Errorf("X-Forwarded-For: %v", got)
	}
	elems := strings.Repeat(`for="10.1.2.3";x="a,b;c", `, 40_000) + "for=10.1.2.4"
	if got := clientOf(t, cfg("Forwarded"), "10.0.0.1:1", http.Header{"Forwarded": {elems}}); got.String() != "10.1.2.3" {
		t.Errorf("Forwarded: %v", got)
	}
}

func TestParseTrustedProxies(t *testing.T) {
	got, err := middleware.ParseTrustedProxies(" 10.0.0.0/8, 192.168.1.7 ,fd00::/8,::1,, 10.1.2.3/16")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "192.168.1.7/32", "fd00::/8", "::1/128", "10.1.0.0/16"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if p, err := middleware.ParseTrustedProxies(""); err != nil || len(p) != 0 {
		t.Errorf("empty: %v %v", p, err)
	}
	for _, bad := range []string{"10.0.0.0/33", "example.com", "10.0.0.1/8/8"} {
		if _, err := middleware.ParseTrustedProxies(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The client RealIP finds is always the peer when the peer is untrusted,
// and otherwise the peer or an address the header holds; no input panics.
func FuzzRealIP(f *testing.F) {
	f.Add("10.0.0.1:1", "X-Forwarded-For", "203.0.113.7, 10.0.0.2")
	f.Add("10.0.0.1:1", "Forwarded", `for="[2001:db8::1]:80";proto=https, for=unknown`)
	f.Add("[::1]:80", "X-Real-Ip", "::ffff:1.2.3.4")
	f.Add("10.0.0.1:1", "Forwarded", `for="a\"b,c";x=1,for=1.2.3.4`)
	f.Fuzz(func(t *testing.T, remote, header, value string) {
		cfg := middleware.RealIPConfig{TrustedProxies: prefixes(t, "10.0.0.0/8, ::1"), Header: header}
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = remote
		name := header
		if name == "" {
			name = "X-Forwarded-For"
		}
		req.Header = http.Header{http.CanonicalHeaderKey(name): {value}}
		var got netip.Addr
		middleware.RealIP(cfg)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got = middleware.ClientIP(r)
		})).ServeHTTP(httptest.NewRecorder(), req)

		peer := middleware.ClientIP(&http.Request{RemoteAddr: remote})
		if got == peer {
			return
		}
		if !peer.IsValid() || !(peer.Is4() && netip.MustParsePrefix("10.0.0.0/8").Contains(peer) || peer == netip.IPv6Loopback()) {
			t.Fatalf("untrusted peer %v, yet client %v", peer, got)
		}
		if got.Zone() != "" || got.Is4In6() {
			t.Fatalf("client %v is not in plain form", got)
		}
		if s := got.String(); !strings.Contains(value, s) && !strings.Contains(strings.ToLower(value), s) {
			// The header may spell the address differently ("::ffff:1.2.3.4",
			// "0:0::1"): it must at least parse to it.
			if !headerHolds(value, got) {
				t.Fatalf("client %v is neither the peer %v nor in the header %q", got, peer, value)
			}
		}
	})
}

// headerHolds reports whether some run of address characters in v parses
// to a.
func headerHolds(v string, a netip.Addr) bool {
	isAddrByte := func(c rune) bool {
		return !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == ':' || c == '.')
	}
	for _, f := range strings.FieldsFunc(v, isAddrByte) {
		for i := range len(f) {
			for j := i + 1; j <= min(len(f), i+64); j++ { // no address is longer
				if b, err := netip.ParseAddr(f[i:j]); err == nil && b.Unmap() == a {
					return true
				}
			}
		}
	}
	return false
}

func ExampleRealIP() {
	// Behind a load balancer at 10.0.0.1 that appends to X-Forwarded-For.
	trusted, _ := middleware.ParseTrustedProxies("10.0.0.0/8")
	h := middleware.RealIP(middleware.RealIPConfig{TrustedProxies: trusted})(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Println("client", middleware.ClientIP(r), "peer", r.RemoteAddr)
		}))

	req := httptest.NewRequest("GET", "/", nil)
	req.RemoteAddr = "10.0.0.1:51234"
	req.Header.Set("X-Forwarded-For", "6.6.6.6, 203.0.113.7") // the client sent "6.6.6.6"
	h.ServeHTTP(httptest.NewRecorder(), req)
	// Output: client 203.0.113.7 peer 10.0.0.1:51234
}
