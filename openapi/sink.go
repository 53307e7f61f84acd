package openapi

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// A sink receives a JSON value as a sequence of calls, and writes it in
// some form: JSON (jsonWriter), YAML (yamlWriter), a tree (treeSink), or
// nothing (a check that the document can be written). The document writer
// (write.go) walks the document's Go values and calls a sink: no form is
// made from another form's text.
type sink interface {
	beginObject()
	key(k string) // the next value's key, inside an object
	endObject()
	beginArray()
	endArray()
	str(s string)
	number(text string) // a JSON number, as written
	boolean(b bool)
	null()
	rawJSON(b []byte) // a whole JSON value, valid and compact (from encoding/json)
}

// output is the text a writer makes: chunks of about chunkSize bytes,
// then buf. A writer cuts between values, so that a long document grows by
// new chunks, never by copying what it holds.
type output struct {
	buf     []byte
	chunks  [][]byte
	chunked bool // cut into chunks: for a whole document, not a small value
}

// chunkSize is a chunk's capacity; a chunk is cut when less than
// chunkSlack of it is left, so that a kept chunk wastes little of it.
const (
	chunkSize  = 256 << 10
	chunkSlack = 4 << 10
)

// cut starts a new chunk once buf is all but full.
func (o *output) cut() {
	if !o.chunked || cap(o.buf)-len(o.buf) >= chunkSlack {
		return
	}
	if len(o.buf) > 0 {
		o.chunks = append(o.chunks, o.buf)
	}
	o.buf = make([]byte, 0, chunkSize)
}

// parts returns the text, in order.
func (o *output) parts() [][]byte {
	return append(o.chunks[:len(o.chunks):len(o.chunks)], o.buf)
}

// bytes returns the text in one slice.
func (o *output) bytes() []byte {
	if len(o.chunks) == 0 {
		return o.buf
	}
	return joinParts(o.parts())
}

func joinParts(parts [][]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// discard is a sink that writes nothing.
type discard struct{}

func (discard) beginObject()   {}
func (discard) key(string)     {}
func (discard) endObject()     {}
func (discard) beginArray()    {}
func (discard) endArray()      {}
func (discard) str(string)     {}
func (discard) number(string)  {}
func (discard) boolean(bool)   {}
func (discard) null()          {}
func (discard) rawJSON([]byte) {}

// appendFloat appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, in exponent form below 1e-6 and from 1e21
// on. NaN and infinities have no JSON form.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, &json.UnsupportedValueError{Str: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, U+2028 and U+2029 too (JavaScript reads
// them as line ends), invalid UTF-8 replaced by U+FFFD, as encoding/json
// does.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// replayJSON writes the JSON value data, which is valid (encoding/json's
// output, or text json.Valid accepted), to s.
func replayJSON(s sink, data []byte) {
	p := jsonReader{data: data}
	p.value(s)
}

type jsonReader struct {
	data []byte
	i    int
}

func (p *jsonReader) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonReader) value(s sink) {
	p.space()
	if p.i >= len(p.data) {
		return
	}
	switch c := p.data[p.i]; c {
	case '{':
		p.i++
		s.beginObject()
		for {
			p.space()
			if p.data[p.i] == '}' {
				p.i++
				break
			}
			if p.data[p.i] == ',' {
				p.i++
				p.space()
			}
			s.key(p.string())
			p.space()
			p.i++ // ':'
			p.value(s)
		}
		s.endObject()
	case '[':
		p.i++
		s.beginArray()
		for {
			p.space()
			if p.data[p.i] == ']' {
				p.i++
				break
			}
			if p.data[p.i] == ',' {
				p.i++
			}
			p.value(s)
		}
		s.endArray()
	case '"':
		s.str(p.string())
	case 't':
		p.i += 4
		s.boolean(true)
	case 'f':
		p.i += 5
		s.boolean(false)
	case 'n':
		p.i += 4
		s.null()
	default:
		start := p.i
		for p.i < len(p.data) {
			if c := p.data[p.i]; c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || '0' <= c && c <= '9' {
				p.i++
				continue
			}
			break
		}
		s.number(string(p.data[start:p.i]))
	}
}

// string reads a JSON string at p.i.
func (p *jsonReader) string() string {
	start := p.i
	escaped := false
	p.i++ // '"'
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case '\\':
			escaped = true
			p.i += 2
			continue
		case '"':
			p.i++
			raw := p.data[start:p.i]
			if !escaped {
				return string(raw[1 : len(raw)-1])
			}
			var s string
			json.Unmarshal(raw, &s) //nolint:errcheck // valid by contract
			return s
		}
		p.i++
	}
	return ""
}
