package respond

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// Range requests (RFC 9110 section 14). A body that can be read from any
// offset, a []byte or an io.ReadSeeker, is sent whole or in part as a GET
// request's Range asks:
//
//   - one satisfiable range: 206 Partial Content with Content-Range;
//   - several: 206 with a multipart/byteranges body, one part per range;
//   - none satisfiable: 416 Range Not Satisfiable, a problem with
//     Content-Range: bytes */size;
//   - If-Range naming the current representation (a strong ETag, or the
//     Last-Modified date at its full precision) lets Range apply, and
//     anything else sends the whole body, 200.
//
// Ranges are sorted and coalesced: two that overlap, or whose gap is
// under CoalesceGap bytes (less than a part's headers cost), become one,
// as section 14.3 allows. A request is answered as if it had no Range
// (200, the whole body) when its Range is not a list of byte ranges
// (another unit, a malformed or inverted range), asks for more than
// MaxRanges ranges, or when the body is empty: section 14.2 lets a server
// ignore such a field. What a response sends is therefore never more
// than the body once, plus at most MaxRanges parts' headers, whatever the
// Range field says.

// MaxRanges is how many ranges one Range field may ask for; a field with
// more is ignored (the whole body is sent).
const MaxRanges = 16

// CoalesceGap is the gap under which two requested ranges are sent as one.
const CoalesceGap = 80

// byteRange is a part of a body: length bytes from start.
type byteRange struct {
	start, length int64
}

// rangeOutcome is what a Range field makes of an answer.
type rangeOutcome int

const (
	rangeIgnored       rangeOutcome = iota // the whole body, 200
	rangePartial                           // 206 with the ranges
	rangeUnsatisfiable                     // 416
)

// parseRange reads the Range field s for a body of size bytes (size >= 0).
// With rangePartial, the ranges are non-empty, inside [0, size), sorted by
// start, at least CoalesceGap bytes apart, and at most MaxRanges; each
// byte of a satisfiable requested range is in one of them, and every byte
// of them is either requested or in a gap under CoalesceGap between
// requested ranges. Its work is linear in len(s).
func parseRange(s string, size int64) ([]byteRange, rangeOutcome) {
	unit, set, ok := strings.Cut(s, "=")
	if !ok || !strings.EqualFold(strings.TrimRight(unit, " \t"), "bytes") || size <= 0 {
		return nil, rangeIgnored
	}
	var (
		ranges [MaxRanges]byteRange
		n      int // satisfiable ranges
		specs  int // range-specs, satisfiable or not
	)
	for set != "" {
		var spec string
		spec, set, _ = strings.Cut(set, ",")
		spec = strings.Trim(spec, " \t")
		if spec == "" {
			continue // an empty list element (RFC 9110 section 5.6.1)
		}
		if specs++; specs > MaxRanges {
			return nil, rangeIgnored
		}
		first, last, ok := strings.Cut(spec, "-")
		if !ok {
			return nil, rangeIgnored
		}
		var r byteRange
		if first == "" {
			// A suffix: the last n bytes.
			n, ok := digits(last)
			if !ok {
				return nil, rangeIgnored
			}
			if n == 0 {
				continue // unsatisfiable
			}
			r = byteRange{start: max(size-n, 0)}
			r.length = size - r.start
		} else {
			a, ok := digits(first)
			if !ok {
				return nil, rangeIgnored
			}
			end := size - 1
			if last != "" {
				b, ok := digits(last)
				if !ok || b < a {
					return nil, rangeIgnored
				}
				end = min(b, end)
			}
			if a >= size {
				continue // unsatisfiable
			}
			r = byteRange{start: a, length: end - a + 1}
		}
		ranges[n] = r
		n++
	}
	if specs == 0 {
		return nil, rangeIgnored
	}
	if n == 0 {
		return nil, rangeUnsatisfiable
	}
	return coalesce(ranges[:n]), rangePartial
}

// digits reads 1*DIGIT, saturating at the largest int64: a number larger
// than any body is as good as that one.
func digits(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (1<<63-1-9)/10 {
			v = 1<<63 - 1
			continue
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// coalesce sorts rs by start and merges those that overlap or lie under
// CoalesceGap bytes apart, in place. rs holds at most MaxRanges ranges.
func coalesce(rs []byteRange) []byteRange {
	for i := 1; i < len(rs); i++ { // insertion sort: at most MaxRanges
		for j := i; j > 0 && rs[j].start < rs[j-1].start; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
	out := rs[:1]
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		end := last.start + last.length
		if r.start-end < CoalesceGap {
			last.length = max(end, r.start+r.length) - last.start
			continue
		}
		out = append(out, r)
	}
	return out
}

// formatRanges writes rs as a Range field, "bytes=0-99,200-299".
func formatRanges(rs []byteRange) string {
	b := []byte("bytes=")
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, r.start, 10)
		b = append(b, '-')
		b = strconv.AppendInt(b, r.start+r.length-1, 10)
	}
	return string(b)
}

// contentRange is the Content-Range of r in a body of size bytes.
func contentRange(r byteRange, size int64) string {
	b := make([]byte, 0, 48)
	b = append(b, "bytes "...)
	b = strconv.AppendInt(b, r.start, 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, r.start+r.length-1, 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, size, 10)
	return string(b)
}

// ifRangeHolds reports whether the request's If-Range (RFC 9110 section
// 13.1.5) names the representation whose ETag and modification time
// (full precision; zero: none) these are, so that its Range applies: an
// entity tag matches by strong comparison (a weak tag never does), a date
// only when it is exactly the modification time, which a time with a
// fraction of a second never is (two versions in one second would share
// the date). A request without If-Range holds.
func ifRangeHolds(h http.Header, etag string, lastModified time.Time) bool {
	v := h["If-Range"]
	if len(v) == 0 {
		return true
	}
	if len(v) > 1 {
		return false
	}
	s := strings.Trim(v[0], " \t")
	if strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "W/") {
		w, tag, ok := splitETag(s)
		cw, ctag, cok := splitETag(etag)
		return ok && cok && !w && !cw && tag == ctag
	}
	t, err := http.ParseTime(s)
	return err == nil && !lastModified.IsZero() && lastModified.Equal(t)
}

// ranged is a body that can be read from any offset: a []byte (data) or
// an io.ReadSeeker (rs), of size bytes.
type ranged struct {
	data []byte
	rs   io.ReadSeeker
	size int64
}

// seekable returns the body of size bytes that rs holds from offset 0,
// as http.ServeContent reads one, and leaves rs at offset 0.
func seekable(rs io.ReadSeeker) (ranged, error) {
	size, err := rs.Seek(0, io.SeekEnd)
	if err != nil {
		return ranged{}, err
	}
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		return ranged{}, err
	}
	return ranged{rs: rs, size: size}, nil
}

// errSeek is the error of a body that cannot seek to a range's start.
var errSeek = errors.New("respond: seeking the body")

// writeRange sends length bytes of b from start to w, extending the
// write deadline for each chunk.
func (b ranged) writeRange(w http.ResponseWriter, dl *deadlines, r byteRange) error {
	if b.rs == nil {
		return writeChunks(w, dl, b.data[r.start:r.start+r.length])
	}
	if _, err := b.rs.Seek(r.start, io.SeekStart); err != nil {
		return errSeek
	}
	return copyChunks(w, dl, io.LimitReader(b.rs, r.length))
}

// rangeNotSatisfiable is the problem of a Range that no byte of a body of
// size bytes satisfies.
func rangeNotSatisfiable(size int64) *problem.Details {
	p := problem.New(http.StatusRequestedRangeNotSatisfiable,
		"none of the ranges in Range lies within the body's "+strconv.FormatInt(size, 10)+" bytes")
	p.Header = http.Header{"Content-Range": {"bytes */" + strconv.FormatInt(size, 10)}}
	return p
}

// multipartRanges is the layout of a multipart/byteranges body (RFC 9110
// section 14.6): each part's header, then its bytes, then the closing
// delimiter.
type multipartRanges struct {
	boundary string
	heads    []string
	tail     string
	length   int64 // of the whole body
}

func newMultipartRanges(rs []byteRange, size int64, contentType string) multipartRanges {
	var rnd [15]byte
	rand.Read(rnd[:]) //nolint:errcheck // crypto/rand.Read never fails
	m := multipartRanges{boundary: hex.EncodeToString(rnd[:])}
	for i, r := range rs {
		h := "--" + m.boundary + "\r\n"
		if i > 0 {
			h = "\r\n" + h
		}
		if contentType != "" {
			h += "Content-Type: " + contentType + "\r\n"
		}
		h += "Content-Range: " + contentRange(r, size) + "\r\n\r\n"
		m.heads = append(m.heads, h)
		m.length += int64(len(h)) + r.length
	}
	m.tail = "\r\n--" + m.boundary + "--\r\n"
	m.length += int64(len(m.tail))
	return m
}

var acceptRanges = []string{"bytes"}

// writeRanged sends body, a []byte or io.ReadSeeker, whole or in the
// ranges the request (hr, else req) asks for (see the comment at the top
// of this file). A successful (200) answer says Accept-Ranges: bytes; a
// Range that nothing satisfies sends nothing and returns the 416 problem.
// lastModified is the answer's modification time, needed only when the
// request has If-Range. To a BodyStreamer, a reader body's bytes are
// handed as a reader (streamRanged), never copied into the writer: it
// reports whether they were, and then the writer closes the body.
func (o *Output) writeRanged(w http.ResponseWriter, hr *http.Request, req *Request, lastModified time.Time, hdr http.Header, status int, body ranged, cookiesBefore int) (streamed bool, err error) {
	if !o.ctHeader || hdr["Content-Type"] == nil {
		hdr["Content-Type"] = o.rawDefault
	}
	var rs []byteRange
	outcome := rangeIgnored
	method, header := requestMethod(hr, req), requestHeader(hr, req)
	if status == http.StatusOK {
		hdr["Accept-Ranges"] = acceptRanges
		if method == http.MethodGet {
			if v := header["Range"]; len(v) == 1 &&
				(header["If-Range"] == nil || ifRangeHolds(header, headerValue(hdr, "Etag"), lastModified)) {
				rs, outcome = parseRange(v[0], body.size)
			}
		}
	}
	if outcome == rangeUnsatisfiable {
		o.retract(hdr, cookiesBefore)
		return false, rangeNotSatisfiable(body.size)
	}
	hdr["X-Content-Type-Options"] = nosniff
	head := method == http.MethodHead
	switch {
	case outcome == rangePartial && len(rs) == 1:
		hdr["Content-Range"] = []string{contentRange(rs[0], body.size)}
		hdr["Content-Length"] = []string{strconv.FormatInt(rs[0].length, 10)}
		w.WriteHeader(http.StatusPartialContent)
		if streamRanged(w, body, rs, nil, "") {
			return true, nil
		}
		d := newDeadlines(w, hr)
		body.writeRange(w, &d, rs[0]) //nolint:errcheck // the client went away, or the body failed: it sees fewer bytes than Content-Length
		d.done()
	case outcome == rangePartial:
		m := newMultipartRanges(rs, body.size, headerValue(hdr, "Content-Type"))
		hdr["Content-Type"] = []string{"multipart/byteranges; boundary=" + m.boundary}
		hdr["Content-Length"] = []string{strconv.FormatInt(m.length, 10)}
		w.WriteHeader(http.StatusPartialContent)
		if streamRanged(w, body, rs, m.heads, m.tail) {
			return true, nil
		}
		d := newDeadlines(w, hr)
		for i, r := range rs {
			if _, err := io.WriteString(w, m.heads[i]); err != nil {
				break
			}
			if body.writeRange(w, &d, r) != nil {
				break
			}
		}
		io.WriteString(w, m.tail) //nolint:errcheck // as above
		d.done()
	default:
		hdr["Content-Length"] = []string{strconv.FormatInt(body.size, 10)}
		w.WriteHeader(status)
		if head {
			return false, nil
		}
		if body.rs == nil && body.size <= ChunkSize {
			w.Write(body.data) //nolint:errcheck // a failed write means the client went away
			return false, nil
		}
		if streamRanged(w, body, []byteRange{{0, body.size}}, nil, "") {
			return true, nil
		}
		d := newDeadlines(w, hr)
		body.writeRange(w, &d, byteRange{0, body.size}) //nolint:errcheck // as above
		d.done()
	}
	return false, nil
}

// streamRanged hands w, when it is a BodyStreamer and body a reader, the
// ranges rs of body as one reader, each range after its head in heads
// (a multipart body's; nil for none) and tail after them all, to send
// once the handler has returned; closing the reader closes body's. It
// reports whether w took it. A []byte body is written, not streamed: it
// is in memory already.
func streamRanged(w http.ResponseWriter, body ranged, rs []byteRange, heads []string, tail string) bool {
	bs, ok := w.(BodyStreamer)
	if !ok || body.rs == nil {
		return false
	}
	parts := make([]io.Reader, 0, 2*len(rs)+1)
	for i, r := range rs {
		if heads != nil {
			parts = append(parts, strings.NewReader(heads[i]))
		}
		parts = append(parts, &rangeReader{rs: body.rs, r: r})
	}
	if tail != "" {
		parts = append(parts, strings.NewReader(tail))
	}
	var rd io.Reader = io.MultiReader(parts...)
	if c, ok := body.rs.(io.Closer); ok {
		rd = readCloser{rd, c}
	}
	return bs.StreamBody(rd)
}

// rangeReader reads the range r of rs, seeking to its start on the first
// read: the ranges of one body are read one after the other.
type rangeReader struct {
	rs     io.ReadSeeker
	r      byteRange
	seeked bool
}

func (rr *rangeReader) Read(p []byte) (int, error) {
	if !rr.seeked {
		if _, err := rr.rs.Seek(rr.r.start, io.SeekStart); err != nil {
			return 0, errSeek
		}
		rr.seeked = true
	}
	if rr.r.length <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > rr.r.length {
		p = p[:rr.r.length]
	}
	n, err := rr.rs.Read(p)
	rr.r.length -= int64(n)
	if err == io.EOF && rr.r.length > 0 {
		err = io.ErrUnexpectedEOF // the body is shorter than its size said
	}
	return n, err
}

type readCloser struct {
	io.Reader
	io.Closer
}

// The response headers of range requests, as documented.
var (
	acceptRangesDoc = operation.Header{Name: "Accept-Ranges", Description: "The body can be asked for in byte ranges (Range).",
		Schema: &schema.Schema{Type: schema.TypeString, Enum: []any{"bytes"}}}
	contentRangeDoc = operation.Header{Name: "Content-Range", Description: "The range sent, and the body's size (absent for multipart/byteranges, whose parts carry it).",
		Schema: &schema.Schema{Type: schema.TypeString, Examples: []any{"bytes 0-1023/146515"}}}
	unsatisfiedRangeDoc = operation.Header{Name: "Content-Range", Description: "The body's size.", Required: true,
		Schema: &schema.Schema{Type: schema.TypeString, Examples: []any{"bytes */146515"}}}
)
