package validate

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// isALabel checks the part after "xn--" of an IDNA A-label: it must be
// valid Punycode (RFC 3492) that decodes to a U-label IDNA 2008 allows:
// not pure ASCII, no "--" in its third and fourth places, not starting with
// a combining mark, none of RFC 5892's DISALLOWED exceptions, and the
// CONTEXTJ and CONTEXTO rules of RFC 5892 Appendix A for the characters
// that have them. What it does not check is the full derived property
// table of RFC 5892 (for that, a host name would need the Unicode tables
// of golang.org/x/net/idna, which the root module does not depend on).
func isALabel(puny string) bool {
	u, ok := punycodeDecode(puny)
	if !ok || len(u) == 0 {
		return false
	}
	ascii := true
	for _, r := range u {
		if r >= utf8.RuneSelf {
			ascii = false
		}
	}
	if ascii || (len(u) >= 4 && u[2] == '-' && u[3] == '-') || unicode.Is(unicode.M, u[0]) {
		return false
	}
	hasKana := false
	for _, r := range u {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) && r != 0x30FB {
			hasKana = true
		}
	}
	arabicIndic, extArabicIndic := false, false
	for i, r := range u {
		var prev, next rune = -1, -1
		if i > 0 {
			prev = u[i-1]
		}
		if i+1 < len(u) {
			next = u[i+1]
		}
		switch {
		case r == 0x0640 || r == 0x07FA || r == 0x302E || r == 0x302F || (r >= 0x3031 && r <= 0x3035) || r == 0x303B:
			return false // DISALLOWED exceptions
		case r == 0x00B7: // MIDDLE DOT: between two l
			if prev != 'l' || next != 'l' {
				return false
			}
		case r == 0x0375: // GREEK LOWER NUMERAL SIGN: before Greek
			if next < 0 || !unicode.Is(unicode.Greek, next) {
				return false
			}
		case r == 0x05F3 || r == 0x05F4: // HEBREW GERESH, GERSHAYIM: after Hebrew
			if prev < 0 || !unicode.Is(unicode.Hebrew, prev) {
				return false
			}
		case r == 0x200D: // ZERO WIDTH JOINER: after a virama
			if !isVirama(prev) {
				return false
			}
		case r == 0x200C: // ZERO WIDTH NON-JOINER: after a virama, or between joining letters
			if !isVirama(prev) && !(isJoining(prev) && isJoining(next)) {
				return false
			}
		case r >= 0x0660 && r <= 0x0669:
			arabicIndic = true
		case r >= 0x06F0 && r <= 0x06F9:
			extArabicIndic = true
		}
		if r == 0x30FB && !hasKana { // KATAKANA MIDDLE DOT: with kana or Han
			return false
		}
	}
	return !(arabicIndic && extArabicIndic)
}

// isVirama reports the viramas (canonical combining class 9) of the
// scripts IDNA host names use.
func isVirama(r rune) bool {
	switch r {
	case 0x094D, 0x09CD, 0x0A4D, 0x0ACD, 0x0B4D, 0x0BCD, 0x0C4D, 0x0CCD, 0x0D3B, 0x0D3C, 0x0D4D,
		0x0DCA, 0x0E3A, 0x0EBA, 0x0F84, 0x1039, 0x103A, 0x1714, 0x1715, 0x1734, 0x17D2, 0x1A60,
		0x1B44, 0x1BAA, 0x1BAB, 0x1BF2, 0x1BF3, 0x2D7F, 0xA806, 0xA82C, 0xA8C4, 0xA953, 0xA9C0, 0xAAF6, 0xABED:
		return true
	}
	return false
}

// isJoining approximates RFC 5892's joining-type test for ZERO WIDTH
// NON-JOINER with the letters of the joining scripts (Arabic, Syriac, N'Ko).
func isJoining(r rune) bool {
	return r >= 0 && unicode.IsLetter(r) && unicode.In(r, unicode.Arabic, unicode.Syriac, unicode.Nko)
}

// punycodeDecode decodes RFC 3492 Punycode (the part of an A-label after
// "xn--"), reporting whether it was valid.
func punycodeDecode(s string) ([]rune, bool) {
	const (
		base, tmin, tmax, skew, damp = 36, 1, 26, 38, 700
		initialBias, initialN        = 72, 128
	)
	var out []rune
	if d := strings.LastIndexByte(s, '-'); d >= 0 {
		for i := 0; i < d; i++ {
			if s[i] >= utf8.RuneSelf {
				return nil, false
			}
			out = append(out, rune(s[i]))
		}
		s = s[d+1:]
		if s == "" {
			return nil, false // a label made of basic code points only has no xn-- form
		}
	}
	n, bias, i := rune(initialN), initialBias, 0
	for pos := 0; pos < len(s); {
		oldi, w := i, 1
		for k := base; ; k += base {
			if pos >= len(s) {
				return nil, false
			}
			c := s[pos]
			pos++
			var digit int
			switch {
			case c >= '0' && c <= '9':
				digit = int(c-'0') + 26
			case c >= 'a' && c <= 'z':
				digit = int(c - 'a')
			case c >= 'A' && c <= 'Z':
				digit = int(c - 'A')
			default:
				return nil, false
			}
			if digit > (1<<31-1-i)/w {
				return nil, false
			}
			i += digit * w
			t := k - bias
			if t < tmin {
				t = tmin
			} else if t > tmax {
				t = tmax
			}
			if digit < t {
				break
			}
			if w > (1<<31-1)/(base-t) {
				return nil, false
			}
			w *= base - t
		}
		length := len(out) + 1
		delta := i - oldi
		if oldi == 0 {
			delta /= damp
		} else {
			delta /= 2
		}
		delta += delta / length
		k := 0
		for delta > ((base-tmin)*tmax)/2 {
			delta /= base - tmin
			k += base
		}
		bias = k + (base-tmin+1)*delta/(delta+skew)
		n += rune(i / length)
		i %= length
		if n > unicode.MaxRune || (n >= 0xD800 && n <= 0xDFFF) {
			return nil, false
		}
		out = append(out, 0)
		copy(out[i+1:], out[i:])
		out[i] = n
		i++
	}
	return out, true
}
