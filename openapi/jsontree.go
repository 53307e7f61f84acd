package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// jnode is a JSON value that keeps the order of an object's keys and the
// exact text of its numbers, so that a document can be rewritten and
// written again with nothing changed but what the rewrite changed.
type jnode struct {
	kind  byte     // '{', '[', or 'v' for a scalar
	keys  []string // an object's keys, in order
	vals  []*jnode // an object's values, or an array's items
	value json.RawMessage
}

func parseJSON(data []byte) (*jnode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("openapi: trailing data after the document")
	}
	return n, nil
}

func parseValue(dec *json.Decoder) (*jnode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		switch tok {
		case '{':
			n := &jnode{kind: '{'}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
				n.vals = append(n.vals, v)
			}
			_, err := dec.Token() // }
			return n, err
		case '[':
			n := &jnode{kind: '['}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				n.vals = append(n.vals, v)
			}
			_, err := dec.Token() // ]
			return n, err
		}
		return nil, fmt.Errorf("openapi: unexpected %v", tok)
	case json.Number:
		return &jnode{kind: 'v', value: json.RawMessage(tok)}, nil
	default:
		b, err := json.Marshal(tok)
		return &jnode{kind: 'v', value: b}, err
	}
}

// scalar returns a scalar node holding v's JSON.
func scalar(v any) *jnode {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called with strings, booleans and nil
	}
	return &jnode{kind: 'v', value: b}
}

func object() *jnode { return &jnode{kind: '{'} }

func array(items ...*jnode) *jnode { return &jnode{kind: '[', vals: items} }

func (n *jnode) isObject() bool { return n != nil && n.kind == '{' }
func (n *jnode) isArray() bool  { return n != nil && n.kind == '[' }

// get returns the value of key, or nil.
func (n *jnode) get(key string) *jnode {
	if !n.isObject() {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// set replaces key's value, or appends key.
func (n *jnode) set(key string, v *jnode) {
	for i, k := range n.keys {
		if k == key {
			n.vals[i] = v
			return
		}
	}
	n.keys = append(n.keys, key)
	n.vals = append(n.vals, v)
}

// setAfter sets key, placing it just after the key after when it is new
// and after is present.
func (n *jnode) setAfter(after, key string, v *jnode) {
	if n.get(key) != nil {
		n.set(key, v)
		return
	}
	for i, k := range n.keys {
		if k == after {
			n.keys = append(n.keys[:i+1], append([]string{key}, n.keys[i+1:]...)...)
			n.vals = append(n.vals[:i+1], append([]*jnode{v}, n.vals[i+1:]...)...)
			return
		}
	}
	n.set(key, v)
}

// rename changes key's name in place, keeping its position.
func (n *jnode) rename(key, to string) {
	for i, k := range n.keys {
		if k == key {
			n.keys[i] = to
			return
		}
	}
}

func (n *jnode) del(key string) {
	for i, k := range n.keys {
		if k == key {
			n.keys = append(n.keys[:i], n.keys[i+1:]...)
			n.vals = append(n.vals[:i], n.vals[i+1:]...)
			return
		}
	}
}

// str returns a string scalar's value, or "".
func (n *jnode) str() (string, bool) {
	if n == nil || n.kind != 'v' || len(n.value) == 0 || n.value[0] != '"' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(n.value, &s) == nil
}

// number returns a number scalar's value.
func (n *jnode) number() (float64, bool) {
	if n == nil || n.kind != 'v' || len(n.value) == 0 {
		return 0, false
	}
	if c := n.value[0]; c != '-' && (c < '0' || c > '9') {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n.value), 64)
	return f, err == nil
}

func (n *jnode) isNull() bool { return n != nil && n.kind == 'v' && string(n.value) == "null" }

// boolean returns a boolean scalar's value.
func (n *jnode) boolean() (value, ok bool) {
	if n == nil || n.kind != 'v' {
		return false, false
	}
	switch string(n.value) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// copy returns a deep copy of n.
func (n *jnode) copy() *jnode {
	if n == nil {
		return nil
	}
	c := &jnode{kind: n.kind, value: n.value, keys: append([]string(nil), n.keys...)}
	for _, v := range n.vals {
		c.vals = append(c.vals, v.copy())
	}
	return c
}

// appendJSON appends n's compact JSON to b.
func (n *jnode) appendJSON(b []byte) []byte {
	switch n.kind {
	case '{':
		b = append(b, '{')
		for i, k := range n.keys {
			if i > 0 {
				b = append(b, ',')
			}
			kb, _ := json.Marshal(k)
			b = append(b, kb...)
			b = append(b, ':')
			b = n.vals[i].appendJSON(b)
		}
		return append(b, '}')
	case '[':
		b = append(b, '[')
		for i, v := range n.vals {
			if i > 0 {
				b = append(b, ',')
			}
			b = v.appendJSON(b)
		}
		return append(b, ']')
	}
	return append(b, n.value...)
}
