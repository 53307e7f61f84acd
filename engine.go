package vane

import (
	"context"
	"net"
	"net/http"

	"github.com/vane-http/vane/bind"
	"github.com/vane-http/vane/internal/engine"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/respond"
	"github.com/vane-http/vane/router"
)

// What a server other than net/http's (the fast engine, module
// github.com/vane-http/vane/fast) needs of the root package: a typed
// operation served from an engine.Request, without an *http.Request
// (serveEngine), and the hooks of package internal/engine.

func init() {
	engine.Hooks.Operation = engineOperation
	engine.Hooks.Mux = func(h http.Handler) *router.Router { return h.(*Router).mux }
	engine.Hooks.BaseContext = func(ctx context.Context, stop <-chan struct{}) context.Context {
		return context.WithValue(ctx, shutdownKey{}, stop)
	}
	engine.Hooks.Run = func(s any, ctx context.Context, ln net.Listener, e engine.Server) error {
		return s.(*Server).run(ctx, ln, e)
	}
	engine.Hooks.WriteError = func(h http.Handler, w http.ResponseWriter, req func() *http.Request, err error) {
		if r, ok := h.(*Router); ok && r.api.errorHook != nil {
			r.WriteError(w, req(), err)
			return
		}
		p, ok := err.(*problem.Details)
		if !ok {
			p = problem.New(http.StatusInternalServerError, http.StatusText(http.StatusInternalServerError))
		}
		problem.Write(w, p)
	}
}

// wrapped records th, the operation of key (method and full pattern)
// that its own Middleware wrap, for engineOperation.
func (a *api) wrapped(key string, th http.Handler) {
	if a.typed == nil {
		a.typed = map[string]http.Handler{}
	}
	a.typed[key] = th
}

// engineOp is implemented by every typed operation.
type engineOp interface {
	engineHandler() (engine.Handler, string)
}

// engineOperation is engine.Hooks.Operation.
func engineOperation(h http.Handler, method, pattern string, registered http.Handler) (engine.Handler, []func(http.Handler) http.Handler, string) {
	r, ok := h.(*Router)
	if !ok {
		return nil, nil, "the handler served is not a *vane.Router"
	}
	key := method + " " + pattern
	var mws []func(http.Handler) http.Handler
	if th, ok := r.api.typed[key]; ok {
		registered, mws = th, r.api.middleware[key]
	}
	op, ok := registered.(engineOp)
	if !ok {
		return nil, nil, "not a typed operation"
	}
	eh, why := op.engineHandler()
	return eh, mws, why
}

func (h *typedHandler[I, O]) engineHandler() (engine.Handler, string) {
	switch {
	case h.stream != nil:
		return nil, "an event stream"
	case h.idem != nil:
		return nil, "an operation that takes idempotency keys"
	}
	return h.serveEngine, ""
}

// serveEngine serves the operation for r as serve does for an
// *http.Request: the same binding, validation, preconditions, handler
// and answer, read from and written to the engine's request and writer.
// An *http.Request is built (r.HTTP) only for what asks for one: an
// input field of that type, a Resolver, a Cursor field, the router's
// ErrorHook.
func (h *typedHandler[I, O]) serveEngine(w http.ResponseWriter, r *engine.Request) {
	in := new(I)
	ctx := r.Ctx
	br := bind.Request{RawQuery: r.RawQuery, Header: r.Header, Body: r.Body, ContentLength: r.ContentLength}
	request := lazyRequest{r: r}
	if h.binder.NeedsRequest() {
		br.HTTP = request.get()
	}
	var st bind.State
	defer st.Cleanup() // a multipart body's temporary files, once the handler is done
	if prob := h.binder.BindRequest(&br, r.Params, in, &st); prob != nil {
		h.bindProblem(ctx, in, &st, prob)
		st.Release()
		h.failEngine(w, &request, prob)
		return
	}
	var errs []problem.FieldError
	if !h.noRules {
		errs = h.validator.ValidateInput(ctx, in, st.RawJSON, st.Present)
	}
	st.Release()
	if errs == nil && h.after {
		req := request.get()
		if h.cursors != nil {
			bindCursors(h.cursors, in, req)
		}
		errs = resolveFields(ctx, h.resolvers, in, req)
		if h.resolver {
			errs = append(errs, any(in).(Resolver).Resolve(ctx, req)...)
		}
	}
	if errs != nil {
		h.failEngine(w, &request, problem.New(http.StatusUnprocessableEntity, "validation failed", errs...))
		return
	}
	enc := h.enc
	if h.negotiated {
		// Before the handler: a refused request must not have changed anything.
		if enc = enc.Chosen(r.Header); enc == nil {
			h.failEngine(w, &request, problem.New(http.StatusNotAcceptable, h.enc.NotAcceptable()))
			return
		}
	}
	if h.writes {
		if p := h.precondition(r.Method, r.Header, in); p != nil {
			h.failEngine(w, &request, p)
			return
		}
	}
	out, err := h.fn(ctx, in)
	if err != nil {
		if out != nil {
			h.out.Discard(out) // its body, a file perhaps, is not sent
		}
		h.failEngine(w, &request, problemOf(ctx, h.desc, err))
		return
	}
	if out == nil {
		respond.NoContent(w)
		return
	}
	rr := respond.Request{Method: r.Method, Header: r.Header, Context: ctx}
	if err := h.out.WriteRequest(w, &rr, out, h.status, enc); err != nil {
		switch err {
		case respond.ErrNotAcceptable:
			h.failEngine(w, &request, problem.New(http.StatusNotAcceptable, h.enc.NotAcceptable()))
			return
		case respond.ErrPreconditionFailed:
			h.failEngine(w, &request, preconditionFailed())
			return
		}
		h.failEngine(w, &request, problemOf(ctx, h.desc, err))
	}
}

// failEngine is fail for serveEngine: the ErrorHook, when there is one,
// gets an *http.Request built for it.
func (h *typedHandler[I, O]) failEngine(w http.ResponseWriter, request *lazyRequest, p *problem.Details) {
	if h.hook == nil {
		problem.Write(w, p)
		return
	}
	writeProblem(h.hook, w, request.get(), p)
}

// lazyRequest is the *http.Request of an engine's request, built on first
// use.
type lazyRequest struct {
	r  *engine.Request
	hr *http.Request
}

func (l *lazyRequest) get() *http.Request {
	if l.hr == nil {
		l.hr = l.r.HTTP()
	}
	return l.hr
}
