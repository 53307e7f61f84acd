package vane

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

type petEvent struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

type petGone struct {
	ID int `json:"id"`
}

type eventsIn struct {
	LastID string `header:"Last-Event-ID"`
	Limit  int    `query:"limit" maximum:"10"`
}

// sse is one parsed event.
type sse struct{ id, event, data string }

// readEvents parses an event stream as a browser's EventSource does, until
// n events or the end; comments are counted.
func readEvents(t *testing.T, sc *bufio.Scanner, n int) (events []sse, comments int) {
	var cur sse
	var data []string
	for len(events) < n && sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.event != "" || len(data) > 0 {
				cur.data = strings.Join(data, "\n")
				events = append(events, cur)
			}
			cur, data = sse{}, nil
		case strings.HasPrefix(line, ":"):
			comments++
		default:
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimPrefix(v, " ")
			switch k {
			case "id":
				cur.id = v
			case "event":
				cur.event = v
			case "data":
				data = append(data, v)
			}
		}
	}
	return events, comments
}

func streamRouter(ready chan<- struct{}) *Router {
	r := New()
	Stream(r, "/pets/events", map[string]any{"created": petEvent{}, "deleted": petGone{}},
		func(ctx context.Context, in *eventsIn, send Sender) error {
			start := 0
			fmt.Sscan(in.LastID, &start)
			if err := send(Event{ID: fmt.Sprint(start + 1), Data: petEvent{ID: 7, Name: "Rex\nthe dog"}}); err != nil {
				return err
			}
			if err := send(Event{ID: fmt.Sprint(start + 2), Data: petGone{ID: 7}, Retry: time.Second}); err != nil {
				return err
			}
			if err := send(Event{Data: "an undeclared type"}); err == nil {
				return fmt.Errorf("an undeclared event type was sent")
			}
			if ready != nil {
				close(ready)
			}
			<-ctx.Done()
			return nil
		}, func(op *Op) { op.Heartbeat = 20 * time.Millisecond })
	return r
}

// Typed events are sent as id, event and data lines and flushed at once;
// Last-Event-ID reaches the handler; heartbeats keep the connection busy;
// a bad input is a problem before the stream starts; the document shows
// text/event-stream with each event's schema.
func TestEventStream(t *testing.T) {
	srv := httptest.NewServer(streamRouter(nil))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/pets/events", nil)
	req.Header.Set("Last-Event-ID", "41")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != EventStreamType {
		t.Fatalf("%d %v", res.StatusCode, res.Header)
	}
	sc := bufio.NewScanner(res.Body)
	events, _ := readEvents(t, sc, 2)
	want := []sse{{"42", "created", `{"id":7,"name":"Rex\nthe dog"}`}, {"43", "deleted", `{"id":7}`}}
	if fmt.Sprint(events) != fmt.Sprint(want) {
		t.Errorf("events %q, want %q", events, want)
	}
	deadline := time.Now().Add(5 * time.Second)
	comments := 0
	for comments < 2 && time.Now().Before(deadline) && sc.Scan() {
		if strings.HasPrefix(sc.Text(), ":") {
			comments++
		}
	}
	if comments < 2 {
		t.Errorf("no heartbeats")
	}
	res.Body.Close()

	w := serve(streamRouter(nil), "GET", "/pets/events?limit=99", "")
	if w.Code != 422 || w.Header().Get("Content-Type") != "application/problem+json" {
		t.Errorf("bad input: %d %s", w.Code, w.Body)
	}
	d := streamRouter(nil).Operations()[0]
	c := d.Responses[0].Content[0]
	if c.MediaType != EventStreamType || len(c.Schema.OneOf) != 2 || c.Schema.OneOf[0].Properties["event"].Const != "created" {
		t.Errorf("documented %+v", d.Responses[0])
	}
}

// A vane.Server ending ends its event streams, so that shutdown does not
// wait for them.
func TestEventStreamEndsAtShutdown(t *testing.T) {
	ready := make(chan struct{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &Server{Handler: streamRouter(ready), Signals: []os.Signal{}, ShutdownTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	res, err := http.Get("http://" + ln.Addr().String() + "/pets/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	<-ready
	start := time.Now()
	stop()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("shutdown waited for the open event stream")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("shutdown took %v", d)
	}
}
