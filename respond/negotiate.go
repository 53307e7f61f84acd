package respond

import (
	"net/http"
	"strings"

	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
)

// Content negotiation.
//
// A body encoded by codecs (anything but []byte and io.Reader) can be
// answered as application/json, by the JSON codec, or in any media type
// of Config.Codecs. The request's Accept chooses, by its q-values and, for
// equal q, by the order of the offers (JSON first); no Accept, an empty
// one, "*/*" and "application/json" choose JSON without parsing anything.
// When no offer is acceptable the answer is 406 Not Acceptable, with a
// problem naming the media types the operation answers with, before the
// handler runs. With more than one offer, responses carry Vary: Accept.
//
// Not negotiated: []byte and io.Reader bodies, and outputs with a
// Content-Type header field, whose handler chooses the media type; outputs
// that can only be {} (Empty) or have no body (a 204 without a Status
// field); error responses, which are application/problem+json.

// offer is one media type the writer can encode a body in.
type offer struct {
	mediaType   string
	contentType []string
	codec       codec.Codec
}

// Choice is the outcome of Negotiate: which of the writer's media types
// a response is encoded in.
type Choice int

func (o *Writer) compileOffers(def codec.Codec, extra []codec.MediaCodec) {
	o.offers = []offer{{mediaType: "application/json", contentType: jsonContentType, codec: def}}
	for _, mc := range extra {
		mt := strings.ToLower(mc.MediaType)
		if mt == "application/json" {
			o.offers[0].codec = mc.Codec
			continue
		}
		o.offers = append(o.offers, offer{mediaType: mt, contentType: []string{mt}, codec: mc.Codec})
	}
	names := make([]string, len(o.offers))
	for i, of := range o.offers {
		names[i] = of.mediaType
	}
	o.notAcceptable = problem.Encode(problem.New(http.StatusNotAcceptable,
		"None of the media types this operation answers with is acceptable: "+strings.Join(names, ", ")+"."))
}

// MediaTypes returns the media types a response body can be negotiated
// to, the default first; none when the body is not negotiated.
func (o *Writer) MediaTypes() []string {
	if !o.negotiated() {
		return nil
	}
	names := make([]string, len(o.offers))
	for i, of := range o.offers {
		names[i] = of.mediaType
	}
	return names
}

// negotiated reports whether the body is chosen by Accept: encoded by
// codecs, with no Content-Type field, and ever more than {} or nothing.
func (o *Writer) negotiated() bool {
	return o.bodyKind == bodyJSON && !o.ctHeader && !o.empty && (o.hasStatus || !operation.NoBody(o.status))
}

// Negotiate chooses the media type of the response to req from its
// Accept header. When none is acceptable it writes 406 Not Acceptable
// and reports false. It allocates nothing.
func (o *Writer) Negotiate(w http.ResponseWriter, req *http.Request) (Choice, bool) {
	if !o.negotiated() {
		return 0, true
	}
	accept := req.Header["Accept"]
	if len(accept) == 0 || (len(accept) == 1 && (accept[0] == "" || accept[0] == "*/*" || accept[0] == "application/json")) {
		return 0, true
	}
	best, bestQ := -1, 0
	for i := range o.offers {
		if q := acceptQ(accept, o.offers[i].mediaType); q > bestQ {
			best, bestQ = i, q
		}
	}
	if best < 0 {
		o.notAcceptable.Write(w)
		return 0, false
	}
	return Choice(best), true
}

// acceptQ returns the q-value (0 to 1000) that the Accept lines give
// mediaType: that of the most specific range that matches it (type/subtype,
// then type/*, then */*), 0 when none does. Ranges that do not parse are
// skipped.
func acceptQ(lines []string, mediaType string) int {
	slash := strings.IndexByte(mediaType, '/')
	typ := mediaType[:slash]
	q, spec := 0, -1
	for _, line := range lines {
		for line != "" {
			var elem string
			if i := strings.IndexByte(line, ','); i >= 0 {
				elem, line = line[:i], line[i+1:]
			} else {
				elem, line = line, ""
			}
			rng, params, _ := strings.Cut(elem, ";")
			rng = strings.TrimSpace(rng)
			s := -1
			switch {
			case strings.EqualFold(rng, mediaType):
				s = 2
			case len(rng) == len(typ)+2 && strings.EqualFold(rng[:len(typ)], typ) && rng[len(typ):] == "/*":
				s = 1
			case rng == "*/*":
				s = 0
			}
			if s <= spec {
				continue
			}
			spec, q = s, qValue(params)
		}
	}
	return q
}

// qValue reads the q parameter of an Accept element's parameters: 1000
// when absent, 0 when malformed.
func qValue(params string) int {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		name, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || (name != "q" && name != "Q") {
			continue
		}
		v = strings.TrimSpace(v)
		if v == "" || len(v) > 5 || (v[0] != '0' && v[0] != '1') {
			return 0
		}
		n := int(v[0]-'0') * 1000
		if len(v) > 1 {
			if v[1] != '.' {
				return 0
			}
			scale := 100
			for _, c := range v[2:] {
				if c < '0' || c > '9' {
					return 0
				}
				n += int(c-'0') * scale
				scale /= 10
			}
		}
		if n > 1000 {
			return 0
		}
		return n
	}
	return 1000
}
