package bind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"

	"github.com/vane-http/vane/problem"
)

// The body buffers: pooled, since no handler ever sees them (the codec
// copies what it keeps, and a []byte body is copied out).
const (
	// initialBuffer is the capacity of a new pooled buffer.
	initialBuffer = 4 << 10

	// maxPooled is the largest capacity put back in the pool: a buffer
	// that grew past it for one large body is left to the garbage
	// collector, so that the pool does not keep a large body's memory
	// for small ones.
	maxPooled = 64 << 10

	// maxPresize is as far as a declared Content-Length sizes the buffer
	// before any byte arrives; past it, the buffer grows as bytes do.
	maxPresize = maxPooled

	// maxEmptyReads is how many reads in a row may return nothing before
	// the body counts as stalled (io.ErrNoProgress), as bufio does.
	maxEmptyReads = 100
)

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, initialBuffer); return &b }}

func getBuffer() *[]byte { return bufPool.Get().(*[]byte) }

func putBuffer(bp *[]byte) {
	if cap(*bp) > maxPooled {
		return
	}
	*bp = (*bp)[:0]
	bufPool.Put(bp)
}

// bodyEmpty reports a request that has no body for sure.
func bodyEmpty(req *Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.ContentLength == 0
}

// readBody reads the body into a pooled buffer, kept in st, enforcing the
// limit: a Content-Length over it is refused before reading, and the
// buffer never grows past limit+1 bytes. Memory follows the bytes that
// arrive: a Content-Length sizes the buffer up to maxPresize only.
func (b *Binder) readBody(req *Request, st *State) ([]byte, *problem.Details) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	limit := b.limit
	if limit > 0 && req.ContentLength > limit {
		return nil, tooLarge(limit)
	}
	bp := getBuffer()
	st.buf = bp
	buf := (*bp)[:0]
	if n := req.ContentLength; n > int64(cap(buf)) {
		n = min(n+1, maxPresize) // +1: room to see the end without growing
		if limit > 0 {
			n = min(n, limit+1)
		}
		buf = growTo(buf, int(n))
	}
	empty := 0
	for {
		if len(buf) == cap(buf) {
			n := 2 * cap(buf)
			if limit > 0 && int64(n) > limit+1 {
				n = int(limit + 1)
			}
			buf = growTo(buf, n)
		}
		n, err := req.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if limit > 0 && int64(len(buf)) > limit {
			*bp = buf
			return nil, tooLarge(limit)
		}
		if err == io.EOF {
			break
		}
		if err == nil && n == 0 {
			if empty++; empty >= maxEmptyReads {
				err = io.ErrNoProgress
			}
		} else {
			empty = 0
		}
		if err != nil {
			*bp = buf
			return nil, readError(err)
		}
	}
	*bp = buf
	return buf, nil
}

// growTo returns buf with capacity n (> cap(buf)) and the same contents.
func growTo(buf []byte, n int) []byte {
	nb := make([]byte, len(buf), n)
	copy(nb, buf)
	return nb
}

// readError is the problem for a body that could not be read.
func readError(err error) *problem.Details {
	var mbe *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &mbe):
		return tooLarge(mbe.Limit)
	case errors.Is(err, errBadGzip):
		return problem.New(http.StatusBadRequest, errBadGzip.Error())
	case errors.Is(err, io.ErrNoProgress):
		return problem.New(http.StatusBadRequest, "the request body made no progress")
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return problem.New(http.StatusRequestTimeout, "the request body did not arrive in time")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return problem.New(http.StatusBadRequest, "the request body ended before its declared length")
	}
	return problem.New(http.StatusBadRequest, "reading the request body failed")
}

func tooLarge(limit int64) *problem.Details {
	return problem.New(http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than the limit of %d bytes", limit))
}
