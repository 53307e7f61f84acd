package vane

import (
	"net/http"
	"reflect"

	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/respond"
)

// Version is a resource's current version, for preconditions: its entity
// tag (quoted, as sent in ETag: `"v3"` or `W/"v3"`) and last modification
// time, either of which may be zero, and whether it exists at all.
type Version = respond.Version

// Conditional, embedded in the input of an operation that changes a
// resource, binds the request's preconditions (RFC 9110 section 13.2):
// If-Match, If-None-Match, If-Unmodified-Since. The handler reads the
// resource's current version and calls Check before it changes anything:
//
//	type UpdatePet struct {
//		vane.Conditional
//		ID   int64 `path:"id"`
//		Body Pet
//	}
//
//	cur, err := store.Get(ctx, in.ID)
//	...
//	if err := in.Check(vane.Version{ETag: cur.ETag(), Exists: true}); err != nil {
//		return nil, err // 412 Precondition Failed; nothing changed
//	}
//
// The document lists the three header parameters and the 412.
// (If-Modified-Since and If-None-Match on a GET need nothing: an output
// that sets ETag or Last-Modified is answered 304 when they match.)
type Conditional struct {
	IfMatch           string `header:"If-Match" doc:"Proceed only if the resource's current entity tag is one of these (strong comparison), or * for any." example:"\"v3\""`
	IfNoneMatch       string `header:"If-None-Match" doc:"Proceed only if the resource's current entity tag is none of these, or, with *, if the resource does not exist."`
	IfUnmodifiedSince string `header:"If-Unmodified-Since" doc:"Proceed only if the resource has not changed since this HTTP date (ignored with If-Match)." example:"Wed, 21 Oct 2015 07:28:00 GMT"`
}

// Check evaluates the request's preconditions against the current
// version and returns nil if the request may proceed, else a 412
// Precondition Failed problem for the handler to return.
func (c *Conditional) Check(current Version) error {
	h := http.Header{}
	for k, v := range map[string]string{"If-Match": c.IfMatch, "If-None-Match": c.IfNoneMatch, "If-Unmodified-Since": c.IfUnmodifiedSince} {
		if v != "" {
			h[k] = []string{v}
		}
	}
	if respond.Preconditions(h, current) {
		return nil
	}
	return problem.New(http.StatusPreconditionFailed, "the resource has changed: its current version does not match the request's preconditions")
}

var conditionalType = reflect.TypeFor[Conditional]()

// hasConditional reports whether the input type t embeds Conditional.
func hasConditional(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.Anonymous && f.Type == conditionalType {
			return true
		}
	}
	return false
}
