package vane

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/vane-http/vane/bind"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/respond"
	"github.com/vane-http/vane/router"
	"github.com/vane-http/vane/validate"
)

// typedHandler serves one typed operation.
type typedHandler[I, O any] struct {
	fn         func(context.Context, *I) (*O, error)
	binder     *bind.Binder
	validator  *validate.Validator
	out        *respond.Output
	enc        *respond.Encoders // the response encodings, JSON first
	status     int
	desc       *operation.Description
	pathNames  []string                                               // the pattern's parameter names, in order
	noRules    bool                                                   // the validator checks nothing
	hook       func(*http.Request, *problem.Details) *problem.Details // the router's ErrorHook; nil for none
	resolver   bool                                                   // *I is a Resolver
	resolvers  []fieldResolver                                        // top-level fields that are Resolvers
	stream     func(http.ResponseWriter, *http.Request, *I)           // an event stream's: runs instead of fn
	negotiated bool                                                   // the output's body is chosen by Accept: 406 before the handler when nothing is acceptable
	hasBody    bool                                                   // the input has a Body field
	cond       bool                                                   // the input embeds Conditional
	required   bool                                                   // … with required:"true": a precondition is mandatory (428)
	bodyRules  *validate.InstanceValidator                            // a JSON body's schema, for a body whose values did not all fit their types
	writes     bool                                                   // the method changes state, or the input embeds Conditional: preconditions to see to
	idem       *idempotency                                           // the input embeds Idempotent: the operation takes idempotency keys
	after      bool                                                   // resolver, resolvers or cursors: work after validation
	cursors    []cursorField                                          // the input's Cursor fields, told where they were bound from
}

func (h *typedHandler[I, O]) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	h.serve(w, req, new(I))
}

func (h *typedHandler[I, O]) serve(w http.ResponseWriter, req *http.Request, in *I) {
	ctx := req.Context()
	var buf [4]string
	path := buf[:0]
	for _, name := range h.pathNames {
		path = append(path, router.Param(req, name))
	}
	if h.hasBody {
		bodyDeadline(w, req)
	}
	var st bind.State
	defer st.Cleanup() // a multipart body's temporary files, once the handler is done
	if prob := h.binder.Bind(req, path, in, &st); prob != nil {
		h.bindProblem(ctx, in, &st, prob)
		st.Release()
		h.fail(w, req, prob)
		return
	}
	var errs []problem.FieldError
	if !h.noRules {
		errs = h.validator.ValidateInput(ctx, in, st.RawJSON, st.Present)
	}
	st.Release()
	if errs == nil && h.after {
		if h.cursors != nil {
			bindCursors(h.cursors, in, req)
		}
		errs = resolveFields(ctx, h.resolvers, in, req)
		if h.resolver {
			errs = append(errs, any(in).(Resolver).Resolve(ctx, req)...)
		}
	}
	if errs != nil {
		h.fail(w, req, problem.New(http.StatusUnprocessableEntity, "validation failed", errs...))
		return
	}
	if h.stream != nil {
		h.stream(w, req, in)
		return
	}
	enc := h.enc
	if h.negotiated {
		// Before the handler: a refused request must not have changed anything.
		if enc = enc.Chosen(req.Header); enc == nil {
			h.fail(w, req, problem.New(http.StatusNotAcceptable, h.enc.NotAcceptable()))
			return
		}
	}
	if h.writes {
		if p := h.precondition(req.Method, req.Header, in); p != nil {
			h.fail(w, req, p)
			return
		}
	}
	if h.idem != nil && h.serveKeyed(w, req, in) {
		return
	}
	out, err := h.fn(ctx, in)
	if err != nil {
		if out != nil {
			h.out.Discard(out) // its body, a file perhaps, is not sent
		}
		h.fail(w, req, problemOf(ctx, h.desc, err))
		return
	}
	if out == nil {
		respond.NoContent(w)
		return
	}
	if err := h.out.Write(w, req, out, h.status, enc); err != nil {
		switch err {
		case respond.ErrNotAcceptable:
			h.fail(w, req, problem.New(http.StatusNotAcceptable, h.enc.NotAcceptable()))
			return
		case respond.ErrPreconditionFailed:
			h.fail(w, req, preconditionFailed())
			return
		}
		h.fail(w, req, problemOf(ctx, h.desc, err))
	}
}

// bindProblem completes prob, the binder's problem with the input in: a
// 422 reports the tag rules' failures too, except where a value did not
// even parse; a body that did not decode is not checked further.
func (h *typedHandler[I, O]) bindProblem(ctx context.Context, in *I, st *bind.State, prob *problem.Details) {
	if prob.Status != http.StatusUnprocessableEntity {
		return
	}
	var errs []problem.FieldError
	if st.RawJSON != nil || !h.hasBody {
		errs = h.validator.ValidateInput(ctx, in, st.RawJSON, st.Present)
	} else {
		errs = h.validator.CheckParams(in, st.Present)
		if st.Mistyped != nil && h.bodyRules != nil {
			// A value of the wrong type stopped the decoding: the
			// body's other failures come from its JSON.
			errs = append(errs, h.bodyRules.Validate(st.Mistyped, "body")...)
		}
	}
	prob.Errors = h.validator.Messages(mergeErrors(prob.Errors, errs))
}

// fail writes the problem p, through the router's ErrorHook if it has one.
func (h *typedHandler[I, O]) fail(w http.ResponseWriter, req *http.Request, p *problem.Details) {
	writeProblem(h.hook, w, req, p)
}

// writeProblem writes p through hook, when there is one, which gets a
// copy: every problem vane writes for a router goes through here.
func writeProblem(hook func(*http.Request, *problem.Details) *problem.Details, w http.ResponseWriter, req *http.Request, p *problem.Details) {
	if hook != nil {
		if q := hook(req, p.Clone()); q != nil {
			p = q
		}
	}
	problem.Write(w, p) // a 503 without Retry-After gets problem.DefaultRetryAfter
}

// precondition prepares the input's Conditional (a list over several
// header lines joined) and is a 428 when it requires a precondition
// the request does not carry, or, for an input without one, is a 412
// to an If-Match that names entity tags; a POST with If-None-Match: * is
// a 412 either way. It returns the problem to answer, or nil to go on.
func (h *typedHandler[I, O]) precondition(method string, header http.Header, in *I) *problem.Details {
	if method == http.MethodPost && listHasAny(strings.Join(header["If-None-Match"], ",")) {
		return postIfNoneMatchAny()
	}
	if h.cond {
		c := any(in).(conditionalInput).conditional()
		c.joinLines(header)
		if h.required {
			c.required = true
			if !c.guarded() {
				return missingPrecondition()
			}
		}
		return nil
	}
	if unmatchableIfMatch(header) {
		return preconditionFailed()
	}
	return nil
}

// bodyDeadline makes a body that stalls a 408 before the deadline of the
// request's context (middleware.Timeout's) takes the answer: reading
// stops a tenth of the time left, at most bodyDeadlineMargin, before it.
//
//go:noinline
func bodyDeadline(w http.ResponseWriter, req *http.Request) {
	if req.Body == nil || req.Body == http.NoBody {
		return
	}
	if dl, ok := req.Context().Deadline(); ok {
		margin := min(time.Until(dl)/10, bodyDeadlineMargin)
		http.NewResponseController(w).SetReadDeadline(dl.Add(-margin)) //nolint:errcheck // not every writer has deadlines
	}
}

// bodyDeadlineMargin is how long before the request context's deadline
// the reading of a typed operation's body stops, at most: time to answer
// 408.
const bodyDeadlineMargin = 250 * time.Millisecond

func mergeErrors(first, more []problem.FieldError) []problem.FieldError {
	for _, e := range more {
		dup := false
		for _, f := range first {
			if f.Location == e.Location {
				dup = true
				break
			}
		}
		if !dup {
			first = append(first, e)
		}
	}
	return first
}

// logHandlerError logs an error a client does not see.
func logHandlerError(ctx context.Context, d *operation.Description, err error) {
	slog.ErrorContext(ctx, "vane: operation failed",
		"operation", d.ID, "method", d.Method, "pattern", d.Pattern, "error", err)
}

// problemOf turns a handler's error into the problem answered: the problem
// itself when it is one, a problem with its status and message when it is
// a StatusError (the message only below 500), otherwise a 500 that keeps
// the error to the log.
func problemOf(ctx context.Context, d *operation.Description, err error) *problem.Details {
	var p *problem.Details
	if errors.As(err, &p) {
		if p.StatusCode() >= 500 {
			logHandlerError(ctx, d, err)
		}
		return p
	}
	var se StatusError
	if errors.As(err, &se) {
		status := se.StatusCode()
		if status < 400 || status > 599 {
			status = http.StatusInternalServerError
		}
		if status >= 500 {
			logHandlerError(ctx, d, err)
			return problem.New(status, http.StatusText(status))
		}
		return problem.New(status, se.Error())
	}
	logHandlerError(ctx, d, err)
	return problem.New(http.StatusInternalServerError, "the server failed to handle the request")
}

// WriteError answers req with err as the router's typed operations answer
// a handler's error: a *problem.Details as it is (with its Header), a
// StatusError by its status (its message shown below 500), anything else
// a 500 whose cause is logged, not sent; through the router's ErrorHook.
// It lets middleware in front of typed operations (an authentication
// check, a rate limit) answer as they do, so that a hook that logs,
// translates or decorates problems sees these too:
//
//	if user == "" {
//	    r.WriteError(w, req, vane.Unauthorized("log in first").
//	        WithHeader("WWW-Authenticate", `Bearer realm="api"`))
//	    return
//	}
//
// A nil err is a 500.
func (r *Router) WriteError(w http.ResponseWriter, req *http.Request, err error) {
	if err == nil {
		err = errors.New("vane: WriteError called with a nil error")
	}
	writeProblem(r.api.errorHook, w, req, problemOf(req.Context(), &operation.Description{Method: req.Method, Pattern: req.URL.Path}, err))
}
