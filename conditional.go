package vane

import (
	"context"
	"net/http"
	"reflect"
	"strings"

	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/respond"
)

// Version is a resource's current version, for preconditions: its entity
// tag (quoted, as sent in ETag: `"v3"` or `W/"v3"`) and last modification
// time, either of which may be zero, and whether it exists at all.
type Version = respond.Version

// Conditional, embedded in the input of an operation that changes a
// resource, binds the request's preconditions (RFC 9110 section 13.2):
// If-Match, If-None-Match, If-Unmodified-Since. A list split over several
// header lines is read whole.
//
// The precondition must be compared in the same step as the write, never
// in a read before it: two clients holding the same version must not both
// succeed. Write does that with the store's compare-and-swap. The handler
// reads the current version, and writes only if the resource is still at
// that version:
//
//	type UpdatePet struct {
//		vane.Conditional
//		ID   int64 `path:"id"`
//		Body Pet
//	}
//
//	var cur, next Pet
//	err := in.Write(ctx, func(ctx context.Context) (vane.Version, error) {
//		var err error
//		cur, err = store.Get(ctx, in.ID) // a 404 if it is gone
//		return vane.Version{ETag: cur.ETag(), Exists: true}, err
//	}, func(ctx context.Context, _ vane.Version) (bool, error) {
//		var ok bool // UPDATE pets SET … WHERE id = $1 AND version = $2
//		next, ok, err = store.UpdateIf(ctx, in.ID, cur.Version, in.Body)
//		return ok, err
//	})
//
// The document lists the three header parameters and the 412.
// (If-Modified-Since and If-None-Match on a GET need nothing: an output
// that sets ETag or Last-Modified is answered 304 when they match.)
//
// If-Unmodified-Since is compared with Version.LastModified at the
// precision the store keeps: an HTTP date has whole seconds, and a
// resource modified at 12:00:00.300 has been modified since "12:00:00",
// so a write in the same second as the date is refused, as an If-Match of
// the version before it would be. A store that keeps whole seconds cannot
// tell two writes in one second apart; keep sub-second times, or rely on
// entity tags (docs/design/2026-11-27-date-preconditions.md).
//
// Embedded with the tag required:"true", Conditional makes the
// precondition mandatory: a request that carries none of If-Match,
// If-Unmodified-Since (a valid date) or If-None-Match: * is answered 428
// Precondition Required (RFC 6585) before the handler runs, and so is one
// whose only precondition is a date when the resource has no
// modification time (Write and Check answer that 428):
//
//	type UpdatePet struct {
//		vane.Conditional `required:"true"`
//		…
//	}
//
// A POST with If-None-Match: * is answered 412 before its handler runs,
// whether its input embeds Conditional or not: * asks that the target
// resource not exist, and the target of a POST, the resource that
// processes it, does.
//
// A write operation whose input does not embed Conditional answers an
// If-Match that names entity tags (not *) with 412 before its handler
// runs: it has no entity tags, so none can match.
type Conditional struct {
	IfMatch           string `header:"If-Match" doc:"Proceed only if the resource's current entity tag is one of these (strong comparison), or * for any." example:"\"v3\""`
	IfNoneMatch       string `header:"If-None-Match" doc:"Proceed only if the resource's current entity tag is none of these, or, with *, if the resource does not exist."`
	IfUnmodifiedSince string `header:"If-Unmodified-Since" doc:"Proceed only if the resource has not changed since this HTTP date (ignored with If-Match). A change within the second the date names, after its start, is a change." example:"Wed, 21 Oct 2015 07:28:00 GMT"`

	// required: a precondition is mandatory (the embedding field's tag
	// required:"true"); set by the operation before its handler runs.
	required bool
}

// MaxWriteAttempts is how many times Write reads the current version and
// tries its compare-and-swap before it gives up with a 409 Conflict.
const MaxWriteAttempts = 8

// Preconditioned reports whether the request carries any precondition.
func (c *Conditional) Preconditioned() bool {
	return c.IfMatch != "" || c.IfNoneMatch != "" || c.IfUnmodifiedSince != ""
}

// Check evaluates the request's preconditions against the current
// version and returns nil if the request may proceed, else a 412
// Precondition Failed problem for the handler to return.
//
// Check alone compares the version before the write: it is atomic only if
// current was read under a lock that the write holds until it commits
// (SELECT … FOR UPDATE in the write's transaction). Otherwise use Write.
func (c *Conditional) Check(current Version) error {
	return c.evaluate(current)
}

// evaluate returns nil when the request may proceed on current, a 412
// when its preconditions fail, and a 428 when a precondition is required
// and the only one sent is a date the resource has none to compare with.
func (c *Conditional) evaluate(current Version) error {
	if c.required && c.IfMatch == "" && !listHasAny(c.IfNoneMatch) && current.Exists && current.LastModified.IsZero() {
		return preconditionRequired("this resource has no modification time to compare If-Unmodified-Since with; send If-Match with its ETag")
	}
	if c.Matches(current) {
		return nil
	}
	return preconditionFailed()
}

// guarded reports whether the request carries a precondition that can
// protect a write: If-Match, If-None-Match: *, or If-Unmodified-Since
// with a valid date.
func (c *Conditional) guarded() bool {
	if c.IfMatch != "" || listHasAny(c.IfNoneMatch) {
		return true
	}
	_, err := http.ParseTime(c.IfUnmodifiedSince)
	return c.IfUnmodifiedSince != "" && err == nil
}

// listHasAny reports whether the If-Match or If-None-Match list l holds
// *.
func listHasAny(l string) bool {
	for l != "" {
		var e string
		e, l, _ = strings.Cut(l, ",")
		if strings.TrimSpace(e) == "*" {
			return true
		}
	}
	return false
}

// Matches reports whether the request's preconditions hold for the
// version current (RFC 9110 section 13.2.2). A request with none matches
// every version.
func (c *Conditional) Matches(current Version) bool {
	if !c.Preconditioned() {
		return true
	}
	var im, inm []string
	if c.IfMatch != "" {
		im = []string{c.IfMatch}
	}
	if c.IfNoneMatch != "" {
		inm = []string{c.IfNoneMatch}
	}
	return respond.PreconditionsOf(im, inm, c.IfUnmodifiedSince, current)
}

// Write performs a conditional write as a compare-and-swap. current reads
// the resource's version: when the resource is gone it returns either
// Version{Exists: false} (If-Match and If-Unmodified-Since then fail with
// 412; a PUT that creates proceeds) or an error of its own, such as a
// 404, returned as it is. The request's preconditions are evaluated
// against that version, and a 412 problem is returned if they fail (a 428
// if a precondition is required and the only one sent is a date the
// version has none to compare with): If-Match and If-Unmodified-Since
// alike are compared with the version write swaps from, never with one
// read before. Then write must change the
// resource only if it is still at the version current read (an
// UPDATE … WHERE id = $1 AND version = $2), and report whether it did.
//
// When write reports that it changed nothing, another writer came first:
// Write reads current again and evaluates the preconditions again, so of
// several requests holding the same version exactly one succeeds and the
// others get 412, while a request without preconditions is applied to the
// newer version rather than overwriting it unseen. After MaxWriteAttempts
// lost races Write returns a 409 Conflict problem. An error from current
// or write ends Write with that error; so does the end of ctx.
func (c *Conditional) Write(ctx context.Context, current func(context.Context) (Version, error),
	write func(ctx context.Context, expected Version) (bool, error)) error {
	for range MaxWriteAttempts {
		if err := ctx.Err(); err != nil {
			return err
		}
		v, err := current(ctx)
		if err != nil {
			return err
		}
		if err := c.evaluate(v); err != nil {
			return err
		}
		ok, err := write(ctx, v)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
	}
	return problem.New(http.StatusConflict, "the resource kept changing while this request tried to change it; read it again and retry")
}

func preconditionFailed() *problem.Details {
	return problem.New(http.StatusPreconditionFailed, "the resource has changed: its current version does not match the request's preconditions")
}

// preconditionRequired is a 428 Precondition Required problem (RFC 6585
// section 3).
func preconditionRequired(detail string) *problem.Details {
	return problem.New(http.StatusPreconditionRequired, detail)
}

// missingPrecondition is the 428 of a request that carries no
// precondition to an operation that requires one.
func missingPrecondition() *problem.Details {
	return preconditionRequired("this operation changes the resource only under a precondition: send If-Match with the ETag you read " +
		"(or If-Unmodified-Since with its Last-Modified, or If-None-Match: * to create)")
}

// preconditionRequiredDoc documents the 428 of an operation whose input
// embeds Conditional with required:"true".
const preconditionRequiredDoc = "Precondition Required: the request carries none of If-Match, If-Unmodified-Since or If-None-Match: *, " +
	"and this operation changes the resource only under one (or the resource has no modification time to compare a date with)."

// postIfNoneMatchAny is the 412 of a POST with If-None-Match: *.
func postIfNoneMatchAny() *problem.Details {
	return problem.New(http.StatusPreconditionFailed, "If-None-Match: * asks that the target resource not exist; the target of a POST, the resource that processes it, exists")
}

// conditional returns c; an input that embeds Conditional has the method
// too, which is how a typed handler finds it.
func (c *Conditional) conditional() *Conditional { return c }

type conditionalInput interface{ conditional() *Conditional }

// joinLines sets c's fields from every line of their header fields, for
// a list a client split over several lines.
func (c *Conditional) joinLines(h http.Header) {
	if v := h["If-Match"]; len(v) > 1 {
		c.IfMatch = strings.Join(v, ", ")
	}
	if v := h["If-None-Match"]; len(v) > 1 {
		c.IfNoneMatch = strings.Join(v, ", ")
	}
}

// unmatchableIfMatch reports whether h has an If-Match that names entity
// tags but not *: for a resource vane knows no entity tag of, it cannot
// match (RFC 9110 section 13.1.1).
func unmatchableIfMatch(h http.Header) bool {
	lines := h["If-Match"]
	if len(lines) == 0 {
		return false
	}
	for _, l := range lines {
		if listHasAny(l) {
			return false
		}
	}
	return true
}

var conditionalType = reflect.TypeFor[Conditional]()

// hasConditional reports whether the input type t embeds Conditional.
func hasConditional(t reflect.Type) bool {
	has, _ := conditionalOf(t)
	return has
}

// conditionalOf reports whether the input type t embeds Conditional, and
// whether with the tag required:"true".
func conditionalOf(t reflect.Type) (has, required bool) {
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.Anonymous && f.Type == conditionalType {
			return true, f.Tag.Get("required") == "true"
		}
	}
	return false, false
}

// safeMethod reports whether method is one of RFC 9110's safe methods.
func safeMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}
