package validate

import (
	"fmt"
	"github.com/vane-http/vane/internal/addr"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// stringNode checks minLength, maxLength (in code points, as JSON Schema
// counts), pattern, format and enum.
type stringNode struct {
	minLen, maxLen int // -1 when absent
	pattern        *regexp.Regexp
	format         func(string) bool
	formatName     string
	enum           []string
}

func (n *stringNode) check(p addr.Addr, c *collector) bool {
	s := *addr.As[string](p)
	ok := true
	fail := func(msg string) {
		ok = false
		if c != nil {
			c.add(msg, s)
		}
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLen >= 0 && l < n.minLen {
			if c == nil {
				return false
			}
			fail("expected length >= " + strconv.Itoa(n.minLen))
		}
		if n.maxLen >= 0 && l > n.maxLen {
			if c == nil {
				return false
			}
			fail("expected length <= " + strconv.Itoa(n.maxLen))
		}
	}
	if n.enum != nil && !containsString(n.enum, s) {
		if c == nil {
			return false
		}
		fail("expected one of: " + strings.Join(n.enum, ", "))
	}
	if n.format != nil && !n.format(s) {
		if c == nil {
			return false
		}
		fail("expected format " + n.formatName)
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		if c == nil {
			return false
		}
		fail("expected to match pattern " + n.pattern.String())
	}
	return ok
}

func containsString(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// numberNode checks minimum, maximum, exclusiveMinimum, exclusiveMaximum,
// multipleOf and enum of any integer or float kind.
type numberNode struct {
	kind         reflect.Kind
	has          bool
	lo, hi       float64 // the accepted range, inclusive: every bound folded in
	simple       bool    // no multipleOf and no enum: the range decides
	min, max     float64 // ±Inf when absent
	exMin, exMax float64 // ±Inf when absent
	multipleOf   float64 // 0 when absent
	enum         []float64
}

func load(k reflect.Kind, p addr.Addr) float64 {
	switch k {
	case reflect.Int:
		return float64(*addr.As[int](p))
	case reflect.Int8:
		return float64(*addr.As[int8](p))
	case reflect.Int16:
		return float64(*addr.As[int16](p))
	case reflect.Int32:
		return float64(*addr.As[int32](p))
	case reflect.Int64:
		return float64(*addr.As[int64](p))
	case reflect.Uint:
		return float64(*addr.As[uint](p))
	case reflect.Uint8:
		return float64(*addr.As[uint8](p))
	case reflect.Uint16:
		return float64(*addr.As[uint16](p))
	case reflect.Uint32:
		return float64(*addr.As[uint32](p))
	case reflect.Uint64:
		return float64(*addr.As[uint64](p))
	case reflect.Uintptr:
		return float64(*addr.As[uintptr](p))
	case reflect.Float32:
		return float64(*addr.As[float32](p))
	case reflect.Float64:
		return *addr.As[float64](p)
	}
	return 0
}

func (n *numberNode) check(p addr.Addr, c *collector) bool {
	v := load(n.kind, p)
	if c == nil && n.simple {
		return v >= n.lo && v <= n.hi // false for NaN, as the bounds checks below
	}
	return n.checkSlow(v, p, c)
}

func (n *numberNode) checkSlow(v float64, p addr.Addr, c *collector) bool {
	ok := true
	fail := func(msg string) {
		ok = false
		c.add(msg, n.box(p))
	}
	if v != v { // NaN: from ?x=NaN, never from JSON
		if c == nil {
			return false
		}
		fail("expected a number, not NaN")
	}
	if v < n.min {
		if c == nil {
			return false
		}
		fail("expected number >= " + fmtNum(n.min))
	}
	if v > n.max {
		if c == nil {
			return false
		}
		fail("expected number <= " + fmtNum(n.max))
	}
	if v <= n.exMin {
		if c == nil {
			return false
		}
		fail("expected number > " + fmtNum(n.exMin))
	}
	if v >= n.exMax {
		if c == nil {
			return false
		}
		fail("expected number < " + fmtNum(n.exMax))
	}
	if n.multipleOf != 0 && !isMultiple(v, n.multipleOf) {
		if c == nil {
			return false
		}
		fail("expected a multiple of " + fmtNum(n.multipleOf))
	}
	if n.enum != nil && !containsFloat(n.enum, v) {
		if c == nil {
			return false
		}
		parts := make([]string, len(n.enum))
		for i, e := range n.enum {
			parts[i] = fmtNum(e)
		}
		fail("expected one of: " + strings.Join(parts, ", "))
	}
	return ok
}

// int64Node is a numberNode for an int64 (or 64-bit int) with only bounds:
// the range test in integers, the general node for reporting.
type int64Node struct {
	lo, hi int64
	slow   *numberNode
}

func (n *int64Node) check(p addr.Addr, c *collector) bool {
	if v := *addr.As[int64](p); c == nil && v >= n.lo && v <= n.hi {
		return true
	}
	return n.slow.check(p, c)
}

func (n *numberNode) box(p addr.Addr) any {
	switch n.kind {
	case reflect.Float32, reflect.Float64:
		return load(n.kind, p)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uint64(load(n.kind, p))
	case reflect.Int64:
		return *addr.As[int64](p)
	case reflect.Int:
		return *addr.As[int](p)
	}
	return int64(load(n.kind, p))
}

func isMultiple(v, m float64) bool {
	q := v / m
	if math.IsInf(q, 0) || math.IsNaN(q) {
		return false
	}
	return math.Abs(q-math.Round(q)) <= 1e-9*math.Max(1, math.Abs(q))
}

func containsFloat(list []float64, v float64) bool {
	for _, e := range list {
		if e == v {
			return true
		}
	}
	return false
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// boolNode checks a boolean enum.
type boolNode struct{ allowTrue, allowFalse bool }

func (n *boolNode) check(p addr.Addr, c *collector) bool {
	b := *addr.As[bool](p)
	if (b && n.allowTrue) || (!b && n.allowFalse) {
		return true
	}
	if c != nil {
		c.add(fmt.Sprintf("expected %v", !b), b)
	}
	return false
}
