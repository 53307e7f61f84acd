package jsonpatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"testing"
)

func mustValue(t testing.TB, s string) any {
	t.Helper()
	v, err := Unmarshal([]byte(s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

func encode(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The examples of RFC 6902 appendix A, each with the result or the
// failure the RFC gives.
func TestRFC6902Examples(t *testing.T) {
	for _, c := range []struct {
		name, doc, patch, want string
		test                   bool // a failed test, else any other error when want is ""
	}{
		{"A.1 add member", `{"foo":"bar"}`, `[{"op":"add","path":"/baz","value":"qux"}]`, `{"baz":"qux","foo":"bar"}`, false},
		{"A.2 add element", `{"foo":["bar","baz"]}`, `[{"op":"add","path":"/foo/1","value":"qux"}]`, `{"foo":["bar","qux","baz"]}`, false},
		{"A.3 remove member", `{"baz":"qux","foo":"bar"}`, `[{"op":"remove","path":"/baz"}]`, `{"foo":"bar"}`, false},
		{"A.4 remove element", `{"foo":["bar","qux","baz"]}`, `[{"op":"remove","path":"/foo/1"}]`, `{"foo":["bar","baz"]}`, false},
		{"A.5 replace", `{"baz":"qux","foo":"bar"}`, `[{"op":"replace","path":"/baz","value":"boo"}]`, `{"baz":"boo","foo":"bar"}`, false},
		{"A.6 move member", `{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}`,
			`[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]`, `{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}`, false},
		{"A.7 move element", `{"foo":["all","grass","cows","eat"]}`, `[{"op":"move","from":"/foo/1","path":"/foo/3"}]`,
			`{"foo":["all","cows","eat","grass"]}`, false},
		{"A.8 test holds", `{"baz":"qux","foo":["a",2,"c"]}`,
			`[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]`, `{"baz":"qux","foo":["a",2,"c"]}`, false},
		{"A.9 test fails", `{"baz":"qux"}`, `[{"op":"test","path":"/baz","value":"bar"}]`, ``, true},
		{"A.10 nested object", `{"foo":"bar"}`, `[{"op":"add","path":"/child","value":{"grandchild":{}}}]`, `{"child":{"grandchild":{}},"foo":"bar"}`, false},
		{"A.11 unknown members ignored", `{"foo":"bar"}`, `[{"op":"add","path":"/baz","value":"qux","xyz":123}]`, `{"baz":"qux","foo":"bar"}`, false},
		{"A.12 nonexistent target", `{"foo":"bar"}`, `[{"op":"add","path":"/baz/bat","value":"qux"}]`, ``, false},
		{"A.13 member twice", `{"foo":"bar"}`, `[{"op":"add","path":"/baz","value":"qux","op":"remove"}]`, ``, false},
		{"A.14 escape ordering", `{"/":9,"~1":10}`, `[{"op":"test","path":"/~01","value":10}]`, `{"/":9,"~1":10}`, false},
		{"A.15 string is not number", `{"/":9,"~1":10}`, `[{"op":"test","path":"/~01","value":"10"}]`, ``, true},
		{"A.16 add array value", `{"foo":["bar"]}`, `[{"op":"add","path":"/foo/-","value":["abc","def"]}]`, `{"foo":["bar",["abc","def"]]}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Decode([]byte(c.patch), 0)
			if err == nil {
				var out any
				out, err = Apply(mustValue(t, c.doc), p)
				if err == nil {
					if got := encode(t, out); got != c.want {
						t.Errorf("got %s, want %s", got, c.want)
					}
					return
				}
			}
			var pe *Error
			if c.want != "" || !errors.As(err, &pe) || errors.Is(err, ErrTestFailed) != c.test {
				t.Errorf("error %v (a failed test: %v), want result %q", err, errors.Is(err, ErrTestFailed), c.want)
			}
		})
	}
}

// The pointers of RFC 6901 section 5 reach the values it lists, and each
// parses and encodes back to itself.
func TestRFC6901Examples(t *testing.T) {
	doc := mustValue(t, `{"foo":["bar","baz"],"":0,"a/b":1,"c%d":2,"e^f":3,"g|h":4,"i\\j":5,"k\"l":6," ":7,"m~n":8}`)
	for ptr, want := range map[string]string{
		``: encode(t, doc), `/foo`: `["bar","baz"]`, `/foo/0`: `"bar"`, `/`: `0`, `/a~1b`: `1`, `/c%d`: `2`, `/e^f`: `3`,
		`/g|h`: `4`, `/i\j`: `5`, `/k"l`: `6`, `/ `: `7`, `/m~0n`: `8`,
	} {
		p, err := ParsePointer(ptr)
		if err != nil {
			t.Fatalf("%q: %v", ptr, err)
		}
		var a applier
		v, perr := a.get(doc, p)
		if perr != nil || encode(t, v) != want {
			t.Errorf("%q: %v %v, want %s", ptr, v, perr, want)
		}
		if p.String() != ptr {
			t.Errorf("%q encodes back as %q", ptr, p.String())
		}
	}
	for _, bad := range []string{"a", "a/b", "/~", "/~2", "/a~", "/~~"} {
		if _, err := ParsePointer(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// An array index is 0 or digits without a leading zero (RFC 6901
// section 4); "-" only where a new element goes; the same tokens are
// ordinary member names of an object.
func TestArrayIndexGrammar(t *testing.T) {
	doc := `{"tags":["a","b","c"],"m":{"01":"x","+0":"y","-":"z"}}`
	for _, c := range []struct {
		patch string
		ok    bool
	}{
		{`[{"op":"test","path":"/tags/0","value":"a"}]`, true},
		{`[{"op":"test","path":"/tags/2","value":"c"}]`, true},
		{`[{"op":"test","path":"/tags/01","value":"b"}]`, false},
		{`[{"op":"test","path":"/tags/+0","value":"a"}]`, false},
		{`[{"op":"test","path":"/tags/-0","value":"a"}]`, false},
		{`[{"op":"test","path":"/tags/ 1","value":"b"}]`, false},
		{`[{"op":"test","path":"/tags/1e0","value":"b"}]`, false},
		{`[{"op":"test","path":"/tags/3","value":"a"}]`, false},
		{`[{"op":"test","path":"/tags/99999999999999999999999","value":"a"}]`, false},
		{`[{"op":"test","path":"/tags/-","value":"a"}]`, false},
		{`[{"op":"remove","path":"/tags/-"}]`, false},
		{`[{"op":"replace","path":"/tags/-","value":1}]`, false},
		{`[{"op":"remove","path":"/tags/01"}]`, false},
		{`[{"op":"add","path":"/tags/01","value":"x"}]`, false},
		{`[{"op":"add","path":"/tags/3","value":"x"}]`, true},
		{`[{"op":"add","path":"/tags/4","value":"x"}]`, false},
		{`[{"op":"add","path":"/tags/-","value":"x"}]`, true},
		{`[{"op":"copy","from":"/tags/-","path":"/tags/0"}]`, false},
		{`[{"op":"move","from":"/tags/-","path":"/tags/0"}]`, false},
		{`[{"op":"copy","from":"/tags/0","path":"/tags/-"}]`, true},
		{`[{"op":"test","path":"/m/01","value":"x"}]`, true},
		{`[{"op":"test","path":"/m/+0","value":"y"}]`, true},
		{`[{"op":"test","path":"/m/-","value":"z"}]`, true},
	} {
		p, err := Decode([]byte(c.patch), 0)
		if err == nil {
			_, err = Apply(mustValue(t, doc), p)
		}
		if (err == nil) != c.ok {
			t.Errorf("%s: %v", c.patch, err)
		}
	}
}

// test compares numbers by value, objects whatever their member order
// (RFC 6902 section 4.6).
func TestTestEquality(t *testing.T) {
	doc := `{"id":16526,"f":0.5,"z":0,"o":{"a":1,"b":[1,2]},"s":"16526","big":1e400}`
	for _, c := range []struct {
		path, value string
		equal       bool
	}{
		{"/id", `16526`, true},
		{"/id", `16526.0`, true},
		{"/id", `1.6526e4`, true},
		{"/id", `165260e-1`, true},
		{"/id", `16526.000000000000000000000001`, false},
		{"/id", `-16526`, false},
		{"/id", `"16526"`, false},
		{"/s", `16526`, false},
		{"/f", `5e-1`, true},
		{"/f", `0.50`, true},
		{"/z", `-0`, true},
		{"/z", `0e10`, true},
		{"/z", `0.0`, true},
		{"/big", `10e399`, true},
		{"/big", `1e399`, false},
		{"/o", `{"b":[1,2],"a":1.0}`, true},
		{"/o", `{"b":[2,1],"a":1}`, false},
		{"/o", `{"a":1}`, false},
		{"/o", `{"a":1,"b":[1,2],"c":null}`, false},
		{"/o/b", `[1,2.0]`, true},
	} {
		p, err := Decode([]byte(`[{"op":"test","path":"`+c.path+`","value":`+c.value+`}]`), 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Apply(mustValue(t, doc), p)
		if (err == nil) != c.equal || (err != nil && !errors.Is(err, ErrTestFailed)) {
			t.Errorf("test %s = %s: %v", c.path, c.value, err)
		}
	}
	// A test of something that is not there is a failed test too.
	for _, path := range []string{"/missing", "/o/b/5", "/id/x", "/o/b/01"} {
		p, _ := Decode([]byte(`[{"op":"test","path":"`+path+`","value":1}]`), 0)
		if _, err := Apply(mustValue(t, doc), p); !errors.Is(err, ErrTestFailed) {
			t.Errorf("test of %s: %v", path, err)
		}
	}
}

// Numbers are equal exactly when their values are, whatever their form,
// as math/big says for those it can hold.
func TestEqualNumbers(t *testing.T) {
	nums := []string{"0", "-0", "0.0", "1", "1.0", "10e-1", "0.1e1", "100", "1e2", "1E+2", "100.00", "-1", "-1.0e0",
		"123456789012345678901234567890", "1.23456789012345678901234567890e29", "5e-324", "0.5e-323", "1e-7", "0.0000001"}
	for _, a := range nums {
		for _, b := range nums {
			ra, _ := new(big.Rat).SetString(a)
			rb, _ := new(big.Rat).SetString(b)
			if got, want := equalNumbers(a, b), ra.Cmp(rb) == 0; got != want {
				t.Errorf("%s = %s: %v, want %v", a, b, got, want)
			}
		}
	}
	for _, bad := range []string{"01", "1.", ".5", "1e", "1e+-2", "+1", "0x10", "1e2e3", ""} {
		if equalNumbers(bad, "1") || equalNumbers("1", bad) {
			t.Errorf("%q equals 1", bad)
		}
	}
	// An exponent longer than any int64 is still compared exactly.
	if !equalNumbers("1e100000000000000000000000", "10e99999999999999999999999") ||
		equalNumbers("1e100000000000000000000000", "1e99999999999999999999999") {
		t.Error("long exponents")
	}
}

// Decode refuses what is not a JSON Patch, naming the operation and member.
func TestDecodeRefuses(t *testing.T) {
	for _, c := range []struct{ patch, want string }{
		{`{}`, "an array of operations"},
		{`null`, "an array of operations"},
		{`[1]`, "operation 0: an operation is a JSON object"},
		{`[{"path":"/a"}]`, "operation 0 (op): required"},
		{`[{"op":1,"path":"/a"}]`, "op is a string"},
		{`[{"op":"jump","path":"/a"}]`, `"jump" is not an operation`},
		{`[{"op":"add","value":1}]`, `required for add`},
		{`[{"op":"add","path":"a","value":1}]`, `(path "a"): a JSON Pointer is empty or starts with /`},
		{`[{"op":"remove","path":"/a"},{"op":"add","path":"/a~2","value":1}]`, `operation 1 (path "/a~2")`},
		{`[{"op":"add","path":"/a"}]`, `value`},
		{`[{"op":"copy","path":"/a"}]`, `from`},
		{`[{"op":"move","path":"/a","from":5}]`, `from is a JSON Pointer`},
		{`[{"op":"add","path":"/a","value":1,"value":2}]`, `"value" appears twice`},
		{`[] []`, "more than one JSON value"},
	} {
		_, err := Decode([]byte(c.patch), 0)
		var pe *Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.patch, err, c.want)
		}
	}
	// null is a value like any other.
	if p, err := Decode([]byte(`[{"op":"add","path":"/a","value":null}]`), 0); err != nil || len(p) != 1 {
		t.Errorf("value null: %v", err)
	}
}

// Decode stops at the first operation past its maximum, without reading
// the rest.
func TestDecodeMaxOperations(t *testing.T) {
	op := `{"op":"test","path":"/a","value":1},`
	if _, err := Decode([]byte("["+strings.Repeat(op, 3)[:len(op)*3-1]+"]"), 3); err != nil {
		t.Errorf("3 of 3: %v", err)
	}
	// The fourth operation is not even well-formed: Decode stops before it.
	_, err := Decode([]byte("["+strings.Repeat(op, 3)+"{garbage"), 3)
	if err == nil || !strings.Contains(err.Error(), "at most 3 operations") {
		t.Errorf("4 of 3: %v", err)
	}
	big := "[" + strings.Repeat(op, DefaultMaxOperations) + op[:len(op)-1] + "]"
	if _, err := Decode([]byte(big), 0); err == nil || !strings.Contains(err.Error(), "at most 1000") {
		t.Errorf("1001 by default: %v", err)
	}
}

// Move into one of its own children fails; to itself changes nothing;
// remove of the root fails; add and replace at the root replace the
// document.
func TestMoveAndRoot(t *testing.T) {
	for _, c := range []struct{ doc, patch, want string }{
		{`{"a":{"b":1}}`, `[{"op":"move","from":"/a","path":"/a/c"}]`, ``},
		{`{"a":{"b":1}}`, `[{"op":"move","from":"/a","path":"/a"}]`, `{"a":{"b":1}}`},
		{`{"a":[1,2,3]}`, `[{"op":"move","from":"/a/1","path":"/a/1"}]`, `{"a":[1,2,3]}`},
		{`{"a":[1,2,3]}`, `[{"op":"move","from":"/a/0","path":"/a/-"}]`, `{"a":[2,3,1]}`},
		{`{"a":1}`, `[{"op":"move","from":"","path":""}]`, `{"a":1}`},
		{`{"a":1}`, `[{"op":"move","from":"","path":"/b"}]`, ``},
		{`{"a":1}`, `[{"op":"move","from":"/x","path":"/x"}]`, ``},
		{`{"a":1}`, `[{"op":"remove","path":""}]`, ``},
		{`{"a":1}`, `[{"op":"replace","path":"","value":[1]}]`, `[1]`},
		{`{"a":1}`, `[{"op":"add","path":"","value":"s"}]`, `"s"`},
		{`{"a":1}`, `[{"op":"copy","from":"","path":"/b"}]`, `{"a":1,"b":{"a":1}}`},
		{`{"a":1}`, `[{"op":"add","path":"/a/b","value":1}]`, ``},
		{`{"a":1}`, `[{"op":"replace","path":"/b","value":1}]`, ``},
		{`{"a":1}`, `[{"op":"remove","path":"/a"},{"op":"test","path":"/a","value":1}]`, ``},
	} {
		p, err := Decode([]byte(c.patch), 0)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Apply(mustValue(t, c.doc), p)
		got := ""
		if err == nil {
			got = encode(t, out)
		}
		if got != c.want {
			t.Errorf("%s on %s: %s (%v), want %q", c.patch, c.doc, got, err, c.want)
		}
	}
}

// A patch's values are copied into the document: applying the same patch
// twice, as a retry does, gives the same result.
func TestApplyTwice(t *testing.T) {
	p, err := Decode([]byte(`[{"op":"add","path":"/a","value":{"x":[1]}},{"op":"add","path":"/a/y","value":2},{"op":"add","path":"/a/x/-","value":3}]`), 0)
	if err != nil {
		t.Fatal(err)
	}
	first, err1 := Apply(mustValue(t, `{}`), p)
	second, err2 := Apply(mustValue(t, `{}`), p)
	if err1 != nil || err2 != nil || encode(t, first) != encode(t, second) || encode(t, first) != `{"a":{"x":[1,3],"y":2}}` {
		t.Errorf("%s %s (%v %v)", encode(t, first), encode(t, second), err1, err2)
	}
}

// The examples of RFC 7396 appendix A.
func TestMergeRFC7396(t *testing.T) {
	for _, c := range [][3]string{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, `null`},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"a":1,"e":null}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
	} {
		if got := encode(t, Merge(mustValue(t, c[0]), mustValue(t, c[1]))); got != c[2] {
			t.Errorf("%s + %s = %s, want %s", c[0], c[1], got, c[2])
		}
	}
}

// What a patch costs is linear in its size: twice the operations, about
// twice the work, whatever they are; and work past the budget (a copy of
// the document into itself, again and again; insertions at the head of an
// array that grows) is refused, not done.
func TestWorkIsLinear(t *testing.T) {
	ops := map[string]string{
		"append":     `{"op":"add","path":"/a/-","value":"x"},`,
		"test":       `{"op":"test","path":"/o/k","value":{"n":[1,2,3]}},`,
		"move":       `{"op":"move","from":"/o/k","path":"/o/k"},`,
		"copy small": `{"op":"copy","from":"/o","path":"/c"},`,
		"replace":    `{"op":"replace","path":"/s","value":"abcdef"},`,
	}
	doc := `{"a":[],"o":{"k":{"n":[1,2,3]}},"s":""}`
	for name, op := range ops {
		costOf := func(n int) (int, int) {
			body := "[" + strings.Repeat(op, n)
			body = body[:len(body)-1] + "]"
			p, err := Decode([]byte(body), n)
			if err != nil {
				t.Fatal(err)
			}
			_, w, err := apply(mustValue(t, doc), p)
			if err != nil {
				t.Fatalf("%s ×%d: %v", name, n, err)
			}
			return w, len(body)
		}
		w1, b1 := costOf(500)
		w2, b2 := costOf(1000)
		if w2 > 2*w1+w1/10 || w2 > 4*b2 {
			t.Errorf("%s: work %d for %d bytes, %d for %d bytes", name, w1, b1, w2, b2)
		}
	}

	// Each copy of the root into itself doubles the document: the
	// copy budget ends it after a few dozen, having copied no more than
	// it allows.
	body := "[" + strings.Repeat(`{"op":"copy","from":"","path":"/a/-"},`, 60)
	p, err := Decode([]byte(body[:len(body)-1]+"]"), 0)
	if err != nil {
		t.Fatal(err)
	}
	root := mustValue(t, `{"a":[{},{},{},{},{},{},{},{}]}`)
	a := &applier{budget: Budget(size(root), len(body)), copies: CopyBudget(size(root), len(body))}
	stopped := -1
	for i, op := range p {
		var perr *Error
		if root, perr = a.do(root, op); perr != nil {
			if !errors.Is(perr, ErrTooCostly) || a.copied > a.copies+a.copies {
				t.Errorf("copies of the root: stopped at %d, copied %d of %d: %v", i, a.copied, a.copies, perr)
			}
			stopped = i
			break
		}
		if a.copied > a.copies {
			t.Fatalf("copied %d, more than %d, and went on", a.copied, a.copies)
		}
	}
	if stopped < 0 || stopped > 20 {
		t.Errorf("60 copies of the root, each twice the one before: stopped at %d", stopped)
	}

	// Insertions at the head of a long array shift it each time.
	long := `{"a":[` + strings.Repeat(`0,`, 200000) + `0]}`
	body = "[" + strings.Repeat(`{"op":"add","path":"/a/0","value":0},`, 1000)
	p, err = Decode([]byte(body[:len(body)-1]+"]"), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, w, err := apply(mustValue(t, long), p)
	if !errors.Is(err, ErrTooCostly) || w > Budget(200001*2+1, len(body))+200001+1000 {
		t.Errorf("head insertions: work %d, %v", w, err)
	}
}

// FuzzPointer: a pointer that parses encodes back to the same text, and
// tokens encoded as a pointer parse back to the same tokens.
func FuzzPointer(f *testing.F) {
	for _, s := range []string{"", "/", "/a~1b", "/m~0n", "/~01", "//", "/a/0/-", "a", "/~", "/~2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePointer(s)
		if err == nil && p.String() != s {
			t.Fatalf("%q parses to %q and encodes as %q", s, []string(p), p.String())
		}
		if err != nil && (s == "" || (s[0] == '/' && !strings.Contains(s, "~"))) {
			t.Fatalf("%q refused: %v", s, err)
		}
		tokens := Pointer(strings.Split(s, "\x00"))
		back, err := ParsePointer(tokens.String())
		if err != nil || fmt.Sprint([]string(back)) != fmt.Sprint([]string(tokens)) {
			t.Fatalf("tokens %q encode as %q, which parses to %q (%v)", []string(tokens), tokens.String(), []string(back), err)
		}
	})
}

// FuzzApply applies a patch to a document and checks what RFC 6902 says
// must hold whatever they are: nothing panics; the work stays within the
// budget; a test of the value an add just put there holds; removing what
// an add put at a new location gives back the document; the same patch on
// the same document gives the same result; Equal is reflexive.
func FuzzApply(f *testing.F) {
	f.Add(`{"a":[1,2],"b":{"c":"d"}}`, `[{"op":"add","path":"/a/1","value":{"x":1.0}}]`, "/b/e", `[1,{"y":null}]`)
	f.Add(`{"a":[1,2]}`, `[{"op":"move","from":"/a/0","path":"/a/-"},{"op":"copy","from":"/a","path":"/c"}]`, "/a/-", `7`)
	f.Add(`[]`, `[{"op":"test","path":"","value":[]}]`, "/0", `"s"`)
	f.Add(`{"n":16526}`, `[{"op":"test","path":"/n","value":16526.0}]`, "/m", `1e3`)
	f.Fuzz(func(t *testing.T, docText, patchText, path, valueText string) {
		doc, err := Unmarshal([]byte(docText))
		if err != nil {
			return
		}
		if !Equal(doc, doc) {
			t.Fatalf("%s is not equal to itself", docText)
		}
		if p, err := Decode([]byte(patchText), 0); err == nil {
			ps := 0
			for _, op := range p {
				ps += 1 + len(op.Path) + len(op.From) + size(op.Value)
			}
			budget := Budget(size(doc), ps)
			out1, w, err1 := apply(clone(doc), p)
			out2, _, err2 := apply(clone(doc), p)
			if (err1 == nil) != (err2 == nil) || (err1 == nil && !Equal(out1, out2)) {
				t.Fatalf("the same patch gave %v (%v) and %v (%v)", out1, err1, out2, err2)
			}
			// The work may pass the budget by the step that found it
			// passed it, which is at most the size of what it handled.
			if w > 2*budget+size(doc)+ps {
				t.Fatalf("work %d, budget %d", w, budget)
			}
		}
		value, err := Unmarshal([]byte(valueText))
		if err != nil {
			return
		}
		ptr, err := ParsePointer(path)
		if err != nil || len(ptr) == 0 {
			return
		}
		var existed bool
		{
			var a applier
			_, gerr := a.get(doc, ptr)
			existed = gerr == nil
		}
		added, err := Apply(clone(doc), Patch{{Op: "add", Path: ptr, Value: value}})
		if err != nil {
			return
		}
		// The location the add used, "-" read as the index it became.
		at := append(Pointer(nil), ptr...)
		if at[len(at)-1] == "-" {
			var a applier
			parent, _ := a.get(doc, at[:len(at)-1])
			if arr, ok := parent.([]any); ok {
				at[len(at)-1] = strconv.Itoa(len(arr))
			}
		}
		if _, err := Apply(clone(added), Patch{{Op: "test", Path: at, Value: value}}); err != nil {
			t.Fatalf("add %s %s to %s, then test: %v", path, valueText, docText, err)
		}
		_, isArray := func() (any, bool) {
			var a applier
			parent, _ := a.get(doc, at[:len(at)-1])
			arr, ok := parent.([]any)
			return arr, ok
		}()
		if existed && !isArray {
			return // the add replaced a member: its old value is gone
		}
		back, err := Apply(added, Patch{{Op: "remove", Path: at}})
		if err != nil || !Equal(back, doc) {
			t.Fatalf("add then remove %s on %s: %s (%v)", at, docText, encode(t, back), err)
		}
	})
}
