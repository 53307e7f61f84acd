package fast

import (
	"errors"
	"io"
	"net/http"
	"sync"

	"github.com/valyala/fasthttp"
)

// body is a request's body as its handler reads it: fasthttp's stream of
// it, at most limit bytes (more is an *http.MaxBytesError, which typed
// operations answer 413), and nothing once the request is done (done):
// a goroutine that reads it late gets an error, never the bytes of the
// connection's next request. One per request with a body, never pooled.
type body struct {
	mu     sync.Mutex
	r      io.Reader // fasthttp's stream; nil once done
	limit  int64     // 0: none
	n      int64
	eof    bool
	closed bool // the handler closed it
}

var errBodyDone = errors.New("fast: the request body is no longer readable: its request is done")

func (b *body) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed:
		return 0, http.ErrBodyReadAfterClose
	case b.r == nil:
		return 0, errBodyDone
	case b.eof:
		return 0, io.EOF
	}
	if b.limit > 0 {
		if b.n > b.limit {
			return 0, &http.MaxBytesError{Limit: b.limit}
		}
		if rest := b.limit + 1 - b.n; int64(len(p)) > rest {
			p = p[:rest] // one byte past the limit tells a body over it
		}
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	if err == io.EOF {
		b.eof = true
	}
	if b.limit > 0 && b.n > b.limit {
		return n - int(b.n-b.limit), &http.MaxBytesError{Limit: b.limit}
	}
	return n, err
}

// Close makes later reads fail, as net/http's request body does; the
// engine still reads what is left, to reuse the connection.
func (b *body) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	return nil
}

// maxDrain is how much of a body its handler did not read the engine
// reads to keep the connection (net/http's figure); past it, it closes
// the connection instead.
const maxDrain = 256 << 10

// finish ends the body's request: reads fail from now on, and what the
// handler left unread is read and dropped, up to maxDrain, or the
// connection is closed after the answer: fasthttp would read the rest as
// the next request. length is the declared length, -1 for chunked.
func (b *body) finish(c *fasthttp.RequestCtx, length int64) {
	b.mu.Lock() // waits for a read in progress
	r, eof, read := b.r, b.eof, b.n
	b.r = nil
	b.mu.Unlock()
	if eof || r == nil {
		return
	}
	if length >= 0 && length-read > maxDrain {
		lingerAfter(c)
		return
	}
	if n, err := io.CopyN(io.Discard, r, maxDrain+1); err != io.EOF || n > maxDrain {
		lingerAfter(c)
	}
}
