package bind

import (
	"compress/gzip"
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
// body as it is. Any other coding, or more than one, is a 415 whose
// Accept-Encoding names gzip; a body that is not gzip is a 400.
func DecodeBody(req *http.Request, limit int64) (*http.Request, *problem.Details) {
	codings := req.Header["Content-Encoding"]
	if len(codings) == 0 {
		return req, nil
	}
	coding := strings.TrimSpace(strings.Join(codings, ","))
	switch {
	case coding == "" || strings.EqualFold(coding, "identity"):
		return req, nil
	case !strings.EqualFold(coding, "gzip") && !strings.EqualFold(coding, "x-gzip"):
		p := problem.New(http.StatusUnsupportedMediaType, "the request body's Content-Encoding "+quote(coding)+" is not one vane decodes: send it as it is, or with gzip")
		return nil, p.WithHeader("Accept-Encoding", AcceptEncoding)
	}
	if req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	raw := req.Body
	if limit > 0 {
		raw = http.MaxBytesReader(nil, raw, limit)
	}
	zr, err := gzip.NewReader(raw)
	if err != nil {
		if prob := readError(err); prob.Status != http.StatusBadRequest {
			return nil, prob // too large, or too slow
		}
		return nil, problem.New(http.StatusBadRequest, "the request body is not gzip, as its Content-Encoding says")
	}
	zr.Multistream(false)
	r2 := new(http.Request)
	*r2 = *req
	r2.Body = struct {
		io.Reader
		io.Closer
	}{zr, req.Body}
	r2.ContentLength = -1 // the decompressed length is unknown
	return r2, nil
}

func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return `"` + s + `"`
}
