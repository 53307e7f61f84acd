package fast

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/middleware"
)

// The hazard test of the native path, in the style of conformance/hazard:
// fasthttp reuses its RequestCtx, with its header and body buffers, for
// the next request on a connection, so a handler that keeps what it was
// given would see the next request's bytes if the engine had handed it
// fasthttp's memory. Each round, a first request's handler keeps its
// input, its body's bytes and json.RawMessage, and its context, and
// leaves a goroutine reading them; later requests of the same shapes and
// lengths but other bytes are then served on the same connection (the
// same RequestCtx), some pipelined, and one more is held in flight on
// another; only then is what was kept read: it must be the first
// request's, and its context valid. Under -race, a write by fasthttp
// into memory the goroutine reads is reported as a race.

type keptBody struct {
	Name string          `json:"name"`
	Raw  json.RawMessage `json:"raw"`
	Tags []string        `json:"tags"`
}

type keptIn struct {
	ID   string   `path:"id"`
	Role string   `query:"role"`
	Q    string   `query:"q"`
	H    string   `header:"X-H"`
	L    []string `header:"X-L"`
	C    string   `cookie:"c"`
	Body keptBody
}

type keptBytesIn struct {
	ID   string `path:"id"`
	Role string `query:"role"`
	Body []byte
}

type keptReaderIn struct {
	ID   string `path:"id"`
	Role string `query:"role"`
	Body io.Reader
}

type keptFormIn struct {
	ID   string `path:"id"`
	Role string `query:"role"`
	Body struct {
		Name string   `form:"name"`
		Tags []string `form:"tag"`
	}
}

// kept is what a first request's handler kept.
type kept struct {
	id      string
	in      *keptIn
	bytes   *keptBytesIn
	form    *keptFormIn
	reader  *keptReaderIn
	ctx     context.Context
	stop    chan struct{}
	stopped chan struct{}
}

type hazardRig struct {
	t       *testing.T
	mu      sync.Mutex
	kept    map[string]*kept
	held    chan string
	release chan struct{}
}

// keep records what the handler of a first request was given, and
// starts a goroutine that reads it until the round ends.
func (h *hazardRig) keep(ctx context.Context, k *kept) {
	k.ctx, k.stop, k.stopped = ctx, make(chan struct{}), make(chan struct{})
	h.mu.Lock()
	h.kept[k.id] = k
	h.mu.Unlock()
	go func() {
		defer close(k.stopped)
		for {
			select {
			case <-k.stop:
				return
			default:
			}
			_ = k.snapshot() // read, for the race detector
			time.Sleep(50 * time.Microsecond)
		}
	}()
}

// snapshot is everything the kept values say, as one string.
func (k *kept) snapshot() string {
	switch {
	case k.in != nil:
		in := k.in
		return fmt.Sprint(in.ID, "|", in.Q, "|", in.H, "|", in.L, "|", in.C, "|", in.Body.Name, "|", string(in.Body.Raw), "|", in.Body.Tags)
	case k.bytes != nil:
		return k.bytes.ID + "|" + string(k.bytes.Body)
	case k.reader != nil:
		return k.reader.ID
	}
	return fmt.Sprint(k.form.ID, "|", k.form.Body.Name, "|", k.form.Body.Tags)
}

func (h *hazardRig) router() *vane.Router {
	r := vane.New()
	r.Use(middleware.RequestID)
	hold := func(role, id string) {
		if role == "held" {
			h.held <- id
			<-h.release
		}
	}
	vane.Post(r, "/json/{id}", func(ctx context.Context, in *keptIn) (*struct{}, error) {
		if in.Role == "first" {
			h.keep(ctx, &kept{id: in.ID, in: in})
		}
		hold(in.Role, in.ID)
		return nil, nil
	})
	vane.Post(r, "/bytes/{id}", func(ctx context.Context, in *keptBytesIn) (*struct{}, error) {
		if in.Role == "first" {
			h.keep(ctx, &kept{id: in.ID, bytes: in})
		}
		hold(in.Role, in.ID)
		return nil, nil
	})
	vane.Post(r, "/reader/{id}", func(ctx context.Context, in *keptReaderIn) (*struct{}, error) {
		if in.Role == "first" {
			h.keep(ctx, &kept{id: in.ID, reader: in}) // the body left unread
		} else {
			io.Copy(io.Discard, in.Body)
		}
		hold(in.Role, in.ID)
		return nil, nil
	})
	vane.Post(r, "/form/{id}", func(ctx context.Context, in *keptFormIn) (*struct{}, error) {
		if in.Role == "first" {
			h.keep(ctx, &kept{id: in.ID, form: in})
		}
		hold(in.Role, in.ID)
		return nil, nil
	})
	return r
}

// hazardRequest is a request of one shape (json, bytes, form) whose every
// value is made of the letter c, the same length whatever c: a kept string
// that pointed into a buffer reused for a later request would read that
// request's letter.
func hazardRequest(shape, role string, c byte) (id, raw, want string) {
	v := func(n int) string { return strings.Repeat(string(c), n) }
	id = shape + "-" + role + "-" + v(12)
	target := "/" + shape + "/" + id + "?role=" + role
	var body, ctype string
	var extra []string
	switch shape {
	case "json":
		target += "&q=" + v(20)
		extra = []string{"X-H: " + v(30), "X-L: " + v(5) + ", " + v(6), "X-L: " + v(7), "Cookie: c=" + v(9) + "; d=1", "X-Request-Id: rid-" + v(16)}
		body = `{"name":"` + v(25) + `","raw":{"k":"` + v(40) + `","n":[1,2]},"tags":["` + v(3) + `","` + v(4) + `"]}`
		ctype = "application/json"
		want = fmt.Sprint(id, "|", v(20), "|", v(30), "|", []string{v(5), v(6), v(7)}, "|", v(9), "|", v(25), "|",
			`{"k":"`+v(40)+`","n":[1,2]}`, "|", []string{v(3), v(4)})
	case "bytes":
		body, ctype = v(300), "application/octet-stream"
		want = id + "|" + v(300)
	case "reader":
		body, ctype = v(200), "application/octet-stream"
		want = id
	case "form":
		body, ctype = "name="+v(22)+"&tag="+v(3)+"&tag="+v(5), "application/x-www-form-urlencoded"
		want = fmt.Sprint(id, "|", v(22), "|", []string{v(3), v(5)})
	}
	raw = req("POST", target, body, append(extra, "Content-Type: "+ctype)...)
	return id, raw, want
}

// conn is a keep-alive client connection.
type conn struct {
	t  *testing.T
	c  net.Conn
	rd *bufio.Reader
}

func dial(t *testing.T, addr string) *conn {
	c, err := net.DialTimeout("tcp", addr, patience)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &conn{t, c, bufio.NewReader(c)}
}

// send writes raw (one or more requests) and reads n answers, each a 204.
func (c *conn) send(raw string, n int) {
	c.t.Helper()
	c.c.SetDeadline(time.Now().Add(patience))
	if _, err := io.WriteString(c.c, raw); err != nil {
		c.t.Fatal(err)
	}
	for range n {
		res, err := http.ReadResponse(c.rd, nil)
		if err != nil {
			c.t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusNoContent {
			c.t.Fatalf("answered %d", res.StatusCode)
		}
	}
}

func TestHazardNative(t *testing.T) {
	for _, eng := range engines {
		t.Run(strings.ReplaceAll(eng, "/", ""), func(t *testing.T) { testHazard(t, eng) })
	}
}

func testHazard(t *testing.T, eng string) {
	rig := &hazardRig{t: t, kept: map[string]*kept{}, held: make(chan string), release: make(chan struct{})}
	r := rig.router()
	if eng == "fast" {
		for _, rt := range Routes(r) {
			if !rt.Native {
				t.Fatalf("%s %s is not native: %s", rt.Method, rt.Pattern, rt.Reason)
			}
		}
	}
	addr := serveOn(t, eng, r, nil)
	main, other := dial(t, addr), dial(t, addr)
	letters := "abcdefghijklmnopqrstuvwxyz"
	for round := range 6 {
		for _, shape := range []string{"json", "bytes", "form", "reader"} {
			first := letters[round*4%26]
			id, raw, want := hazardRequest(shape, "first", first)
			main.send(raw, 1)
			// Later requests on the same connection, one at a time, then
			// three pipelined.
			var pipelined strings.Builder
			for i := 1; i <= 6; i++ {
				_, later, _ := hazardRequest(shape, "later", letters[(round*4+i)%26])
				if i <= 3 {
					main.send(later, 1)
				} else {
					pipelined.WriteString(later)
				}
			}
			main.send(pipelined.String(), 3)
			// One more held in flight on the other connection.
			heldID, held, _ := hazardRequest(shape, "held", letters[(round*4+7)%26])
			done := make(chan struct{})
			go func() { defer close(done); other.send(held, 1) }()
			select {
			case got := <-rig.held:
				if got != heldID {
					t.Fatalf("held %q, want %q", got, heldID)
				}
			case <-time.After(patience):
				t.Fatal("the held request did not arrive")
			}
			rig.mu.Lock()
			k := rig.kept[id]
			rig.mu.Unlock()
			if k == nil {
				t.Fatalf("%s: nothing kept", id)
			}
			if got := k.snapshot(); got != want {
				t.Errorf("round %d, %s: after later requests, the kept input reads\n%s\nwant\n%s", round, shape, got, want)
			}
			if shape == "json" {
				if !errors.Is(k.ctx.Err(), context.Canceled) {
					t.Errorf("%s: kept context's Err is %v, want context.Canceled once the handler returned", id, k.ctx.Err())
				}
				if rid := middleware.RequestIDFrom(k.ctx); rid != "rid-"+strings.Repeat(string(first), 16) {
					t.Errorf("%s: kept context's request ID is %q", id, rid)
				}
				if err := context.WithoutCancel(k.ctx).Err(); err != nil {
					t.Errorf("%s: context.WithoutCancel of the kept context: %v", id, err)
				}
			}
			if shape == "reader" {
				// Read once the request is done: an error, never bytes of
				// the requests served since.
				if b, err := io.ReadAll(k.reader.Body); err == nil || len(b) > 0 {
					t.Errorf("%s: the kept body read %q, %v after its request; want nothing and an error", id, b, err)
				}
			}
			rig.release <- struct{}{}
			<-done
			close(k.stop)
			<-k.stopped
		}
	}
}
