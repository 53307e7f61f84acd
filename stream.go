package vane

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/vane-http/vane/schema"
)

// Stream registers a typed GET operation that answers with server-sent
// events (text/event-stream). events declares the event types by name:
// {"created": Pet{}, "deleted": PetRef{}}; each is documented with its
// schema, and an event's name is its data's type's. The input I is bound
// and validated as for any operation (a failure is a problem response,
// before the stream starts); a field tagged `header:"Last-Event-ID"` gets
// what a reconnecting client sends. h then sends events until it returns:
// each is written as id, event and data lines (data is JSON) and flushed;
// a comment line goes out every Heartbeat (an option; DefaultHeartbeat if
// not given, none if Off) while h sends nothing. The context h gets ends when
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
func Stream[I any](r *Router, pattern string, events map[string]any, h func(ctx context.Context, in *I, send Sender) error, opts ...Option) {
	if h == nil || len(events) == 0 {
		panic("vane: Stream " + pattern + " needs a handler and at least one event type")
	}
	op := r.spec(http.MethodGet, pattern, opts)
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
	heartbeat := op.Heartbeat
	if heartbeat == 0 {
		heartbeat = DefaultHeartbeat
	}
	rt := &streamRuntime{api: r.api, desc: d, names: names, marshal: th.enc.Default().Marshal, heartbeat: heartbeat, fail: th.fail}
	th.stream = func(w http.ResponseWriter, req *http.Request, in *I) {
		rt.serve(w, req, func(ctx context.Context, send Sender) error { return h(ctx, in, send) })
	}
	r.add(&op, d, th)
}

// retryAfterDoc documents the Retry-After of an answer.
var retryAfterDoc = map[string]string{"Retry-After": "Seconds to wait before retrying."}
