package jsonpatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"strconv"
	"strings"
)

// Unmarshal decodes one JSON value as this package's documents are held:
// nil, bool, json.Number, string, []any and map[string]any.
func Unmarshal(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// Equal reports whether a and b are the same JSON value (RFC 6902 section
// 4.6): strings of the same characters, numbers of the same value
// (16526, 16526.0 and 1.6526e4 are equal), arrays of equal elements in
// the same order, objects of the same members with equal values in any
// order, and the same literal (true, false, null).
func Equal(a, b any) bool {
	var w work
	return w.equal(a, b)
}

// work counts what an operation did, in units of values visited, array
// elements shifted and bytes compared.
type work struct{ n int }

func (w *work) equal(a, b any) bool {
	w.n++
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		w.n += min(len(x), len(y))
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !w.equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			w.n += len(k)
			yv, ok := y[k]
			if !ok || !w.equal(xv, yv) {
				return false
			}
		}
		return true
	}
	xs, ok := numberText(a)
	if !ok {
		return false
	}
	ys, ok := numberText(b)
	w.n += min(len(xs), len(ys))
	return ok && equalNumbers(xs, ys)
}

// numberText is the text of a number value: a json.Number's own, or a Go
// number's shortest decimal form.
func numberText(v any) (string, bool) {
	switch n := v.(type) {
	case json.Number:
		return string(n), true
	case float64:
		return strconv.FormatFloat(n, 'g', -1, 64), true
	case int:
		return strconv.Itoa(n), true
	case int64:
		return strconv.FormatInt(n, 10), true
	}
	return "", false
}

// equalNumbers reports whether the JSON numbers x and y have the same
// value, exactly, in time linear in their length whatever their
// exponents. Text that is not a JSON number equals only itself.
func equalNumbers(x, y string) bool {
	if x == y {
		return true
	}
	a, okA := decimalOf(x)
	b, okB := decimalOf(y)
	if !okA || !okB {
		return false
	}
	if a.digits == "" || b.digits == "" {
		return a.digits == b.digits // both zero, whatever their signs
	}
	return a.neg == b.neg && a.digits == b.digits && a.exponent() == b.exponent()
}

// decimal is a number as digits × 10^(exp + shift): digits without
// leading or trailing zeros ("" for zero), exp the text of the written
// exponent.
type decimal struct {
	neg    bool
	digits string
	exp    string // with its sign, possibly "" (0)
	shift  int
}

// exponent is the power of ten of the last digit, in decimal.
func (d decimal) exponent() string {
	if len(d.exp) < 18 {
		e, _ := strconv.ParseInt(d.exp, 10, 64) // "" is 0
		return strconv.FormatInt(e+int64(d.shift), 10)
	}
	e, _ := new(big.Int).SetString(strings.TrimPrefix(d.exp, "+"), 10)
	return e.Add(e, big.NewInt(int64(d.shift))).String()
}

// decimalOf reads the JSON number s (RFC 8259 section 6).
func decimalOf(s string) (decimal, bool) {
	var d decimal
	if strings.HasPrefix(s, "-") {
		d.neg, s = true, s[1:]
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || (s[0] == '0' && i > 1) {
		return d, false
	}
	intPart, frac := s[:i], ""
	s = s[i:]
	if strings.HasPrefix(s, ".") {
		j := 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == 1 {
			return d, false
		}
		frac, s = s[1:j], s[j:]
	}
	if s != "" {
		if s[0] != 'e' && s[0] != 'E' {
			return d, false
		}
		s = s[1:]
		digits := strings.TrimLeft(s, "+-")
		if len(s)-len(digits) > 1 || digits == "" || strings.Trim(digits, "0123456789") != "" {
			return d, false
		}
		d.exp = s
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	trimmed := strings.TrimRight(digits, "0")
	d.digits = trimmed
	d.shift = len(digits) - len(trimmed) - len(frac)
	return d, true
}

// size is the work of copying v: one unit a value, and one a byte of its
// strings and member names.
func size(v any) int {
	switch x := v.(type) {
	case string:
		return 1 + len(x)
	case json.Number:
		return 1 + len(x)
	case []any:
		n := 1
		for _, e := range x {
			n += size(e)
		}
		return n
	case map[string]any:
		n := 1
		for k, e := range x {
			n += len(k) + size(e)
		}
		return n
	}
	return 1
}

// clone is a deep copy of v: a document never shares an array or object
// with another, or with the patch a value came from.
func clone(v any) any {
	switch x := v.(type) {
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = clone(e)
		}
		return c
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = clone(e)
		}
		return c
	}
	return v
}

// Clone is a deep copy of the document v.
func Clone(v any) any { return clone(v) }
