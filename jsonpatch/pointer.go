package jsonpatch

import (
	"errors"
	"strconv"
	"strings"
)

// Pointer is a JSON Pointer (RFC 6901) as its reference tokens, unescaped:
// "/a~1b/0" is Pointer{"a/b", "0"}. The empty Pointer refers to the whole
// document.
type Pointer []string

// ParsePointer parses the JSON Pointer s: empty, or a list of reference
// tokens each after a "/", in which "~0" stands for "~" and "~1" for "/"
// and no other "~" may appear (RFC 6901 section 3). A Pointer parsed from
// s encodes back to s (String).
func ParsePointer(s string) (Pointer, error) {
	if s == "" {
		return Pointer{}, nil
	}
	if s[0] != '/' {
		return nil, errors.New("a JSON Pointer is empty or starts with /")
	}
	p := make(Pointer, 0, strings.Count(s, "/"))
	for _, tok := range strings.Split(s[1:], "/") {
		if strings.IndexByte(tok, '~') < 0 {
			p = append(p, tok)
			continue
		}
		var b strings.Builder
		b.Grow(len(tok))
		for i := 0; i < len(tok); i++ {
			c := tok[i]
			if c != '~' {
				b.WriteByte(c)
				continue
			}
			if i+1 == len(tok) || (tok[i+1] != '0' && tok[i+1] != '1') {
				return nil, errors.New("~ in a JSON Pointer is followed by 0 (for ~) or 1 (for /)")
			}
			if tok[i+1] == '0' {
				b.WriteByte('~')
			} else {
				b.WriteByte('/')
			}
			i++
		}
		p = append(p, b.String())
	}
	return p, nil
}

var tokenEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// String encodes p as a JSON Pointer.
func (p Pointer) String() string {
	var b strings.Builder
	for _, tok := range p {
		b.WriteByte('/')
		tokenEscaper.WriteString(&b, tok) //nolint:errcheck // a strings.Builder does not fail
	}
	return b.String()
}

// properPrefixOf reports whether p is a proper prefix of q: q names a
// location inside the one p names.
func (p Pointer) properPrefixOf(q Pointer) bool {
	if len(p) >= len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// arrayIndex reads the reference token tok as an index into an array of n
// elements (RFC 6901 section 4): "0", or digits without a leading zero;
// "-" (the element after the last) only when end allows it, and then an
// index may be n too (a place to insert at).
func arrayIndex(tok string, n int, end bool) (int, error) {
	if tok == "-" {
		if end {
			return n, nil
		}
		return 0, errors.New(`"-" names the element after the last one of an array, which does not exist`)
	}
	if tok == "" || tok[0] < '0' || tok[0] > '9' || (tok[0] == '0' && len(tok) > 1) {
		return 0, errors.New(strconv.Quote(tok) + " is not an array index (0, or digits without a leading zero or sign)")
	}
	i := 0
	for j := 0; j < len(tok); j++ {
		c := tok[j]
		if c < '0' || c > '9' {
			return 0, errors.New(strconv.Quote(tok) + " is not an array index (0, or digits without a leading zero or sign)")
		}
		if i > n { // beyond the array already; keep checking the grammar without overflowing
			continue
		}
		i = i*10 + int(c-'0')
	}
	if i > n || (i == n && !end) {
		return 0, errors.New("index " + tok + " is beyond the end of an array of " + strconv.Itoa(n) + " elements")
	}
	return i, nil
}
