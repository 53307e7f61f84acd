package vane

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vane-http/vane/middleware"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/respond"
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

// streamRetryAfter is the Retry-After, in seconds, of a stream refused
// for a cap.
const streamRetryAfter = "5"

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

// streamRuntime serves the event stream of one operation registered by
// Stream, once its input is bound and validated.
type streamRuntime struct {
	api       *api
	desc      *operation.Description
	names     map[reflect.Type]string // the event types' names
	marshal   func(any) ([]byte, error)
	heartbeat time.Duration // <= 0: none
	fail      func(http.ResponseWriter, *http.Request, *problem.Details)
}

// serve answers req with a stream whose events run sends: the caps
// first (429, 503), then the headers and an opening comment, then run
// with the stream's context and Sender, beside the heartbeat and the
// watch that ends a blocked write when the client or the server goes.
func (rt *streamRuntime) serve(w http.ResponseWriter, req *http.Request, run func(context.Context, Sender) error) {
	if req.Method == http.MethodHead {
		setStreamHeaders(w.Header())
		w.WriteHeader(http.StatusOK)
		return
	}
	client, ok := rt.api.streamClients.acquire(req)
	if !ok {
		rt.fail(w, req, problem.New(http.StatusTooManyRequests, "this client has as many event streams open as one client may; close one, or retry later").
			WithHeader("Retry-After", streamRetryAfter))
		return
	}
	defer rt.api.streamClients.release(client)
	if rt.api.streams.Add(1) > rt.api.maxStreams {
		rt.api.streams.Add(-1)
		rt.fail(w, req, problem.New(http.StatusServiceUnavailable, "the server has as many event streams open as it allows; retry later").
			WithHeader("Retry-After", streamRetryAfter))
		return
	}
	defer rt.api.streams.Add(-1)
	setStreamHeaders(w.Header())
	s := &eventStream{w: w, rc: http.NewResponseController(w), names: rt.names, marshal: rt.marshal}
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
	if rt.heartbeat > 0 {
		ended.Add(1)
		go func() {
			defer ended.Done()
			s.beat(ctx, rt.heartbeat, done)
		}()
	}
	err := run(ctx, s.send)
	s.close()
	close(done)
	ended.Wait()
	if ctx.Err() == nil {
		s.rc.SetWriteDeadline(time.Time{}) //nolint:errcheck // the connection may serve other requests
	}
	if err != nil && !errors.Is(err, ErrStreamClosed) && ctx.Err() == nil {
		logHandlerError(req.Context(), rt.desc, err)
	}
}
