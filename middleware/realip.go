package middleware

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// RealIPConfig says which peers [RealIP] believes.
type RealIPConfig struct {
	// TrustedProxies are the addresses of the proxies and load balancers
	// in front of the service. A forwarding header is read only when the
	// connection comes from one of them, and its entries are believed only
	// as far back as they were added by one of them. Empty (the default):
	// no header is believed, and the client is the connection's peer.
	TrustedProxies []netip.Prefix

	// Header is the forwarding header the trusted proxies set:
	//   - "X-Forwarded-For" (the default): a comma-separated list, each
	//     proxy appending the address it received the request from;
	//   - "Forwarded" (RFC 7239): the same list in for= parameters;
	//   - any other name (X-Real-Ip, CF-Connecting-IP, True-Client-IP): a
	//     single address that the trusted peer sets, replacing what the
	//     client sent.
	Header string
}

type clientIPKey struct{}

// RealIP returns middleware that finds the address of the client that sent
// each request, for logs, rate limits and access rules, and keeps it in the
// request's context for [ClientIP] and [ClientIPFrom].
//
// The client is the connection's peer unless the peer is one of
// cfg.TrustedProxies. Then, for a list header (X-Forwarded-For,
// Forwarded), the list is read from the right, the end the trusted proxy
// wrote: each entry that is itself a trusted proxy is passed over, and the
// first that is not is the client. An entry that is not an address
// ("unknown", an obfuscated name, garbage) ends the walk: the client is
// then the last trusted hop, since nothing to the left of it can be
// checked. When every entry is trusted, the leftmost is the client. For a
// single-address header, its value is the client when it parses.
//
// A client cannot choose the address RealIP finds by sending a forwarding
// header: with no trusted proxies it is ignored, and behind trusted proxies
// only the entries they appended are believed. Addresses are returned in
// their plain form (an IPv4-mapped IPv6 address as IPv4, no zone).
//
// req.RemoteAddr is left as it is: it stays the connection's peer.
func RealIP(cfg RealIPConfig) func(http.Handler) http.Handler {
	trusted := cfg.TrustedProxies
	header := http.CanonicalHeaderKey(cfg.Header)
	if header == "" {
		header = "X-Forwarded-For"
	}
	mw := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			client := clientAddr(r.RemoteAddr, r.Header, trusted, header)
			if !client.IsValid() {
				next.ServeHTTP(w, r) // a RemoteAddr that is no address (a test, a unix socket)
				return
			}
			serveDerived(next, w, r, r.WithContext(context.WithValue(r.Context(), clientIPKey{}, client)))
		})
	}
	describe(mw, realIPForm(trusted, header))
	return mw
}

// ClientIPFrom returns the client address [RealIP] found for the request
// whose context is ctx, or the zero netip.Addr when RealIP did not run.
func ClientIPFrom(ctx context.Context) netip.Addr {
	a, _ := ctx.Value(clientIPKey{}).(netip.Addr)
	return a
}

// ClientIP returns the address of the client that sent r: the one [RealIP]
// found, or else the connection's peer from r.RemoteAddr (the zero
// netip.Addr when that is not an address).
func ClientIP(r *http.Request) netip.Addr {
	if a := ClientIPFrom(r.Context()); a.IsValid() {
		return a
	}
	return peerAddr(r.RemoteAddr)
}

// ParseTrustedProxies parses a comma-separated list of CIDR prefixes and
// addresses ("10.0.0.0/8, 192.168.1.7, fd00::/8"), such as a command-line
// flag or an environment variable holds, into the prefixes of a
// [RealIPConfig]. An empty string is an empty list.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for field := range strings.SplitSeq(s, ",") {
		field = strings.TrimSpace(field)
		if field == "" {
			continue
		}
		if strings.Contains(field, "/") {
			p, err := netip.ParsePrefix(field)
			if err != nil {
				return nil, fmt.Errorf("trusted proxy %q: %w", field, err)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(field)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q: %w", field, err)
		}
		a = a.Unmap().WithZone("")
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// clientAddr applies RealIP's rules to a request from remoteAddr with
// header lines h.
func clientAddr(remoteAddr string, h http.Header, trusted []netip.Prefix, header string) netip.Addr {
	peer := peerAddr(remoteAddr)
	if !peer.IsValid() || !isTrusted(peer, trusted) {
		return peer
	}
	values := h[header]
	if len(values) == 0 {
		return peer
	}
	switch header {
	case "X-Forwarded-For":
		return walkXFF(peer, trusted, values)
	case "Forwarded":
		return walkForwarded(peer, trusted, values)
	}
	// A single-address header: the trusted peer set it. Several lines mean
	// a proxy appended instead of replacing; none is then believed.
	if len(values) != 1 {
		return peer
	}
	if a, ok := parseHostMaybePort(strings.TrimSpace(values[0])); ok {
		return a
	}
	return peer
}

// walkXFF reads an X-Forwarded-For list from the right, as RealIP
// describes: addresses separated by commas, over any number of header
// lines, an address possibly with a port ("[::1]:80", "192.0.2.1:80", as
// some proxies write). Each step shortens the list by the entry it reads,
// so the walk is linear in the header's length.
func walkXFF(peer netip.Addr, trusted []netip.Prefix, values []string) netip.Addr {
	client := peer // the last hop believed so far
	for i := len(values) - 1; i >= 0; i-- {
		s := values[i]
		for s != "" {
			last := s
			s = ""
			if j := strings.LastIndexByte(last, ','); j >= 0 {
				s, last = last[:j], last[j+1:]
			}
			last = strings.TrimSpace(last)
			if last == "" {
				continue
			}
			a, ok := parseHostMaybePort(last)
			if !ok {
				return client
			}
			client = a
			if !isTrusted(a, trusted) {
				return a
			}
		}
	}
	return client
}

// walkForwarded is walkXFF for the Forwarded header (RFC 7239): elements
// separated by commas, each of pairs separated by semicolons, of which
// for= gives the address, as a token or a quoted string holding "[IPv6]"
// and possibly a port. A quoted string may hold commas and semicolons, so
// the elements are found in one pass from the left, then read from the
// right.
func walkForwarded(peer netip.Addr, trusted []netip.Prefix, values []string) netip.Addr {
	var hops []forwardedHop
	for _, v := range values {
		var ok bool
		if hops, ok = appendForwarded(hops, v); !ok {
			// An unterminated quoted string: the element boundaries of this
			// line cannot be trusted. Its elements end the walk.
			hops = append(hops, forwardedHop{})
		}
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		if !hops[i].ok {
			return client
		}
		client = hops[i].addr
		if !isTrusted(client, trusted) {
			return client
		}
	}
	return client
}

// forwardedHop is the for= address of one Forwarded element; ok is false
// when the element has none that parses.
type forwardedHop struct {
	addr netip.Addr
	ok   bool
}

// appendForwarded appends the hops of one Forwarded header line to hops.
// It reports false when a quoted string is not terminated.
func appendForwarded(hops []forwardedHop, s string) ([]forwardedHop, bool) {
	start, inQuote := 0, false
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch c := s[i]; {
			case inQuote && c == '\\':
				i++ // a quoted pair
				continue
			case c == '"':
				inQuote = !inQuote
				continue
			case inQuote || c != ',':
				continue
			}
		}
		if inQuote {
			return hops, false
		}
		if elem := strings.TrimSpace(s[start:min(i, len(s))]); elem != "" {
			hops = append(hops, forwardedFor(elem))
		}
		start = i + 1
	}
	return hops, true
}

// forwardedFor returns the address of the for= pair of one element.
func forwardedFor(elem string) forwardedHop {
	for elem != "" {
		var pair string
		pair, elem = cutPair(elem)
		name, value, found := strings.Cut(strings.TrimSpace(pair), "=")
		if !found || !strings.EqualFold(strings.TrimSpace(name), "for") {
			continue
		}
		value = strings.TrimSpace(value)
		if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
			value = strings.ReplaceAll(value[1:len(value)-1], `\`, "")
		}
		a, ok := parseHostMaybePort(value)
		return forwardedHop{a, ok}
	}
	return forwardedHop{}
}

// cutPair splits the first pair off a Forwarded element, at a semicolon
// outside quotes.
func cutPair(s string) (pair, rest string) {
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inQuote && c == '\\':
			i++
		case c == '"':
			inQuote = !inQuote
		case !inQuote && c == ';':
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// parseHostMaybePort parses "192.0.2.1", "192.0.2.1:80", "2001:db8::1",
// "[2001:db8::1]" or "[2001:db8::1]:80" into a plain address.
func parseHostMaybePort(s string) (netip.Addr, bool) {
	if s == "" {
		return netip.Addr{}, false
	}
	if s[0] == '[' {
		end := strings.IndexByte(s, ']')
		if end < 0 || (end+1 < len(s) && !validPort(s[end+1:])) {
			return netip.Addr{}, false
		}
		s = s[1:end]
	} else if i := strings.IndexByte(s, ':'); i >= 0 && strings.Count(s, ":") == 1 {
		if !validPort(s[i:]) {
			return netip.Addr{}, false
		}
		s = s[:i]
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// validPort reports whether s is ":" and 1 to 5 digits.
func validPort(s string) bool {
	if len(s) < 2 || len(s) > 6 || s[0] != ':' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// peerAddr parses a RemoteAddr ("192.0.2.1:1234", "[::1]:80", or a bare
// address) into a plain address, or the zero Addr.
func peerAddr(remote string) netip.Addr {
	if ap, err := netip.ParseAddrPort(remote); err == nil {
		return ap.Addr().Unmap().WithZone("")
	}
	host := remote
	if h, _, err := net.SplitHostPort(remote); err == nil {
		host = h
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap().WithZone("")
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
