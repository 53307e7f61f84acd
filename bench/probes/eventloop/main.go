// Command eventloop is a probe, not an engine: the end-to-end route of
// bench/cmd/serve (GET /items/{id}?verbose=true, Authorization required,
// e2e.NewItem's JSON by encoding/json) written by hand on gnet's event
// loop, to measure what an event-loop engine gains over fasthttp's
// goroutine a connection, with fiber's hand-written handler as the other
// side (docs/design/2026-11-28-event-loop-probe.md).
//
//	eventloop -addr 127.0.0.1:19801            # answers on the event loop
//	eventloop -addr 127.0.0.1:19801 -handoff   # the same answer, written from a pooled goroutine
//
// It reads only what wrk sends (no bodies, no chunking, no limits) and is
// never to be used to serve anything.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"log"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"
	"github.com/panjf2000/gnet/v2/pkg/pool/goroutine"
)

// item is e2e.Item's JSON.
type item struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Price   float64  `json:"price"`
	Tags    []string `json:"tags"`
	Verbose bool     `json:"verbose"`
}

var (
	headEnd      = []byte("\r\n\r\n")
	crlf         = []byte("\r\n")
	itemsPrefix  = []byte("/items/")
	verboseTrue  = []byte("verbose=true")
	unauthorized = "HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\nContent-Length: 21\r\n\r\nmissing Authorization"
	notFound     = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
)

// answer appends to out the answers to every whole request at the start
// of in and returns how many bytes of in they took; date is the Date
// field's value. Like fiber's handler, it reads the request in place: the
// only allocations a request are the item's strings and its JSON.
func answer(out, in []byte, date string) ([]byte, int) {
	used := 0
	for {
		end := bytes.Index(in[used:], headEnd)
		if end < 0 {
			return out, used
		}
		head := in[used : used+end+2] // the request line and the header lines, each ending in CRLF
		used += end + 4
		line, fields, _ := bytes.Cut(head, crlf)
		method, rest, _ := bytes.Cut(line, []byte(" "))
		target, _, ok := bytes.Cut(rest, []byte(" "))
		if !ok || string(method) != "GET" || !bytes.HasPrefix(target, itemsPrefix) {
			out = append(out, notFound...)
			continue
		}
		if !hasField(fields, "authorization") {
			out = append(out, unauthorized...)
			continue
		}
		id, query, _ := bytes.Cut(target[len(itemsPrefix):], []byte("?"))
		path := string(id)
		body, _ := json.Marshal(item{ID: path, Name: "Item " + path, Price: 9.99, Tags: []string{"a", "b"}, Verbose: bytes.Equal(query, verboseTrue)})
		out = append(out, "HTTP/1.1 200 OK\r\nServer: eventloop\r\nDate: "...)
		out = append(out, date...)
		out = append(out, "\r\nContent-Type: application/json\r\nContent-Length: "...)
		out = strconv.AppendInt(out, int64(len(body)), 10)
		out = append(out, "\r\n\r\n"...)
		out = append(out, body...)
	}
}

// hasField reports whether the header lines (each ending in CRLF) hold a
// field named name, which is lower case; names compare without case.
func hasField(lines []byte, name string) bool {
	for len(lines) > 0 {
		var line []byte
		line, lines, _ = bytes.Cut(lines, crlf)
		if n, _, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(n, []byte(name)) {
			return true
		}
	}
	return false
}

type server struct {
	gnet.BuiltinEventEngine
	handoff bool
	pool    *goroutine.Pool
	date    atomic.Value // string: the Date field, set by OnTick's goroutine
	out     []byte       // the event loop's answers, reused (there is one loop)
}

func (s *server) OnTick() (time.Duration, gnet.Action) {
	s.date.Store(time.Now().UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT"))
	return time.Second, gnet.None
}

func (s *server) OnTraffic(c gnet.Conn) gnet.Action {
	in, _ := c.Peek(-1)
	if s.handoff {
		// The answer is made on the loop either way; this measures the
		// handoff alone: a pooled goroutine's wake and AsyncWrite, with an
		// answer of its own, since the goroutine writes it later.
		out, used := answer(nil, in, s.date.Load().(string))
		c.Discard(used)
		if len(out) > 0 {
			s.pool.Submit(func() { c.AsyncWrite(out, nil) })
		}
		return gnet.None
	}
	// On the loop, Write copies the answer out before it returns, so one
	// buffer serves every connection of the loop.
	out, used := answer(s.out[:0], in, s.date.Load().(string))
	s.out = out
	c.Discard(used)
	if len(out) > 0 {
		c.Write(out)
	}
	return gnet.None
}

func main() {
	addr := flag.String("addr", "127.0.0.1:18080", "loopback address to listen on")
	handoff := flag.Bool("handoff", false, "write each answer from a pooled goroutine (AsyncWrite), not from the event loop")
	flag.String("impl", "", "ignored: accepted so that the by-hand pairing scripts can start it as they start bench/cmd/serve")
	flag.Parse()
	if !strings.HasPrefix(*addr, "127.0.0.1:") {
		log.Fatal("eventloop listens on loopback only")
	}
	s := &server{handoff: *handoff, pool: goroutine.Default()}
	s.OnTick()
	log.Fatal(gnet.Run(s, "tcp://"+*addr, gnet.WithMulticore(false), gnet.WithTicker(true)))
}
