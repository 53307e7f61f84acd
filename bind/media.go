package bind

import "strings"

// parseMediaType reads a Content-Type value by RFC 9110's grammar:
//
//	media-type = type "/" subtype parameters
//	parameters = *( OWS ";" OWS [ token "=" ( token / quoted-string ) ] )
//
// It returns the media type in lower case (allocating only when the value
// is not already lower case), the parameters' text and whether the value
// is well-formed. A missing or empty value is not.
func parseMediaType(ct string) (mt, params string, ok bool) {
	i := 0
	for i < len(ct) && isTchar(ct[i]) {
		i++
	}
	if i == 0 || i == len(ct) || ct[i] != '/' {
		return "", "", false
	}
	j := i + 1
	for j < len(ct) && isTchar(ct[j]) {
		j++
	}
	if j == i+1 {
		return "", "", false
	}
	mt, params = ct[:j], ct[j:]
	if !validParams(params) {
		return "", "", false
	}
	for k := 0; k < len(mt); k++ {
		if c := mt[k]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(mt), params, true
		}
	}
	return mt, params, true
}

// validParams checks the parameters' text of a media type.
func validParams(s string) bool {
	for {
		s = trimOWS(s)
		if s == "" {
			return true
		}
		if s[0] != ';' {
			return false
		}
		s = trimOWS(s[1:])
		if s == "" || s[0] == ';' {
			continue // an empty parameter
		}
		var ok bool
		if _, _, s, ok = nextParam(s); !ok {
			return false
		}
	}
}

// nextParam reads token "=" ( token / quoted-string ) from the start of s.
func nextParam(s string) (name, value, rest string, ok bool) {
	i := 0
	for i < len(s) && isTchar(s[i]) {
		i++
	}
	if i == 0 || i == len(s) || s[i] != '=' {
		return "", "", "", false
	}
	name, s = s[:i], s[i+1:]
	if s != "" && s[0] == '"' {
		j := 1
		for {
			if j >= len(s) {
				return "", "", "", false
			}
			c := s[j]
			if c == '"' {
				break
			}
			if c == '\\' {
				if j++; j >= len(s) {
					return "", "", "", false
				}
				c = s[j]
			}
			if c < ' ' && c != '\t' || c == 0x7f {
				return "", "", "", false
			}
			j++
		}
		return name, unquote(s[1:j]), s[j+1:], true
	}
	j := 0
	for j < len(s) && isTchar(s[j]) {
		j++
	}
	if j == 0 {
		return "", "", "", false
	}
	return name, s[:j], s[j:], true
}

// mediaParam returns the value of parameter name (case-insensitive) of a
// well-formed parameters' text, and whether it is there.
func mediaParam(params, name string) (string, bool) {
	s := params
	for {
		s = trimOWS(s)
		if s == "" {
			return "", false
		}
		s = trimOWS(s[1:]) // the ';'
		if s == "" || s[0] == ';' {
			continue
		}
		n, v, rest, ok := nextParam(s)
		if !ok {
			return "", false
		}
		if strings.EqualFold(n, name) {
			return v, true
		}
		s = rest
	}
}

func unquote(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func trimOWS(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	return s
}

// isTchar reports RFC 9110's token characters.
func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// isJSON reports the JSON media types: application/json and
// application/*+json.
func isJSON(mt string) bool {
	if mt == "application/json" {
		return true
	}
	sub, ok := strings.CutPrefix(mt, "application/")
	return ok && len(sub) > len("+json") && strings.HasSuffix(sub, "+json")
}
