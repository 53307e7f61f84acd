package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// node is a JSON value that keeps the order of an object's keys and the
// exact text of its numbers: the form the 3.0 translation rewrites
// (translate30.go), built from a document's events (treeSink) or parsed
// from JSON text (parseJSON), and written to any sink (emitNode).
type node struct {
	kind byte     // '{' object, '[' array, 's' string, 'n' number, 't' true, 'f' false, '0' null, 'r' raw JSON
	text string   // a string's value, a number's text, raw JSON
	keys []string // an object's keys, in order
	vals []*node  // an object's values, or an array's items
}

var (
	nullNode  = &node{kind: '0'}
	trueNode  = &node{kind: 't'}
	falseNode = &node{kind: 'f'}
)

func strNode(s string) *node { return &node{kind: 's', text: s} }

func boolNode(b bool) *node {
	if b {
		return trueNode
	}
	return falseNode
}

func object() *node { return &node{kind: '{'} }

func array(items ...*node) *node { return &node{kind: '[', vals: items} }

func (n *node) isObject() bool { return n != nil && n.kind == '{' }
func (n *node) isArray() bool  { return n != nil && n.kind == '[' }

// get returns the value of key, or nil.
func (n *node) get(key string) *node {
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
func (n *node) set(key string, v *node) {
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
func (n *node) setAfter(after, key string, v *node) {
	if n.get(key) != nil {
		n.set(key, v)
		return
	}
	for i, k := range n.keys {
		if k == after {
			n.keys = append(n.keys[:i+1], append([]string{key}, n.keys[i+1:]...)...)
			n.vals = append(n.vals[:i+1], append([]*node{v}, n.vals[i+1:]...)...)
			return
		}
	}
	n.set(key, v)
}

// rename changes key's name in place, keeping its position.
func (n *node) rename(key, to string) {
	for i, k := range n.keys {
		if k == key {
			n.keys[i] = to
			return
		}
	}
}

func (n *node) del(key string) {
	for i, k := range n.keys {
		if k == key {
			n.keys = append(n.keys[:i], n.keys[i+1:]...)
			n.vals = append(n.vals[:i], n.vals[i+1:]...)
			return
		}
	}
}

// str returns a string's value.
func (n *node) str() (string, bool) {
	if n == nil || n.kind != 's' {
		return "", false
	}
	return n.text, true
}

// number returns a number's value.
func (n *node) number() (float64, bool) {
	if n == nil || n.kind != 'n' {
		return 0, false
	}
	f, err := strconv.ParseFloat(n.text, 64)
	return f, err == nil
}

func (n *node) isNull() bool {
	return n != nil && (n.kind == '0' || n.kind == 'r' && n.text == "null")
}

// boolean returns a boolean's value.
func (n *node) boolean() (value, ok bool) {
	if n == nil {
		return false, false
	}
	switch n.kind {
	case 't':
		return true, true
	case 'f':
		return false, true
	}
	return false, false
}

// emitNode writes n to s.
func emitNode(s sink, n *node) {
	switch n.kind {
	case '{':
		s.beginObject()
		for i, k := range n.keys {
			s.key(k)
			emitNode(s, n.vals[i])
		}
		s.endObject()
	case '[':
		s.beginArray()
		for _, v := range n.vals {
			emitNode(s, v)
		}
		s.endArray()
	case 's':
		s.str(n.text)
	case 'n':
		s.number(n.text)
	case 't':
		s.boolean(true)
	case 'f':
		s.boolean(false)
	case '0':
		s.null()
	case 'r':
		s.rawJSON([]byte(n.text))
	}
}

// treeSink builds a node from the values written to it.
type treeSink struct {
	stack []*node
	keys  []string // the key each open object waits to fill, by depth
	root  *node
}

func (t *treeSink) add(v *node) {
	if len(t.stack) == 0 {
		t.root = v
		return
	}
	top := t.stack[len(t.stack)-1]
	if top.kind == '{' {
		top.keys = append(top.keys, t.keys[len(t.keys)-1])
	}
	top.vals = append(top.vals, v)
}

func (t *treeSink) open(n *node) {
	t.add(n)
	t.stack = append(t.stack, n)
	t.keys = append(t.keys, "")
}

func (t *treeSink) close() {
	t.stack = t.stack[:len(t.stack)-1]
	t.keys = t.keys[:len(t.keys)-1]
}

func (t *treeSink) beginObject()     { t.open(object()) }
func (t *treeSink) endObject()       { t.close() }
func (t *treeSink) beginArray()      { t.open(array()) }
func (t *treeSink) endArray()        { t.close() }
func (t *treeSink) key(k string)     { t.keys[len(t.keys)-1] = k }
func (t *treeSink) str(s string)     { t.add(strNode(s)) }
func (t *treeSink) number(x string)  { t.add(&node{kind: 'n', text: x}) }
func (t *treeSink) boolean(b bool)   { t.add(boolNode(b)) }
func (t *treeSink) null()            { t.add(nullNode) }
func (t *treeSink) rawJSON(b []byte) { replayJSON(t, b) }

// parseJSON reads a JSON text into a node.
func parseJSON(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("openapi: trailing data after the JSON value")
	}
	return n, nil
}

func parseValue(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		switch tok {
		case '{':
			n := object()
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
			n := array()
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
		return &node{kind: 'n', text: string(tok)}, nil
	case string:
		return strNode(tok), nil
	case bool:
		return boolNode(tok), nil
	case nil:
		return nullNode, nil
	}
	return nil, fmt.Errorf("openapi: unexpected JSON token %v", tok)
}
