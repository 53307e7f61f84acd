package vane

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"strings"

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
// It is opaque and tamper-evident: a Pager makes it (Pager.Cursor) from
// the sort key values of the last item of a page, signed with the Pager's
// key for one scope (the sort order and the filter the page was made
// for), and reads it back (Pager.Read), refusing one that was changed,
// cut short, or made for another scope with a 400 problem naming
// query.cursor. Binding checks only its form (at most MaxCursorLength
// characters of the base64url alphabet and dots; anything else is a 422),
// and the document describes it as such a string.
type Cursor struct {
	token string
}

// hasCursor reports whether the input type t has a Cursor field: its
// operation documents the 400 of a cursor that cannot be used.
func hasCursor(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Type == cursorType {
			return true
		}
	}
	return false
}

var cursorType = reflect.TypeFor[Cursor]()

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

// Pager makes and reads cursors with a key of its own (HMAC-SHA256).
// Replicas of a service must share the key, or a cursor made by one is
// refused by another. It is safe for concurrent use.
type Pager struct {
	key []byte
}

// NewPager returns a Pager that signs with key; an empty key is a random
// one, for a service of one process (its cursors end with the process).
func NewPager(key []byte) *Pager {
	if len(key) == 0 {
		key = make([]byte, 32)
		rand.Read(key) //nolint:errcheck // crypto/rand does not fail
	}
	return &Pager{key: append([]byte(nil), key...)}
}

// cursorVersion begins every cursor, so that its form can change.
const cursorVersion = "1"

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
	enc := base64.RawURLEncoding
	token := cursorVersion + "." + enc.EncodeToString(payload) + "." + enc.EncodeToString(p.sign(scope, payload))
	if len(token) > MaxCursorLength {
		return Cursor{}, errors.New("vane: the cursor's position is too long: " + strconv.Itoa(len(token)) + " characters")
	}
	return Cursor{token: token}, nil
}

// Read reads the position of c, made by Cursor in scope, into position,
// and reports whether there was one: false for no cursor (the first
// page). A cursor that this Pager did not make for scope (changed, cut
// short, from another order or filter, or another key) is a 400 problem
// naming query.cursor, which the handler returns.
func (p *Pager) Read(c Cursor, scope string, position any) (bool, error) {
	if c.IsZero() {
		return false, nil
	}
	refuse := func(why string) (bool, error) {
		return false, problem.New(http.StatusBadRequest, "the cursor cannot be used: "+why,
			problem.FieldError{Location: "query.cursor", Message: why, Value: c.token})
	}
	version, rest, ok := strings.Cut(c.token, ".")
	if !ok || version != cursorVersion {
		return refuse("it is not one this service makes")
	}
	data, mac, ok := strings.Cut(rest, ".")
	// Strict: a last character whose unused bits are not zero is refused,
	// so that no two spellings of a cursor read.
	enc := base64.RawURLEncoding.Strict()
	payload, err1 := enc.DecodeString(data)
	sum, err2 := enc.DecodeString(mac)
	if !ok || err1 != nil || err2 != nil {
		return refuse("it is not one this service makes")
	}
	if !hmac.Equal(sum, p.sign(scope, payload)) {
		return refuse("it was changed, or made for another order or filter; start again from the first page")
	}
	if err := json.Unmarshal(payload, position); err != nil {
		return refuse("it holds no position of this list")
	}
	return true, nil
}

// sign is the MAC of payload in scope, truncated to 128 bits.
func (p *Pager) sign(scope string, payload []byte) []byte {
	m := hmac.New(sha256.New, p.key)
	m.Write([]byte("vane cursor " + cursorVersion + "\x00"))
	m.Write([]byte(scope))
	m.Write([]byte{0})
	m.Write(payload)
	return m.Sum(nil)[:16]
}

// Links is an RFC 8288 Link header field. An output field of this type
// tagged header:"Link" sends the next and previous pages' links (empty:
// no header).
type Links []Link

// JSONSchema describes a Link header field in the document: the text it
// is sent as.
func (Links) JSONSchema(*schema.Registry) *schema.Schema {
	return &schema.Schema{Type: schema.TypeString, Examples: []any{`</pets?cursor=1.eyJpZCI6N30.dGFn>; rel="next"`},
		Description: "Links (RFC 8288): a URL in angle brackets and its relation, such as rel=\"next\"."}
}

// Link is one link of a Link header field: its target and relation
// ("next", "prev").
type Link struct {
	URL string
	Rel string
}

// String writes the links as a Link field value:
// <url>; rel="next", <url>; rel="prev".
func (l Links) String() string {
	var b strings.Builder
	for i, link := range l {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("<")
		b.WriteString(strings.NewReplacer(">", "%3E", "<", "%3C", "\r", "", "\n", "").Replace(link.URL))
		b.WriteString(`>; rel="`)
		b.WriteString(strings.Trim(strconv.Quote(link.Rel), `"`))
		b.WriteString(`"`)
	}
	return b.String()
}
