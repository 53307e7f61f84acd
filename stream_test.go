package vane

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vane-http/vane/internal/memnet"
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
		}, Heartbeat(20*time.Millisecond))
	return r
}

// Typed events are sent as id, event and data lines and flushed at once;
// Last-Event-ID reaches the handler; heartbeats keep the connection busy;
// a bad input is a problem before the stream starts; the document shows
// text/event-stream with each event's schema.
func TestEventStream(t *testing.T) {
	srv := httptest.NewServer(streamRouter(nil))
	defer srv.Close()
	// A minute: a generous limit on a real socket for the two heartbeats,
	// which come 20 ms apart; it cancels a read that would block for ever.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/pets/events", nil)
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
	comments := 0
	for comments < 2 && sc.Scan() {
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
	sr := streamRouter(nil)
	d := sr.Operations()[0]
	c := d.Responses[0].Content[0]
	if c.MediaType != EventStreamType || len(c.Schema.OneOf) != 2 ||
		sr.Schemas().Resolve(c.Schema.OneOf[0]).Properties["event"].Const != "created" {
		t.Errorf("documented %+v", d.Responses[0])
	}
	// The discriminator names each event's component, for generators
	// that map a oneOf to types.
	if disc := c.Schema.Discriminator; disc == nil || disc.PropertyName != "event" ||
		disc.Mapping["deleted"] != "#/components/schemas/get-pets-events.deleted" || c.Schema.OneOf[1].Ref != disc.Mapping["deleted"] {
		t.Errorf("discriminator %+v, branches %v %v", disc, c.Schema.OneOf[0].Ref, c.Schema.OneOf[1].Ref)
	}
}

// A vane.Server ending ends its event streams, so that shutdown does not
// wait for them: on the synctest bubble's clock the stream ends with no
// time passed after the cancellation, and Serve returns at net/http's
// first check of its connections (1 ms, with jitter), where a shutdown
// that waited for the stream would return at its ShutdownTimeout.
func TestEventStreamEndsAtShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ready := make(chan struct{})
		ln := memnet.Listen()
		ctx, stop := context.WithCancel(context.Background())
		s := &Server{Handler: streamRouter(ready), NoSignals: true, ShutdownTimeout: 10 * time.Second,
			Logger: slog.New(slog.DiscardHandler)}
		served := make(chan error, 1)
		go func() { served <- s.Serve(ctx, ln) }()
		client := ln.Client()
		res, err := client.Get("http://memnet/pets/events")
		if err != nil {
			t.Fatal(err)
		}
		// The client reads what comes (a pipe holds back the server's
		// writes until it does), until the stream ends.
		read := make(chan struct{})
		go func() {
			defer close(read)
			io.Copy(io.Discard, res.Body)
		}()
		<-ready
		start := time.Now()
		stop()
		<-read
		if d := time.Since(start); d != 0 {
			t.Errorf("the stream ended %v after the cancellation, want at once", d)
		}
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		if d := time.Since(start); d > 10*time.Millisecond {
			t.Errorf("shutdown took %v: it waited for the open event stream", d)
		}
		res.Body.Close()
		client.CloseIdleConnections()
	})
}

// A client that stops reading does not hold its stream, or the server's
// shutdown, for ever: the blocked write ends when shutdown starts. On
// memnet a write blocks as soon as the client stops reading (a pipe has no
// buffer). On the synctest bubble's clock the send ends with no time
// passed after the cancellation, and Serve at net/http's first check of
// its connections, not at StreamWriteTimeout.
func TestEventStreamStalledClientAtShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ln := memnet.Listen()
		r := New()
		returned := make(chan error, 1)
		big := strings.Repeat("x", 64<<10)
		Stream(r, "/flood", map[string]any{"created": petEvent{}}, func(ctx context.Context, _ *struct{}, send Sender) error {
			for i := 0; ; i++ {
				if err := send(Event{Data: petEvent{ID: i, Name: big}}); err != nil {
					returned <- err
					return err
				}
			}
		}, Heartbeat(Off))
		ctx, stop := context.WithCancel(context.Background())
		s := &Server{Handler: r, NoSignals: true, ShutdownTimeout: 20 * time.Second, Logger: slog.New(slog.DiscardHandler)}
		served := make(chan error, 1)
		go func() { served <- s.Serve(ctx, ln) }()
		conn, err := ln.Dial(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "GET /flood HTTP/1.1\r\nHost: x\r\n\r\n") // and never read
		// The writer is now blocked on the connection.
		synctest.Wait()
		select {
		case err := <-returned:
			t.Fatalf("the stream ended before the client stopped reading: %v", err)
		default:
		}
		start := time.Now()
		stop()
		if err := <-returned; err != ErrStreamClosed {
			t.Errorf("send: %v", err)
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("the send to a client that stopped reading ended %v after the cancellation, want at once", d)
		}
		<-served
		if d := time.Since(start); d > 10*time.Millisecond {
			t.Errorf("shutdown took %v: it waited for the stalled stream", d)
		}
		conn.Close()
	})
}

// HEAD answers the stream's headers and ends, without running the
// handler; the stream opens with a flushed comment, so its headers reach
// the client through buffering middleware at once; past MaxStreams, 503
// with Retry-After.
func TestEventStreamHeadOpenAndLimit(t *testing.T) {
	ran := make(chan struct{}, 4)
	release := make(chan struct{})
	r := New(MaxStreams(1))
	Stream(r, "/s", map[string]any{"created": petEvent{}}, func(ctx context.Context, _ *struct{}, send Sender) error {
		ran <- struct{}{}
		select {
		case <-ctx.Done():
		case <-release:
		}
		return nil
	}, Heartbeat(Off))
	w := serve(r, "HEAD", "/s", "")
	if w.Code != 200 || w.Header().Get("Content-Type") != EventStreamType || w.Body.Len() != 0 || len(ran) != 0 {
		t.Errorf("HEAD: %d %v %q, handler ran %d", w.Code, w.Header(), w.Body, len(ran))
	}
	srv := httptest.NewServer(r)
	defer srv.Close()
	res, err := http.Get(srv.URL + "/s")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	line, err := bufio.NewReader(res.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, ":") {
		t.Errorf("first line %q, %v", line, err)
	}
	<-ran
	w = serve(r, "GET", "/s", "")
	if w.Code != 503 || w.Header().Get("Retry-After") == "" || w.Header().Get("Content-Type") != "application/problem+json" ||
		w.Header().Get("X-Accel-Buffering") != "" || w.Header().Get("Cache-Control") == "no-cache" {
		t.Errorf("past MaxStreams: %d %v %s", w.Code, w.Header(), w.Body)
	}
	close(release)
	// The stream's handler returns on its own goroutine: wait for its
	// count to drop, up to a minute, a generous limit on a loaded machine.
	deadline := time.Now().Add(time.Minute)
	for r.api.streams.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := r.api.streams.Load(); n != 0 {
		t.Errorf("%d streams counted after all ended", n)
	}
	found := false
	for _, resp := range r.Operations()[0].Responses {
		found = found || resp.Status == 503
	}
	if !found {
		t.Error("503 not documented")
	}
}
