package middleware

import (
	"bufio"
	"io"
	"net"
	"net/http"
)

// responseWriter records what a handler sends: the status, the bytes of
// the body and whether the response has started. It hides none of the
// underlying writer's optional behaviour:
//
//   - Flush and FlushError (http.Flusher), Hijack (http.Hijacker) and
//     ReadFrom (io.ReaderFrom, which lets net/http use sendfile) are
//     implemented directly, for code that type-asserts; each calls the
//     underlying writer's own, through http.ResponseController, and Hijack
//     returns http.ErrNotSupported where the underlying writer cannot;
//   - everything else (SetReadDeadline, SetWriteDeadline, EnableFullDuplex)
//     is reached through Unwrap by http.ResponseController.
//
// One is allocated per request and never pooled: a handler that (wrongly)
// keeps its writer after returning must not write into another request's
// response.
type responseWriter struct {
	http.ResponseWriter
	status   int   // the final status sent; 0 until the response starts
	bytes    int64 // body bytes written
	hijacked bool
}

// started reports whether the status line has gone, or is about to go, to
// the client: the status can no longer change.
func (w *responseWriter) started() bool { return w.status != 0 || w.hijacked }

// Started, Status and Written make a responseWriter an engineWriter.
func (w *responseWriter) Started() bool  { return w.started() }
func (w *responseWriter) Status() int    { return w.statusOr(http.StatusOK) }
func (w *responseWriter) Written() int64 { return w.bytes }

// statusOr returns the status sent, or def when the response has not
// started (a handler that writes nothing gets net/http's 200).
func (w *responseWriter) statusOr(def int) int {
	if w.status == 0 {
		return def
	}
	return w.status
}

func (w *responseWriter) WriteHeader(code int) {
	// 1xx informational responses (103 Early Hints) precede the final
	// one; 101 Switching Protocols is final.
	if w.status == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// ReadFrom copies r into the response through the underlying writer's
// ReadFrom when it has one.
func (w *responseWriter) ReadFrom(r io.Reader) (int64, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(r)
	} else {
		n, err = io.Copy(writerOnly{w.ResponseWriter}, r)
	}
	w.bytes += n
	return n, err
}

// writerOnly hides every method but Write, so that io.Copy does not call
// ReadFrom again.
type writerOnly struct{ io.Writer }

func (w *responseWriter) Flush() { w.FlushError() }

// FlushError flushes the underlying writer and reports its error, as
// http.ResponseController.Flush does.
func (w *responseWriter) FlushError() error {
	if w.status == 0 {
		w.status = http.StatusOK // a flush sends the header
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack hands the connection over; the response is then the caller's.
func (w *responseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil {
		w.hijacked = true
	}
	return c, rw, err
}

// Unwrap returns the underlying ResponseWriter, for http.ResponseController.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
