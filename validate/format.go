package validate

import (
	"net/netip"
	"strings"
)

// formats are the values of the format keyword that validate; any other
// format is an annotation only, as JSON Schema allows. Each checks without
// allocating.
var formats = map[string]func(string) bool{
	"date-time": isDateTime,
	"date":      isDate,
	"time":      isTime,
	"email":     isEmail,
	"uri":       isURI,
	"uuid":      isUUID,
	"ipv4":      func(s string) bool { a, err := netip.ParseAddr(s); return err == nil && a.Is4() },
	"ipv6":      func(s string) bool { a, err := netip.ParseAddr(s); return err == nil && a.Is6() },
	"hostname":  isHostname,
}

// Formats returns the names of the formats that validate.
func Formats() []string {
	return []string{"date-time", "date", "time", "email", "uri", "uuid", "ipv4", "ipv6", "hostname"}
}

func digits(s string, n int) (int, bool) {
	if len(s) < n {
		return 0, false
	}
	v := 0
	for i := 0; i < n; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// isDate checks RFC 3339 full-date: 2006-01-02.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	y, ok1 := digits(s, 4)
	m, ok2 := digits(s[5:], 2)
	d, ok3 := digits(s[8:], 2)
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
}

// isTime checks RFC 3339 full-time: 15:04:05[.frac](Z|±hh:mm).
func isTime(s string) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, ok1 := digits(s, 2)
	m, ok2 := digits(s[3:], 2)
	sec, ok3 := digits(s[6:], 2)
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return false
	}
	s = s[8:]
	if s[0] == '.' {
		i := 1
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 1 {
			return false
		}
		s = s[i:]
	}
	if s == "Z" || s == "z" {
		return true
	}
	if len(s) != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' {
		return false
	}
	oh, ok1 := digits(s[1:], 2)
	om, ok2 := digits(s[4:], 2)
	return ok1 && ok2 && oh <= 23 && om <= 59
}

// isDateTime checks RFC 3339 date-time.
func isDateTime(s string) bool {
	return len(s) > 11 && (s[10] == 'T' || s[10] == 't' || s[10] == ' ') && isDate(s[:10]) && isTime(s[11:])
}

// isEmail checks the shape of an address: a local part of printable
// characters without spaces or '@', an '@', and a hostname with a dot.
func isEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at > 64 || at == len(s)-1 {
		return false
	}
	for i := 0; i < at; i++ {
		c := s[i]
		if c <= ' ' || c == '@' || c == '"' || c == '(' || c == ')' || c == ',' || c == ':' || c == ';' || c == '<' || c == '>' || c == '[' || c == '\\' || c == ']' || c >= 0x7f {
			return false
		}
	}
	if s[0] == '.' || s[at-1] == '.' || strings.Contains(s[:at], "..") {
		return false
	}
	domain := s[at+1:]
	return strings.IndexByte(domain, '.') > 0 && isHostname(domain)
}

// isURI checks an absolute URI: a scheme, a colon, and no spaces or
// control characters.
func isURI(s string) bool {
	colon := strings.IndexByte(s, ':')
	if colon < 1 {
		return false
	}
	for i := 0; i < colon; i++ {
		c := s[i]
		letter := (c|0x20) >= 'a' && (c|0x20) <= 'z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	for i := colon + 1; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c == 0x7f || c == '"' || c == '<' || c == '>' || c == '\\' || c == '^' || c == '`' || c == '{' || c == '|' || c == '}' {
			return false
		}
	}
	return true
}

// isUUID checks 8-4-4-4-12 hexadecimal digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || (c|0x20) >= 'a' && (c|0x20) <= 'f') {
				return false
			}
		}
	}
	return true
}

// isHostname checks RFC 1123: dot-separated labels of letters, digits and
// hyphens, 1-63 characters, not starting or ending with a hyphen; 253 in all.
func isHostname(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	label := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.':
			if label == 0 || s[i-1] == '-' {
				return false
			}
			label = 0
			continue
		case c == '-':
			if label == 0 {
				return false
			}
		case c >= '0' && c <= '9', (c|0x20) >= 'a' && (c|0x20) <= 'z':
		default:
			return false
		}
		label++
		if label > 63 {
			return false
		}
	}
	return s[len(s)-1] != '-'
}
