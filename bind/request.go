package bind

import (
	"fmt"
	"net/http"
	"net/netip"
	"reflect"
	"unsafe"

	"github.com/vane-http/vane/middleware"
	"github.com/vane-http/vane/problem"
)

// Request gives a typed handler the request its input was bound from. An
// input field of this type, with no tag, is set by Bind to the request;
// it is no parameter and is not documented. The binder writes one pointer
// into it, so it costs nothing to operations without one, and nothing
// more than that to those with one.
//
//	type GetMe struct {
//	    Req  bind.Request // vane.Request
//	    Lang string `header:"Accept-Language"`
//	}
//
// The zero Request (outside a bound input) has a nil HTTP and answers the
// zero value to everything.
type Request struct{ r *http.Request }

// HTTP returns the request, to read what no tag binds: its method, URL,
// TLS state, the raw headers or body (when the input has no Body field).
// The handler must not use it after returning.
func (q Request) HTTP() *http.Request { return q.r }

// ClientIP returns the address of the client, as middleware.ClientIP
// finds it: the address middleware.RealIP found when it runs in front of
// the operation (believing forwarding headers only from the proxies it
// is told to trust), otherwise the connection's peer. A forwarding header
// (X-Forwarded-For, Forwarded) is never believed by itself. It is the zero
// Addr when the peer is not an IP address (a unix socket).
func (q Request) ClientIP() netip.Addr {
	if q.r == nil {
		return netip.Addr{}
	}
	return middleware.ClientIP(q.r)
}

// Host returns the host the request was sent to: the Host header (or the
// request line's authority), port included when it was given. A
// forwarded host header (X-Forwarded-Host) is not believed.
func (q Request) Host() string {
	if q.r == nil {
		return ""
	}
	return q.r.Host
}

// TLS reports whether the request came over TLS to this server. A
// forwarded scheme (X-Forwarded-Proto) is not believed.
func (q Request) TLS() bool { return q.r != nil && q.r.TLS != nil }

// Resolver is implemented by an input type (on its pointer) or by the type
// of one of its top-level fields (on the pointer to the field, or by a
// pointer field's own type when it is not nil) that computes or checks
// values from the request once the parameters and body are bound.
//
// Resolve runs after binding, also when some values failed to bind (they
// are then at their zero value), and before the tag rules and the Validate
// method are checked. The rules check what the request sent: a parameter
// the request did not send is not checked even when Resolve sets it. The
// field errors it returns, with the locations it gives them, are reported
// with the binding and validation failures in the one 422 problem, and
// the handler is not called. The input's own Resolve runs after its
// fields'. It must not keep req.
type Resolver interface {
	Resolve(req *http.Request) []problem.FieldError
}

var (
	requestType    = reflect.TypeFor[Request]()
	requestPtrType = reflect.TypeFor[*Request]()
	resolverType   = reflect.TypeFor[Resolver]()
)

// resolver is one field whose type is a Resolver.
type resolver struct {
	offset uintptr
	typ    reflect.Type // the field's type
	ptr    bool         // the field is a pointer: resolve what it points to, if anything
}

// compileSpecial records the Request and Resolver fields of f; it reports
// whether f is a Request field, which is nothing else.
func (b *Binder) compileSpecial(f reflect.StructField, in string) (bool, error) {
	switch f.Type {
	case requestType:
		if in != "" {
			return false, fmt.Errorf("a %v field is set to the request and takes no %s tag", f.Type, in)
		}
		b.requests = append(b.requests, f.Offset)
		return true, nil
	case requestPtrType:
		return false, fmt.Errorf("a request field is a %v, not a pointer", requestType)
	}
	switch {
	case reflect.PointerTo(f.Type).Implements(resolverType):
		b.resolvers = append(b.resolvers, resolver{offset: f.Offset, typ: f.Type})
	case f.Type.Kind() == reflect.Pointer && f.Type.Implements(resolverType):
		b.resolvers = append(b.resolvers, resolver{offset: f.Offset, typ: f.Type, ptr: true})
	}
	return false, nil
}

// Resolves reports whether the input has resolvers (its own or its
// fields'): whether Resolve has anything to do.
func (b *Binder) Resolves() bool { return b.resolveSelf || len(b.resolvers) > 0 }

// Resolve runs the resolvers of *ptr (a pointer to the binder's input
// type), its fields' in field order and then its own, and returns their
// field errors.
func (b *Binder) Resolve(req *http.Request, ptr any) []problem.FieldError {
	base := b.base(ptr, "Resolve")
	var errs []problem.FieldError
	for _, r := range b.resolvers {
		p := unsafe.Add(base, r.offset)
		var v any
		if r.ptr {
			if *(*unsafe.Pointer)(p) == nil {
				continue
			}
			v = reflect.NewAt(r.typ, p).Elem().Interface()
		} else {
			v = reflect.NewAt(r.typ, p).Interface()
		}
		errs = append(errs, v.(Resolver).Resolve(req)...)
	}
	if b.resolveSelf {
		errs = append(errs, ptr.(Resolver).Resolve(req)...)
	}
	return errs
}
