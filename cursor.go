package vane

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// Cursor is a position in a list that a client sends back for the next
// (or previous) page: a field of a list operation's input, bound from a
// query parameter,
//
//	type ListPets struct {
//		Cursor vane.Cursor `query:"cursor"`
//		Limit  int         `query:"limit" default:"20" maximum:"100"`
//	}
//
// It is opaque: a Pager makes it from the sort key values of the item a
// page ends with, encrypted and authenticated with the Pager's key for one
// scope (the sort order and the filters the page was made for), so that a
// client can neither read nor change what it holds. The Pager reads it
// back (Pager.Read), refusing one that was changed, cut short, made for
// another scope or with a key it does not have, with a 400 problem naming
// the query parameter, and builds the links to the next and previous
// pages from the request the cursor was bound from (Pager.Next,
// Pager.Prev). Binding checks only its form (at most MaxCursorLength
// characters of the base64url alphabet and dots; anything else is a 422),
// and the document describes it as such a string.
type Cursor struct {
	token string
	// target and param are where the cursor was bound from, for the
	// Pager's links: the request's target as the client sent it, and the
	// cursor's query parameter. Empty for a cursor not bound by a typed
	// operation.
	target string
	param  string
}

var cursorType = reflect.TypeFor[Cursor]()

// cursorField is an input field of type Cursor tagged query.
type cursorField struct {
	index []int  // the field's index path (reflect.Value.FieldByIndex)
	param string // its query parameter
}

// cursorFields lists the Cursor fields of the input type t: its operation
// documents the 400 of a cursor that cannot be used, and tells each
// where it was bound from.
func cursorFields(t reflect.Type) []cursorField {
	var out []cursorField
	for _, f := range operation.InputFields(t) {
		if f.Type == cursorType && f.IsExported() {
			in, name, _ := operation.Source(f.Tag)
			if in != operation.InQuery {
				name = ""
			}
			out = append(out, cursorField{index: f.Index, param: name})
		}
	}
	return out
}

// bindCursors tells each Cursor field of in (a *I) the request it was
// bound from.
func bindCursors(list []cursorField, in any, req *http.Request) {
	target := req.RequestURI
	if !strings.HasPrefix(target, "/") {
		target = req.URL.RequestURI() // a request made in process, or an absolute-form target
	}
	v := reflect.ValueOf(in).Elem()
	for _, f := range list {
		c := v.FieldByIndex(f.index).Addr().Interface().(*Cursor)
		c.target, c.param = target, f.param
	}
}

// MaxCursorLength is the longest cursor a Pager makes or reads.
const MaxCursorLength = 1024

// UnmarshalText takes a cursor as sent; it checks its form only.
func (c *Cursor) UnmarshalText(b []byte) error {
	if len(b) > MaxCursorLength {
		return errors.New("the cursor is longer than any this service makes")
	}
	for _, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '_' || ch == '.') {
			return errors.New("the cursor is not one this service makes")
		}
	}
	c.token = string(b)
	return nil
}

// MarshalText returns the cursor as sent.
func (c Cursor) MarshalText() ([]byte, error) { return []byte(c.token), nil }

// String returns the cursor as it is sent.
func (c Cursor) String() string { return c.token }

// IsZero reports whether no cursor was sent: the first page.
func (c Cursor) IsZero() bool { return c.token == "" }

// JSONSchema describes a cursor in the document: an opaque string.
func (Cursor) JSONSchema(*schema.Registry) *schema.Schema {
	n := MaxCursorLength
	return &schema.Schema{Type: schema.TypeString, MaxLength: &n, Pattern: `^[A-Za-z0-9_.-]*$`,
		Description: "An opaque position in the list, from the next or prev link of a page; absent for the first page. It is valid for the order and filters it was made with."}
}

// Pager makes and reads cursors, and the links that carry them. A cursor
// is encrypted and authenticated (AES-256-GCM, under a key derived from
// the Pager's key and 128 random bits of its own), so that a client can
// neither read the position it holds nor make one. Replicas of a service
// must share the keys, or a cursor made by one is refused by another. It
// is safe for concurrent use.
type Pager struct {
	keys [][]byte // the first makes cursors; each reads them
}

// MinPagerKeyLength is the shortest key NewPager takes, in bytes.
const MinPagerKeyLength = 16

// NewPager returns a Pager that makes cursors with the first of keys and
// reads cursors made with any of them: to change the key without
// refusing the cursors clients hold, put the new key first and keep the
// old one after it for as long as a cursor lives (a client's session),
// then drop it. Each key is a secret of at least MinPagerKeyLength bytes
// (32 random bytes is right; NewPager panics on a shorter one), never
// derived from a credential: anyone holding a cursor could test guesses
// of it offline. An empty key counts as none; no key at all is a random
// one, for a service of one process (its cursors end with the process).
func NewPager(keys ...[]byte) *Pager {
	p := &Pager{}
	for i, k := range keys {
		if len(k) == 0 {
			continue // none
		}
		if len(k) < MinPagerKeyLength {
			panic(fmt.Sprintf("vane: NewPager: key %d has %d bytes; a cursor key needs at least %d (32 random bytes)", i, len(k), MinPagerKeyLength))
		}
		p.keys = append(p.keys, append([]byte(nil), k...))
	}
	if len(p.keys) == 0 {
		k := make([]byte, 32)
		rand.Read(k) //nolint:errcheck // crypto/rand does not fail
		p.keys = [][]byte{k}
	}
	return p
}

// cursorVersion begins every cursor, so that its form can change.
const cursorVersion = "2"

// cursorSaltSize is the size of each cursor's own random salt, from which
// with the Pager's key its encryption key is derived: each key seals one
// cursor, so the AEAD's nonce can be fixed, and no two cursors share a key
// short of a 128-bit collision.
const cursorSaltSize = 16

// Cursor returns the cursor of position (the sort key values of the item a
// page ends with, any value encoding/json encodes) in scope: a string that
// names what the position means, the sort order and the filters, such as
// "pets by name, species=cat". A cursor read with another scope is
// refused.
func (p *Pager) Cursor(scope string, position any) (Cursor, error) {
	payload, err := json.Marshal(position)
	if err != nil {
		return Cursor{}, err
	}
	sealed := make([]byte, cursorSaltSize, cursorSaltSize+len(payload)+16)
	rand.Read(sealed) //nolint:errcheck // crypto/rand does not fail
	sealed = cursorAEAD(p.keys[0], sealed).Seal(sealed, cursorNonce[:], payload, cursorData(scope))
	token := cursorVersion + "." + base64.RawURLEncoding.EncodeToString(sealed)
	if len(token) > MaxCursorLength {
		return Cursor{}, errors.New("vane: the cursor's position is too long: " + strconv.Itoa(len(token)) + " characters")
	}
	return Cursor{token: token}, nil
}

// Read reads the position of c, made by Cursor in scope, into position,
// and reports whether there was one: false for no cursor (the first
// page). A cursor that this Pager did not make for scope (changed, cut
// short, from another order or filter, or another key) is a 400 problem
// naming the cursor's query parameter, which the handler returns.
func (p *Pager) Read(c Cursor, scope string, position any) (bool, error) {
	if c.IsZero() {
		return false, nil
	}
	refuse := func(why string) (bool, error) {
		loc := "query.cursor"
		if c.param != "" {
			loc = problem.Location("query").Field(c.param).String()
		}
		return false, problem.New(http.StatusBadRequest, "the cursor cannot be used: "+why,
			problem.FieldError{Location: loc, Message: why, Value: c.token})
	}
	payload, ok := p.open(c.token, scope)
	if !ok {
		return refuse("it was changed, or made for another order or filter; start again from the first page")
	}
	if err := json.Unmarshal(payload, position); err != nil {
		return refuse("it holds no position of this list")
	}
	return true, nil
}

// open returns the position a token holds, if one of p's keys sealed it
// for scope.
func (p *Pager) open(token, scope string) ([]byte, bool) {
	version, data, ok := strings.Cut(token, ".")
	if !ok || version != cursorVersion {
		return nil, false
	}
	// Strict: a last character whose unused bits are not zero is refused,
	// so that no two spellings of a cursor read.
	sealed, err := base64.RawURLEncoding.Strict().DecodeString(data)
	if err != nil || len(sealed) < cursorSaltSize+16 {
		return nil, false
	}
	salt, box := sealed[:cursorSaltSize], sealed[cursorSaltSize:]
	for _, k := range p.keys {
		if payload, err := cursorAEAD(k, salt).Open(nil, cursorNonce[:], box, cursorData(scope)); err == nil {
			return payload, true
		}
	}
	return nil, false
}

// cursorNonce is the AEAD nonce of every cursor, whose key is its own.
var cursorNonce [12]byte

// cursorAEAD is the AES-256-GCM of the cursor whose salt is salt, under
// the Pager key key: its key is HMAC-SHA256(key, label || salt).
func cursorAEAD(key, salt []byte) cipher.AEAD {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("vane cursor key " + cursorVersion + "\x00"))
	m.Write(salt[:cursorSaltSize])
	block, err := aes.NewCipher(m.Sum(nil))
	if err != nil {
		panic(err) // a 32-byte key
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return aead
}

// cursorData is the data a cursor authenticates beside its position: its
// version and scope.
func cursorData(scope string) []byte {
	return []byte("vane cursor " + cursorVersion + "\x00" + scope)
}

// Next returns the link to the next page, rel="next": the request c was
// bound from (its path as the client sent it, and its query), with c's
// query parameter set to the cursor of position in scope (see Cursor),
// and without the query parameters named in without (an offset that
// counted from the first page, say). The link is relative to the
// service's origin, as RFC 8288 allows; a client resolves it against the
// URL it asked for. It fails for a cursor that no typed operation bound
// from a query parameter.
//
//	next, err := pager.Next(in.Cursor, scope, petsAfter{ID: last.ID}, "offset")
//	out.Link = vane.Links{next}
func (p *Pager) Next(c Cursor, scope string, position any, without ...string) (Link, error) {
	return p.link("next", c, scope, position, without)
}

// Prev returns the link to the previous page, rel="prev", as Next does:
// position is what the handler reads to page backwards (the first item of
// this page, and the direction), where the list's order allows it.
func (p *Pager) Prev(c Cursor, scope string, position any, without ...string) (Link, error) {
	return p.link("prev", c, scope, position, without)
}

func (p *Pager) link(rel string, c Cursor, scope string, position any, without []string) (Link, error) {
	if c.target == "" || c.param == "" {
		return Link{}, errors.New("vane: Pager." + strings.ToUpper(rel[:1]) + rel[1:] +
			": the cursor was not bound from a query parameter of a typed operation's input")
	}
	to, err := p.Cursor(scope, position)
	if err != nil {
		return Link{}, err
	}
	path, rawQuery, _ := strings.Cut(c.target, "?")
	q, _ := url.ParseQuery(rawQuery) // the request was bound: what did not parse is not kept
	for _, name := range without {
		q.Del(name)
	}
	q.Set(c.param, to.token)
	return Link{URL: path + "?" + q.Encode(), Rel: rel}, nil
}

// Links is an RFC 8288 Link header field. An output field of this type
// tagged header:"Link" sends the next and previous pages' links (empty:
// no header).
type Links []Link

// JSONSchema describes a Link header field in the document: the text it
// is sent as. An example tag on the field replaces the example.
func (Links) JSONSchema(*schema.Registry) *schema.Schema {
	return &schema.Schema{Type: schema.TypeString, Examples: []any{`</items?cursor=2.Sm9uZXM>; rel="next"`},
		Description: "Links (RFC 8288): a URL in angle brackets and its relation, such as rel=\"next\"."}
}

// Link is one link of a Link header field: its target and relation
// ("next", "prev").
type Link struct {
	URL string
	Rel string
}

// String writes the links as a Link field value:
// <url>; rel="next", <url>; rel="prev". Angle brackets in a URL are
// escaped, and line breaks and other control characters left out.
func (l Links) String() string {
	var b strings.Builder
	for i, link := range l {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('<')
		for j := 0; j < len(link.URL); j++ {
			switch ch := link.URL[j]; {
			case ch == '<':
				b.WriteString("%3C")
			case ch == '>':
				b.WriteString("%3E")
			case ch < 0x20 || ch == 0x7f:
			default:
				b.WriteByte(ch)
			}
		}
		b.WriteString(`>; rel="`)
		for j := 0; j < len(link.Rel); j++ {
			switch ch := link.Rel[j]; {
			case ch == '"' || ch == '\\':
				b.WriteByte('\\')
				b.WriteByte(ch)
			case ch < 0x20 && ch != '\t' || ch == 0x7f:
			default:
				b.WriteByte(ch)
			}
		}
		b.WriteByte('"')
	}
	return b.String()
}

// MarshalText returns the links as String writes them.
func (l Links) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a Link field value (RFC 8288 section 3): links
// separated by commas, each a URI reference in angle brackets followed by
// parameters, of which it keeps the first rel (a token or a quoted
// string) and skips the others. It fails on text that is not a Link
// field value. A client reads a page's links with it; its work is linear
// in the length of b.
func (l *Links) UnmarshalText(b []byte) error {
	s := string(b)
	var out Links
	i := 0
	skip := func() { // OWS and empty list elements
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	for {
		skip()
		for i < len(s) && s[i] == ',' {
			i++
			skip()
		}
		if i == len(s) {
			break
		}
		if s[i] != '<' {
			return fmt.Errorf("links: a link begins with <, not %q at %d", s[i], i)
		}
		end := strings.IndexByte(s[i:], '>')
		if end < 0 {
			return errors.New("links: a URL in angle brackets lacks its >")
		}
		link := Link{URL: s[i+1 : i+end]}
		i += end + 1
		gotRel := false
		for {
			skip()
			if i == len(s) || s[i] == ',' {
				break
			}
			if s[i] != ';' {
				return fmt.Errorf("links: expected ; or , at %d, not %q", i, s[i])
			}
			i++
			skip()
			start := i
			for i < len(s) && isTokenChar(s[i]) {
				i++
			}
			if i == start {
				return fmt.Errorf("links: a parameter lacks its name at %d", i)
			}
			name := s[start:i]
			skip()
			var value string
			if i < len(s) && s[i] == '=' {
				i++
				skip()
				var err error
				if value, err = paramValue(s, &i); err != nil {
					return err
				}
			}
			if !gotRel && strings.EqualFold(name, "rel") {
				link.Rel, gotRel = value, true
			}
		}
		out = append(out, link)
	}
	*l = out
	return nil
}

// paramValue reads a token or a quoted string at s[*i:].
func paramValue(s string, i *int) (string, error) {
	if *i < len(s) && s[*i] == '"' {
		var b strings.Builder
		for j := *i + 1; j < len(s); j++ {
			switch ch := s[j]; ch {
			case '"':
				*i = j + 1
				return b.String(), nil
			case '\\':
				if j+1 == len(s) {
					return "", errors.New("links: a quoted string ends in a backslash")
				}
				j++
				b.WriteByte(s[j])
			default:
				b.WriteByte(ch)
			}
		}
		return "", errors.New("links: a quoted string lacks its closing quote")
	}
	start := *i
	for *i < len(s) && isTokenChar(s[*i]) {
		*i++
	}
	if *i == start {
		return "", fmt.Errorf("links: a parameter lacks its value at %d", start)
	}
	return s[start:*i], nil
}

// isTokenChar reports whether ch is a tchar of RFC 9110 section 5.6.2.
func isTokenChar(ch byte) bool {
	return ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", ch) >= 0
}
