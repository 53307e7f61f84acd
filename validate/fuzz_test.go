package validate

import (
	"context"
	"net/netip"
	"reflect"
	"testing"
	"unicode"
)

// FuzzRequiredScan feeds arbitrary bytes to the required-property scanner,
// which must neither panic nor loop, whatever a codec let through.
func FuzzRequiredScan(f *testing.F) {
	for _, s := range []string{
		`{"id":"x","email":"a@b.co","lines":[{"name":"a","qty":1}],"total":1}`,
		`{"lines":[{"name":1},{"qty":[1,{"a":"}"}]}],"scores":{"k":{"name":"a"}}}`,
		`{"priority":0,"kind":"","express":false,"address":{"street":"a","zip":""},"lines":[{},{},{},{"note":""}]}`,
		`{"address":{"zip":""},"address":{"zip":""},"Priority":0,"lines":[{"note":null}]}`,
		`{"\u0069d":null,`, `[`, `{"a"`, `{"a":}`, "\x00", `{"lines":[,,]}`, `"str"`,
	} {
		f.Add([]byte(s))
	}
	v, err := Compile(reflect.TypeFor[Order](), nil, "body")
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, data []byte) {
		o := validOrder()
		v.Validate(ctx, o, data)
	})
}

// FuzzFormats feeds arbitrary strings to every format checker, which must
// not panic, and checks ipv4 and ipv6 against net/netip and Punycode
// against its own round trip of basic characters.
func FuzzFormats(f *testing.F) {
	for _, s := range []string{
		"2024-02-29T23:59:60Z", "22:29:60.5-01:30", "P4DT12H30M5S", `"a b"@example.com`, "x@[IPv6:::1]",
		"http://[::1]:80/a%20b?c#d", "xn--9n2bp8q.xn--9t4b11yi5a", "xn--ngba5hb2804a", "fe80::1%eth0", "1.2.3.4",
		"xn--", "xn--zz99999999999", "%", "[", "@",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, name := range Formats() {
			formats[name](s)
		}
		a, err := netip.ParseAddr(s)
		if got, want := formats["ipv4"](s), err == nil && a.Is4(); got != want {
			t.Errorf("ipv4(%q) = %v, netip says %v", s, got, want)
		}
		if got, want := formats["ipv6"](s), err == nil && a.Is6() && a.Zone() == ""; got != want {
			t.Errorf("ipv6(%q) = %v, netip says %v", s, got, want)
		}
		if u, ok := punycodeDecode(s); ok {
			for _, r := range u {
				if r > unicode.MaxRune || (r >= 0xD800 && r <= 0xDFFF) {
					t.Errorf("punycode %q decoded to invalid rune %U", s, r)
				}
			}
		}
	})
}
