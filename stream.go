package vane

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vane-http/vane/middleware"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/respond"
	"github.com/vane-http/vane/schema"
)

// EventStreamType is the media type of server-sent events.
const EventStreamType = respond.EventStreamType

// Event is one server-sent event. Data is one of the stream's declared
// event types (see Stream), whose name the event takes; ID, when not
// empty, is the event's id (a reconnecting client sends the last one back
// as Last-Event-ID); Retry, when positive, tells the client how long to
// wait before reconnecting.
type Event struct {
	ID    string
	Data  any
	Retry time.Duration
}

// Sender sends one event and flushes it to the client. It fails once the
// client has gone or the stream has ended, and for data of a type the
// stream did not declare.
type Sender func(Event) error

// DefaultHeartbeat is how often an event stream sends a comment line when
// it sends nothing else, so that proxies keep the connection open.
const DefaultHeartbeat = 15 * time.Second

// ErrStreamClosed is a Sender's error once the client has gone, stopped
// reading, or the server is shutting down.
var ErrStreamClosed = errors.New("vane: the event stream is closed")

// DefaultMaxStreams is how many event streams a router serves at once
// unless MaxStreams says otherwise.
const DefaultMaxStreams = 1024

// DefaultMaxStreamsPerClient is how many event streams one client may
// hold open at once unless MaxStreamsPerClient says otherwise.
const DefaultMaxStreamsPerClient = 32

// StreamWriteTimeout is how long one event or heartbeat may take to reach
// a client: a client that stops reading has its stream ended then, rather
// than holding a goroutine and a connection for ever.
const StreamWriteTimeout = 10 * time.Second

// MaxStreams sets how many event streams (see Stream) the router's tree
// serves at once, across all its streams: past it, a new stream is
// answered 503 Service Unavailable with Retry-After, before its handler
// runs. n <= 0 means DefaultMaxStreams. Each open stream holds a
// connection, a goroutine or two and its buffers (tens of KiB).
func MaxStreams(n int) Option {
	return Option{api: func(a *api) {
		if n <= 0 {
			n = DefaultMaxStreams
		}
		a.maxStreams = int64(n)
	}}
}

// MaxStreamsPerClient sets how many event streams one client may hold
// open at once, beside MaxStreams' cap on all of them, so that no client
// can take every slot. A client is what key returns for its request; nil
// means StreamClientAddress, the client's address. A request whose key is
// "" counts towards MaxStreams only. Past the cap, a new stream of that
// client is answered 429 Too Many Requests with Retry-After, before its
// handler runs: the client is over its own allowance (RFC 6585 section
// 4), while the server still has room, which a 503 would deny. n == 0
// means DefaultMaxStreamsPerClient; n < 0 means no cap per client.
//
// Behind a proxy or load balancer, every stream comes from its address:
// install middleware.RealIP with the proxy as trusted, so that the key is
// the client's, or give a key of your own (an authenticated user's ID;
// keep it short, it is held while the client's streams are open). Many
// people behind one address (an office's NAT) are one client to the
// default key.
func MaxStreamsPerClient(n int, key func(*http.Request) string) Option {
	return Option{api: func(a *api) {
		a.streamClients.max, a.streamClients.key = int64(n), key
	}}
}

// StreamClientAddress is MaxStreamsPerClient's default key: the client's
// address as middleware.ClientIP gives it (what middleware.RealIP found
// behind trusted proxies, else the connection's peer), an IPv6 address
// by its /64 prefix (the block one host usually has to itself, so that a
// client does not pass the cap by changing addresses within it); "" when
// the address is not known (a Unix socket).
func StreamClientAddress(req *http.Request) string {
	a := middleware.ClientIP(req)
	switch {
	case !a.IsValid():
		return ""
	case a.Is6():
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// streamClients counts the event streams each client holds open
// (MaxStreamsPerClient); a client without any has no entry, so that the
// map holds at most as many clients as there are streams opening or open.
type streamClients struct {
	max  int64                      // 0: DefaultMaxStreamsPerClient; < 0: no cap
	key  func(*http.Request) string // nil: StreamClientAddress
	mu   sync.Mutex
	open map[string]int64
}

// acquire counts a new stream of req's client and returns its key, or
// reports that the client already holds as many as it may. An empty key
// counts nothing and needs no release.
func (c *streamClients) acquire(req *http.Request) (key string, ok bool) {
	limit := c.max
	switch {
	case limit < 0:
		return "", true
	case limit == 0:
		limit = DefaultMaxStreamsPerClient
	}
	keyOf := c.key
	if keyOf == nil {
		keyOf = StreamClientAddress
	}
	if key = keyOf(req); key == "" {
		return "", true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[key] >= limit {
		return "", false
	}
	if c.open == nil {
		c.open = map[string]int64{}
	}
	c.open[key]++
	return key, true
}

// release uncounts a stream that acquire counted under key.
func (c *streamClients) release(key string) {
	if key == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[key]--; c.open[key] <= 0 {
		delete(c.open, key)
	}
}

// Stream registers a typed GET operation that answers with server-sent
// events (text/event-stream). events declares the event types by name:
// {"created": Pet{}, "deleted": PetRef{}}; each is documented with its
// schema, and an event's name is its data's type's. The input I is bound
// and validated as for any operation (a failure is a problem response,
// before the stream starts); a field tagged `header:"Last-Event-ID"` gets
// what a reconnecting client sends. h then sends events until it returns:
// each is written as id, event and data lines (data is JSON) and flushed;
// a comment line goes out every Op.Heartbeat (DefaultHeartbeat if zero,
// none if negative) while h sends nothing. The context h gets ends when
// the client leaves or a vane.Server shuts down, and h should then
// return; the stream ends when it does. The server's write timeout does
// not apply to the stream; instead each event and heartbeat must reach
// the client within StreamWriteTimeout, else the stream ends (a client
// that stopped reading), and shutting down ends a blocked write at once.
//
// The stream opens with a comment line, flushed, so that its headers
// reach the client at once even through compressing middleware. A HEAD
// request is answered with the stream's headers and no body, without
// running h. The router serves at most MaxStreams streams at once, and
// one client at most MaxStreamsPerClient of them; past those, 503 and
// 429, each with Retry-After.
func Stream[I any](r *Router, pattern string, events map[string]any, h func(ctx context.Context, in *I, send Sender) error, opts ...func(*Op)) {
	if h == nil || len(events) == 0 {
		panic("vane: Stream " + pattern + " needs a handler and at least one event type")
	}
	op := newOp(http.MethodGet, pattern, opts)
	// The answers past the caps (respond.EventStream documents the 503).
	op.Problems = append(slices.Clip(op.Problems), ProblemType{Status: http.StatusServiceUnavailable, Headers: retryAfterDoc})
	if r.api.streamClients.max >= 0 {
		op.Problems = append(op.Problems, ProblemType{Status: http.StatusTooManyRequests, Headers: retryAfterDoc,
			Description: "Too Many Requests: this client has as many event streams open as one client may; close one, or retry after the Retry-After header's seconds."})
	}
	names := make(map[reflect.Type]string, len(events))
	order := make([]string, 0, len(events))
	for name := range events {
		order = append(order, name)
	}
	sort.Strings(order)
	for _, name := range order {
		t := reflect.TypeOf(events[name])
		if t == nil || strings.ContainsAny(name, "\r\n:") || name == "" || strings.TrimSpace(name) != name {
			panic(fmt.Sprintf("vane: Stream %s: event %q needs a name without line breaks, colons or surrounding spaces, and a typed value", pattern, name))
		}
		if prev, dup := names[t]; dup {
			panic(fmt.Sprintf("vane: Stream %s: events %q and %q have the same type %v", pattern, prev, name, t))
		}
		names[t] = name
	}
	// Each event is a component of its own ("petEvents.created"), so that
	// the oneOf can carry a discriminator that generators map to types.
	op.events = func(id string) ([]*schema.Schema, map[string]string, error) {
		var branches []*schema.Schema
		mapping := make(map[string]string, len(order))
		for _, name := range order {
			ds, err := r.api.registry().Schema(reflect.TypeOf(events[name]))
			if err != nil {
				return nil, nil, fmt.Errorf("Stream %s: event %q: %w", pattern, name, err)
			}
			ref, err := r.api.registry().Define(id+"."+name, &schema.Schema{
				Type: schema.TypeObject, Title: name, Required: []string{"event", "data"},
				Description: "The " + name + " event of " + id + ".",
				Properties: map[string]*schema.Schema{
					"event": {Type: schema.TypeString, Const: name},
					"data":  ds,
					"id":    {Type: schema.TypeString},
					"retry": {Type: schema.TypeInteger, Description: "milliseconds"},
				},
				PropertyOrder: []string{"event", "data", "id", "retry"},
			})
			if err != nil {
				return nil, nil, fmt.Errorf("Stream %s: event %q: %w", pattern, name, err)
			}
			branches = append(branches, ref)
			mapping[name] = ref.Ref
		}
		return branches, mapping, nil
	}
	th, d, err := compileOperation[I, struct{}](r, &op)
	if err != nil {
		panic("vane: " + err.Error())
	}
	for _, other := range r.api.ops {
		if other.ID == d.ID {
			panic(fmt.Sprintf("vane: operation ID %q of GET %s is already used by %s %s", d.ID, d.Pattern, other.Method, other.Pattern))
		}
	}
	heartbeat := op.Heartbeat
	if heartbeat == 0 {
		heartbeat = DefaultHeartbeat
	}
	codec := th.enc.Default()
	a := r.api
	th.stream = func(w http.ResponseWriter, req *http.Request, in *I) {
		if req.Method == http.MethodHead {
			setStreamHeaders(w.Header())
			w.WriteHeader(http.StatusOK)
			return
		}
		client, ok := a.streamClients.acquire(req)
		if !ok {
			th.fail(w, req, problem.New(http.StatusTooManyRequests, "this client has as many event streams open as one client may; close one, or retry later").
				WithHeader("Retry-After", streamRetryAfter))
			return
		}
		defer a.streamClients.release(client)
		if a.streams.Add(1) > a.maxStreams {
			a.streams.Add(-1)
			th.fail(w, req, problem.New(http.StatusServiceUnavailable, "the server has as many event streams open as it allows; retry later").
				WithHeader("Retry-After", streamRetryAfter))
			return
		}
		defer a.streams.Add(-1)
		setStreamHeaders(w.Header())
		s := &eventStream{w: w, rc: http.NewResponseController(w), names: names, marshal: codec.Marshal}
		ctx, cancel := context.WithCancel(req.Context())
		defer cancel()
		done := make(chan struct{})
		var ended sync.WaitGroup
		ended.Add(1)
		go func() {
			// The end of the request's context or the server's shutdown
			// ends a write that the client is not reading.
			defer ended.Done()
			var stop <-chan struct{}
			if c, ok := req.Context().Value(shutdownKey{}).(<-chan struct{}); ok {
				stop = c
			}
			select {
			case <-stop:
				cancel()
			case <-ctx.Done():
			case <-done:
				return
			}
			s.rc.SetWriteDeadline(time.Now()) //nolint:errcheck // not every writer has deadlines
		}()
		s.ctx = ctx
		w.WriteHeader(http.StatusOK)
		s.write([]byte(": stream opened\n\n"))
		if heartbeat > 0 {
			ended.Add(1)
			go func() {
				defer ended.Done()
				s.beat(ctx, heartbeat, done)
			}()
		}
		err := h(ctx, in, s.send)
		s.close()
		close(done)
		ended.Wait()
		if ctx.Err() == nil {
			s.rc.SetWriteDeadline(time.Time{}) //nolint:errcheck // the connection may serve other requests
		}
		if err != nil && !errors.Is(err, ErrStreamClosed) && ctx.Err() == nil {
			logHandlerError(req, d, err)
		}
	}
	var h2 http.Handler = th
	for i := len(op.Middleware) - 1; i >= 0; i-- {
		h2 = op.Middleware[i](h2)
	}
	r.Handle(http.MethodGet, op.Path, h2)
	r.api.ops = append(r.api.ops, d)
}

// streamRetryAfter is the Retry-After, in seconds, of a stream refused
// for a cap.
const streamRetryAfter = "5"

// retryAfterDoc documents the Retry-After of an answer.
var retryAfterDoc = map[string]string{"Retry-After": "Seconds to wait before retrying."}

// shutdownKey is the request context key under which vane.Server keeps a
// channel closed when it starts shutting down: event streams end then.
type shutdownKey struct{}

type eventStream struct {
	ctx     context.Context
	mu      sync.Mutex
	w       http.ResponseWriter
	rc      *http.ResponseController
	names   map[reflect.Type]string
	marshal func(any) ([]byte, error)
	closed  bool
	buf     []byte
}

func (s *eventStream) send(e Event) error {
	name, ok := s.names[reflect.TypeOf(e.Data)]
	if !ok {
		return fmt.Errorf("vane: event data of type %T is not one of the stream's event types", e.Data)
	}
	data, err := s.marshal(e.Data)
	if err != nil {
		return fmt.Errorf("vane: encoding an event: %w", err)
	}
	if strings.ContainsAny(e.ID, "\r\n\x00") {
		return fmt.Errorf("vane: event id %q holds a line break or NUL", e.ID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.ctx.Err() != nil {
		s.closed = true
		return ErrStreamClosed
	}
	b := s.buf[:0]
	if e.ID != "" {
		b = append(append(append(b, "id: "...), e.ID...), '\n')
	}
	if e.Retry > 0 {
		b = append(strconv.AppendInt(append(b, "retry: "...), e.Retry.Milliseconds(), 10), '\n')
	}
	b = append(append(append(b, "event: "...), name...), '\n')
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		b = append(append(append(b, "data: "...), line...), '\n')
	}
	b = append(b, '\n')
	s.buf = b
	if !s.writeLocked(b) {
		return ErrStreamClosed
	}
	return nil
}

// write writes b and flushes it, within StreamWriteTimeout.
func (s *eventStream) write(b []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeLocked(b)
}

// writeLocked writes b and flushes it, within StreamWriteTimeout, and
// reports whether it reached the client; s.mu is held.
func (s *eventStream) writeLocked(b []byte) bool {
	if s.closed {
		return false
	}
	if s.ctx.Err() == nil {
		s.rc.SetWriteDeadline(time.Now().Add(StreamWriteTimeout)) //nolint:errcheck // not every writer has deadlines
	}
	if _, err := s.w.Write(b); err != nil {
		s.closed = true
		return false
	}
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.closed = true
		return false
	}
	return true
}

// beat writes a comment line every interval until done.
func (s *eventStream) beat(ctx context.Context, every time.Duration, done <-chan struct{}) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-t.C:
			s.write([]byte(": keep-alive\n\n"))
		}
	}
}

func (s *eventStream) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// setStreamHeaders sets the headers of an event stream's answer: its type
// (nosniff: only that type), and no caching or buffering on the way.
func setStreamHeaders(h http.Header) {
	h.Set("Content-Type", EventStreamType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
}
