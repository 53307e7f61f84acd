package respond

import (
	"errors"
	"strconv"
	"strings"

	"github.com/vane-http/vane/codec"
)

// Encoder is a codec for one response media type.
type Encoder struct {
	MediaType string // such as "application/cbor"
	Codec     codec.Codec
}

// Encoders are the media types an operation can answer a body with: JSON
// by its codec first (the default), then the others in order of the
// server's preference.
type Encoders struct {
	list  []Encoder
	types []string // for the 406 message and the document
	ct    [][]string
}

// NewEncoders returns the encoders of an operation whose JSON codec is
// json, with more.
func NewEncoders(json codec.Codec, more ...Encoder) *Encoders {
	e := &Encoders{}
	for _, x := range append([]Encoder{{MediaType: "application/json", Codec: json}}, more...) {
		e.list = append(e.list, x)
		e.types = append(e.types, x.MediaType)
		e.ct = append(e.ct, []string{x.MediaType})
	}
	return e
}

// MediaTypes returns the media types, the default first.
func (e *Encoders) MediaTypes() []string { return e.types }

// ErrNotAcceptable is Write's error when no media type the operation can
// answer with is acceptable to the request; NotAcceptable says which are.
var ErrNotAcceptable = errors.New("respond: no acceptable media type")

// NotAcceptable is the detail of a 406 answer.
func (e *Encoders) NotAcceptable() string {
	return "none of the media types in Accept can be sent; this operation answers with " + strings.Join(e.types, ", ")
}

// negotiate returns the index of the encoder the Accept fields choose (RFC
// 9110 section 12.5.1): the highest quality, then the most specific range,
// then the server's order; -1 when none is acceptable. No Accept field,
// or one of "*/*" or the default's media type, chooses the default
// without parsing.
func (e *Encoders) negotiate(accept []string) int {
	if len(accept) == 0 || (len(accept) == 1 && (accept[0] == "*/*" || accept[0] == e.types[0] || accept[0] == "")) {
		return 0
	}
	best, bestQ, bestSpec := -1, 0.0, -1
	for i, mt := range e.types {
		q, spec := quality(accept, mt)
		if q > bestQ || (q == bestQ && q > 0 && spec > bestSpec) {
			best, bestQ, bestSpec = i, q, spec
		}
	}
	return best
}

// quality returns the quality the Accept fields give mt, and how specific
// the range that gave it is (2 exact, 1 type/*, 0 */*); 0, -1 when no range
// matches.
func quality(accept []string, mt string) (float64, int) {
	typ, _, _ := strings.Cut(mt, "/")
	q, spec := 0.0, -1
	for _, field := range accept {
		for _, r := range strings.Split(field, ",") {
			params := strings.Split(r, ";")
			rng := strings.ToLower(strings.TrimSpace(params[0]))
			s := -1
			switch {
			case rng == mt:
				s = 2
			case rng == typ+"/*":
				s = 1
			case rng == "*/*":
				s = 0
			}
			if s < spec || s < 0 {
				continue
			}
			rq := 1.0
			for _, p := range params[1:] {
				k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f >= 0 && f <= 1 {
						rq = f
					}
				}
			}
			q, spec = rq, s
		}
	}
	return q, spec
}
