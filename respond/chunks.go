package respond

import (
	"io"
	"net/http"
	"time"
)

// Downloads that make progress are not cut. A body larger than one
// chunk (a []byte over ChunkSize, or any io.Reader) is written a chunk
// at a time, and before each chunk Write extends the connection's write
// deadline (http.ResponseController.SetWriteDeadline) to now plus the
// chunk allowance: the server's WriteTimeout (from the request's
// http.ServerContextKey) when it has one, else DefaultChunkTimeout. A
// client that keeps reading is served however long the whole body takes;
// one that stops for longer than the allowance has its connection cut
// when the blocked write fails. middleware.Timeout reads the extended
// deadline the same way: a handler whose body is still being taken does
// not time out (see its documentation).
//
// Writers that cannot set deadlines (an httptest.ResponseRecorder, a
// wrapper without Unwrap) are written to all the same.

// ChunkSize is how many bytes of a body are written per write deadline.
const ChunkSize = 32 << 10

// DefaultChunkTimeout is the time one chunk of a body may take to be
// written when the server has no WriteTimeout: a client that takes less
// than 32 KiB in a minute is cut.
const DefaultChunkTimeout = 60 * time.Second

// deadlines extends a response's write deadline before each chunk.
type deadlines struct {
	rc        *http.ResponseController // nil: no deadlines to set
	allowance time.Duration
	clear     bool // the server sets none: clear ours once the body is out
}

// newDeadlines prepares the write deadlines of the answer w to req.
func newDeadlines(w http.ResponseWriter, req *http.Request) deadlines {
	d := deadlines{allowance: DefaultChunkTimeout}
	if req == nil {
		return d
	}
	d.rc = http.NewResponseController(w)
	d.clear = true
	if srv, ok := req.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.WriteTimeout > 0 {
		d.allowance, d.clear = srv.WriteTimeout, false
	}
	return d
}

// extend gives the next chunk the allowance from now.
func (d *deadlines) extend() {
	if d.rc != nil {
		if d.rc.SetWriteDeadline(time.Now().Add(d.allowance)) != nil {
			d.rc = nil // not supported: stop trying
		}
	}
}

// done clears the deadline set for the body when the server sets none of
// its own, so that the connection's next response is not bound by it.
// net/http sets its WriteTimeout afresh for each request otherwise.
func (d *deadlines) done() {
	if d.rc != nil && d.clear {
		d.rc.SetWriteDeadline(time.Time{}) //nolint:errcheck // supported: extend succeeded
	}
}

// writeChunks writes b, a chunk at a time when it is larger than one,
// and reports the first failed write (the client went away, or stopped
// reading for longer than the allowance).
func writeChunks(w http.ResponseWriter, d *deadlines, b []byte) error {
	if len(b) <= ChunkSize {
		_, err := w.Write(b)
		return err
	}
	for len(b) > 0 {
		n := min(len(b), ChunkSize)
		d.extend()
		if _, err := w.Write(b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// copyChunks copies r to w a chunk at a time, through w's io.ReaderFrom
// when it has one (sendfile for an *os.File), and reports the first
// failed write, or read.
func copyChunks(w http.ResponseWriter, d *deadlines, r io.Reader) error {
	buf := make([]byte, ChunkSize)
	lr := &io.LimitedReader{R: r}
	for {
		lr.N = ChunkSize
		d.extend()
		n, err := io.CopyBuffer(w, lr, buf)
		if err != nil {
			return err
		}
		if n < ChunkSize {
			return nil // r has ended
		}
	}
}

// copyFlushing copies r to w, flushing after every read when w can flush,
// so that a reader that produces data slowly (a pipe, a log tail) reaches
// the client as it comes; each write gets the chunk allowance. A failed
// write means the client went away.
func copyFlushing(w http.ResponseWriter, d *deadlines, r io.Reader) {
	f, ok := w.(http.Flusher)
	if !ok {
		copyChunks(w, d, r) //nolint:errcheck // see above
		return
	}
	buf := make([]byte, ChunkSize)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			d.extend()
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			f.Flush()
		}
		if err != nil {
			return
		}
	}
}
