package bind

import (
	"compress/flate"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/vane-http/vane/problem"
)

// AcceptEncoding is the request content codings vane decodes, as a 415
// for another coding names them in its Accept-Encoding header (RFC 9110
// section 15.5.16).
const AcceptEncoding = "gzip"

// DecodeBody returns req, or a copy of it whose body is its content
// decoded: a body sent with Content-Encoding gzip is decompressed, the
// compressed bytes and the decompressed ones each bounded by limit (the
// decompressed by the reading that follows), so that a small body that
// inflates to gigabytes costs what the limit allows; identity is the
// body as it is. Any other coding (deflate, br, zstd), or more than one,
// is a 415 whose Accept-Encoding names gzip; a body that does not begin
// as gzip is a 400.
//
// A gzip body is every member it holds, one after the other (RFC 1952
// section 2.2: a file of several members decompresses to their
// contents joined). Reading it fails, a 400 for a typed operation, when
// a member is corrupt or cut short, or bytes that begin no member follow
// the last one: nothing after the data is ignored. The error's text is
// meant for the client.
func DecodeBody(req *http.Request, limit int64) (*http.Request, *problem.Details) {
	if len(req.Header["Content-Encoding"]) == 0 {
		return req, nil
	}
	body, prob := decodeBody(req.Header["Content-Encoding"], req.Body, limit)
	if prob != nil || body == req.Body {
		return req, prob
	}
	r2 := new(http.Request)
	*r2 = *req
	r2.Body = body
	r2.ContentLength = -1 // the decompressed length is unknown
	return r2, nil
}

// decodeRequest is DecodeBody for a Request: req itself, or a copy of it
// whose body is its content decoded.
func decodeRequest(req *Request, limit int64) (*Request, *problem.Details) {
	body, prob := decodeBody(req.Header["Content-Encoding"], req.Body, limit)
	if prob != nil || body == req.Body {
		return req, prob
	}
	r2 := *req
	r2.Body = body
	r2.ContentLength = -1 // the decompressed length is unknown
	return &r2, nil
}

// decodeBody returns body decoded by the content codings: body itself for
// none or identity, else a reader of its gzip members whose Close closes
// body (see DecodeBody).
func decodeBody(codings []string, body io.ReadCloser, limit int64) (io.ReadCloser, *problem.Details) {
	if len(codings) == 0 {
		return body, nil
	}
	coding := strings.TrimSpace(strings.Join(codings, ","))
	switch {
	case coding == "" || strings.EqualFold(coding, "identity"):
		return body, nil
	case !strings.EqualFold(coding, "gzip") && !strings.EqualFold(coding, "x-gzip"):
		p := problem.New(http.StatusUnsupportedMediaType, "the request body's Content-Encoding "+quote(coding)+" is not one vane decodes: send it as it is, or with gzip")
		return nil, p.WithHeader("Accept-Encoding", AcceptEncoding)
	}
	if body == nil || body == http.NoBody {
		return body, nil
	}
	var raw io.Reader = body
	if limit > 0 {
		raw = http.MaxBytesReader(nil, body, limit)
	}
	zr, err := gzip.NewReader(raw)
	if err != nil {
		if prob := readError(err); prob.Status != http.StatusBadRequest {
			return nil, prob // too large, or too slow
		}
		return nil, problem.New(http.StatusBadRequest, "the request body is not gzip, as its Content-Encoding says")
	}
	return struct {
		io.Reader
		io.Closer
	}{gzipMembers{zr}, body}, nil
}

// gzipMembers reads every member of a gzip body (gzip.Reader's
// multistream mode), its errors about the gzip data itself made an
// errBadGzip; the body's own errors (too large, too slow) pass as they
// are.
type gzipMembers struct{ zr *gzip.Reader }

func (g gzipMembers) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if err != nil && err != io.EOF && badGzip(err) {
		err = errBadGzip
	}
	return n, err
}

// badGzip reports whether err, from a gzip.Reader, is about the data: a
// header that is no gzip member's (bytes after the last member among
// them), a checksum or size that does not match, corrupt deflate data,
// or data that ends inside a member.
func badGzip(err error) bool {
	var corrupt flate.CorruptInputError
	return errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.As(err, &corrupt) || errors.Is(err, io.ErrUnexpectedEOF)
}

// errBadGzip is the error reading a gzip body whose data is not gzip
// throughout; its text is shown to the client.
var errBadGzip = errors.New("the request body is not gzip throughout, as its Content-Encoding says: a member is corrupt or cut short, or bytes that begin no member follow the last one")

func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return `"` + s + `"`
}
