package respond

import (
	"errors"
	"net/http"
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
	// chosen is the Encoders of each media type with that one already
	// chosen (Chosen), which Write then takes without reading Accept;
	// fixed is the index of that one, -1 in e itself.
	chosen []Encoders
	fixed  int
}

// NewEncoders returns the encoders of an operation whose JSON codec is
// json, with more.
func NewEncoders(json codec.Codec, more ...Encoder) *Encoders {
	e := &Encoders{fixed: -1}
	for _, x := range append([]Encoder{{MediaType: "application/json", Codec: json}}, more...) {
		e.list = append(e.list, x)
		e.types = append(e.types, x.MediaType)
		e.ct = append(e.ct, []string{x.MediaType})
	}
	e.chosen = make([]Encoders, len(e.list))
	for i := range e.chosen {
		c := &e.chosen[i]
		*c = *e
		c.fixed, c.chosen = i, nil
	}
	return e
}

// Default returns the default (JSON) codec.
func (e *Encoders) Default() codec.Codec { return e.list[0].Codec }

// MediaTypes returns the media types, the default first.
func (e *Encoders) MediaTypes() []string { return e.types }

// MediaType is the media type chosen (Chosen), or the default's when
// none was.
func (e *Encoders) MediaType() string { return e.types[max(e.fixed, 0)] }

// Chosen returns the encoders with the media type that the Accept lines
// of h, a request's header, choose already chosen: Write and
// WriteRequest given them encode with it and do not read Accept again.
// It returns nil when Accept accepts none of the media types (no Accept
// accepts them all). It allocates nothing. A caller that answers 406
// before running a handler calls it, and writes with what it returns.
func (e *Encoders) Chosen(h http.Header) *Encoders {
	if e.fixed >= 0 {
		return e
	}
	i := e.negotiate(h["Accept"])
	if i < 0 {
		return nil
	}
	return &e.chosen[i]
}

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
// matches. Of ranges equally specific, the last wins. A range whose weight
// is out of RFC 9110's grammar is left out, as if not sent. It slices the fields
// in place and allocates nothing, whatever the client sends.
func quality(accept []string, mt string) (float64, int) {
	typ, _, _ := strings.Cut(mt, "/")
	q, spec := 0.0, -1
	for _, field := range accept {
		for field != "" {
			var r string
			r, field, _ = strings.Cut(field, ",")
			rng, params, _ := strings.Cut(r, ";")
			rng = strings.TrimSpace(rng)
			s := -1
			switch {
			case strings.EqualFold(rng, mt):
				s = 2
			case len(rng) == len(typ)+2 && strings.EqualFold(rng[:len(typ)], typ) && rng[len(typ):] == "/*":
				s = 1
			case rng == "*/*":
				s = 0
			}
			if s < spec || s < 0 {
				continue
			}
			rq, ok := 1.0, true
			for params != "" && ok {
				var p string
				p, params, _ = strings.Cut(params, ";")
				k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(strings.TrimSpace(k), "q") {
					rq, ok = qvalue(strings.TrimSpace(v))
				}
			}
			if !ok {
				// A weight out of the grammar ("q=2", "q=high"): the
				// range says nothing, rather than accepting at full
				// weight what the client may have meant to refuse.
				continue
			}
			q, spec = rq, s
		}
	}
	return q, spec
}

// qvalue parses a weight as RFC 9110 section 12.4.2 writes it: 0 or 1
// followed by at most three decimals ("0.8", "1.000"). strconv.ParseFloat
// would allocate its error for the malformed weights a client may send.
func qvalue(v string) (float64, bool) {
	if v == "" || len(v) > 5 || (v[0] != '0' && v[0] != '1') {
		return 0, false
	}
	n := int(v[0]-'0') * 1000
	if len(v) > 1 {
		if v[1] != '.' {
			return 0, false
		}
		scale := 100
		for i := 2; i < len(v); i++ {
			c := v[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n += int(c-'0') * scale
			scale /= 10
		}
	}
	if n > 1000 {
		return 0, false
	}
	return float64(n) / 1000, true
}
