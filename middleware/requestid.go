package middleware

import (
	"context"
	"crypto/rand"
	"net/http"
)

// RequestIDHeader is the header [RequestID] reads an ID from and sends it
// back in.
const RequestIDHeader = "X-Request-Id"

// MaxRequestIDLen is the longest ID [RequestID] accepts from a client.
const MaxRequestIDLen = 128

type requestIDKey struct{}

// RequestID is middleware that gives every request an ID, so that a
// request's log records, its response and the logs of the services it calls
// can be matched:
//
//   - the value of the request's X-Request-Id header when it is
//     well-formed: 1 to [MaxRequestIDLen] bytes of ASCII letters, digits
//     and - _ . ~ : + / = @ (a UUID, a hex or base64 string, a trace ID),
//     so that an ID set by a proxy or a calling service is kept;
//   - otherwise a new one: 26 random base32 characters (128 bits from
//     crypto/rand), so that IDs are unique across replicas without
//     coordination.
//
// The ID is set on the response's X-Request-Id header before the handler
// runs, and is reachable from the request's context with [RequestIDFrom].
// An ill-formed header (too long, or with spaces, quotes or control
// characters that could forge log lines) is replaced, never echoed.
func RequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(RequestIDHeader)
		if !validRequestID(id) {
			id = rand.Text()
		}
		w.Header().Set(RequestIDHeader, id)
		serveDerived(next, w, r, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}

// RequestIDFrom returns the ID [RequestID] gave the request whose context
// is ctx, or "" when RequestID did not run.
func RequestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// validRequestID reports whether id is an ID RequestID keeps.
func validRequestID(id string) bool {
	if len(id) == 0 || len(id) > MaxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !requestIDByte[id[i]] {
			return false
		}
	}
	return true
}

// requestIDByte holds the bytes an accepted ID may contain.
var requestIDByte = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "-_.~:+/=@" {
		t[c] = true
	}
	return t
}()
