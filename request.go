package vane

import "github.com/vane-http/vane/bind"

// Request gives a typed handler the request its input was bound from,
// without changing the handler's shape: an input field of this type, with
// no tag, is set to the request (see bind.Request: HTTP, ClientIP, Host,
// TLS). Operations whose input has no such field pay nothing for it.
//
//	type GetMe struct {
//	    Req vane.Request
//	}
//	func getMe(ctx context.Context, in *GetMe) (*Me, error) {
//	    ip := in.Req.ClientIP() // middleware.RealIP's rules
//	    …
//	}
type Request = bind.Request

// Resolver is implemented by an input type, or the type of one of its
// top-level fields, that computes or checks values from the request after
// binding; its field errors join the binding and validation failures in
// the one 422 problem (see bind.Resolver).
type Resolver = bind.Resolver
