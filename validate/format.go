package validate

import (
	"net/netip"
	"regexp"
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
	"ipv6":      func(s string) bool { a, err := netip.ParseAddr(s); return err == nil && a.Is6() && a.Zone() == "" },
	"hostname":  isHostname,
	"duration":  isDuration,
}

// Formats returns the names of the formats that validate.
func Formats() []string {
	return []string{"date-time", "date", "time", "duration", "email", "uri", "uuid", "ipv4", "ipv6", "hostname"}
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
	offset := 0 // minutes east of UTC
	switch {
	case s == "Z" || s == "z":
	case len(s) == 6 && (s[0] == '+' || s[0] == '-') && s[3] == ':':
		oh, ok1 := digits(s[1:], 2)
		om, ok2 := digits(s[4:], 2)
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return false
		}
		offset = oh*60 + om
		if s[0] == '-' {
			offset = -offset
		}
	default:
		return false
	}
	// A leap second is 23:59:60 in UTC.
	return sec < 60 || ((h*60+m-offset)%1440+1440)%1440 == 23*60+59
}

// isDateTime checks RFC 3339 date-time.
func isDateTime(s string) bool {
	return len(s) > 11 && (s[10] == 'T' || s[10] == 't' || s[10] == ' ') && isDate(s[:10]) && isTime(s[11:])
}

// isEmail checks an RFC 5321 mailbox: a dot-string or a quoted string as
// the local part, an '@', and a domain (a hostname, with or without a dot)
// or an address literal ([127.0.0.1], [IPv6:::1]).
func isEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if !isQuotedLocal(local) && !isDotString(local) {
		return false
	}
	if strings.HasPrefix(domain, "[") && strings.HasSuffix(domain, "]") {
		lit := domain[1 : len(domain)-1]
		if v6, ok := strings.CutPrefix(lit, "IPv6:"); ok {
			a, err := netip.ParseAddr(v6)
			return err == nil && a.Is6() && a.Zone() == ""
		}
		a, err := netip.ParseAddr(lit)
		return err == nil && a.Is4()
	}
	return isHostname(domain)
}

// isDotString checks RFC 5321's Dot-string: atoms of atext joined by
// single dots.
func isDotString(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' || c >= '0' && c <= '9' || (c|0x20) >= 'a' && (c|0x20) <= 'z' || strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// isQuotedLocal checks RFC 5321's Quoted-string: printable ASCII and
// spaces between double quotes, with backslash escapes.
func isQuotedLocal(s string) bool {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		c := s[i]
		switch {
		case c == '\\':
			i++
			if i >= len(s)-1 || s[i] < ' ' || s[i] > '~' {
				return false
			}
		case c == '"' || c < ' ' || c > '~':
			return false
		}
	}
	return true
}

// isURI checks an RFC 3986 URI: a scheme, then a hierarchical part (an
// authority with its userinfo, host and port when it starts with //),
// query and fragment of the characters RFC 3986 allows, with well-formed
// percent-encodings.
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
	rest := s[colon+1:]
	if frag := strings.IndexByte(rest, '#'); frag >= 0 {
		if !uriChars(rest[frag+1:], "/?:@") {
			return false
		}
		rest = rest[:frag]
	}
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		if !uriChars(rest[q+1:], "/?:@") {
			return false
		}
		rest = rest[:q]
	}
	if auth, ok := strings.CutPrefix(rest, "//"); ok {
		path := ""
		if slash := strings.IndexByte(auth, '/'); slash >= 0 {
			auth, path = auth[:slash], auth[slash:]
		}
		return isAuthority(auth) && uriChars(path, "/:@")
	}
	return uriChars(rest, "/:@")
}

// isAuthority checks [userinfo "@"] host [":" port].
func isAuthority(a string) bool {
	if at := strings.LastIndexByte(a, '@'); at >= 0 {
		if !uriChars(a[:at], ":") {
			return false
		}
		a = a[at+1:]
	}
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return false
		}
		host, port = a[:end+1], a[end+1:]
		if port != "" && port[0] != ':' {
			return false
		}
		lit := host[1 : len(host)-1]
		if len(lit) > 0 && (lit[0] == 'v' || lit[0] == 'V') {
			return len(lit) > 3 && strings.IndexByte(lit, '.') > 1 // IPvFuture
		}
		if strings.Contains(lit, "%") {
			return false
		}
		if _, err := netip.ParseAddr(lit); err != nil {
			return false
		}
	} else if c := strings.LastIndexByte(a, ':'); c >= 0 {
		host, port = a[:c], a[c:]
		if !uriChars(host, "") {
			return false
		}
	} else if !uriChars(host, "") {
		return false
	}
	for i := 1; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	return true
}

// uriChars reports whether s holds only unreserved characters,
// sub-delims, percent-encodings and the bytes in extra.
func uriChars(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', (c|0x20) >= 'a' && (c|0x20) <= 'z', strings.IndexByte("-._~!$&'()*+,;=", c) >= 0:
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		case strings.IndexByte(extra, c) >= 0:
		default:
			return false
		}
	}
	return true
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || (c|0x20) >= 'a' && (c|0x20) <= 'f' }

// durationPattern is RFC 3339's duration (Appendix A): P, then dates in
// the order Y M D with no gap, or weeks alone, and T with H M S in order,
// each a whole number.
var durationPattern = regexp.MustCompile(`^P(?:(?:[0-9]+D|[0-9]+M(?:[0-9]+D)?|[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?)(?:T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S))?|T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)|[0-9]+W)$`)

// isDuration checks an RFC 3339 duration: P4DT12H30M5S, PT36H, P2W.
func isDuration(s string) bool { return durationPattern.MatchString(s) }

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

// isHostname checks an RFC 1123 host name: dot-separated labels of
// letters, digits and hyphens, 1-63 characters, not starting or ending
// with a hyphen, 253 in all, no trailing dot; a label with hyphens in its
// third and fourth places must be an IDNA A-label (xn--…) that decodes to
// a valid U-label (see isALabel).
func isHostname(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c == '-' || c >= '0' && c <= '9' || (c|0x20) >= 'a' && (c|0x20) <= 'z') {
				return false
			}
		}
		if len(label) >= 4 && label[2] == '-' && label[3] == '-' {
			if !strings.EqualFold(label[:2], "xn") || !isALabel(label[4:]) {
				return false
			}
		}
	}
	return true
}
