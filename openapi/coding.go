package openapi

import (
	"strings"
)

// chooseCoding returns the content coding to answer a request whose
// Accept-Encoding is header with, among offered (in the server's order of
// preference) and identity: the one the client gives the highest weight
// (RFC 9110 §12.5.3), the server's order breaking ties, and identity,
// unless listed, weighing least of the acceptable codings. "" is identity:
// what a request without Accept-Encoding gets, and what is sent when the
// client accepts nothing offered (identity too is then unacceptable, but
// it is the one representation that every client can read).
func chooseCoding(header string, offered ...string) string {
	if header == "" {
		return ""
	}
	star, identity := -1, -1 // weights in thousandths; -1: not listed
	weights := make([]int, len(offered))
	for i := range weights {
		weights[i] = -1
	}
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(part, ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" {
			continue
		}
		q, ok := qvalue(params)
		if !ok {
			continue // a malformed weight: as if the coding were not listed
		}
		if name == "x-gzip" {
			name = "gzip"
		}
		switch name {
		case "*":
			star = q
		case "identity":
			identity = q
		default:
			for i, c := range offered {
				if c == name {
					weights[i] = q
				}
			}
		}
	}
	if identity < 0 {
		// Acceptable unless excluded, by itself or by *, and then the
		// least preferred: a client that lists a coding wants it.
		identity = 1
		if star == 0 {
			identity = 0
		}
	}
	best, bestQ := "", 0
	for i, c := range offered {
		q := weights[i]
		if q < 0 {
			q = max(star, 0)
		}
		if q > bestQ {
			best, bestQ = c, q
		}
	}
	if bestQ < identity {
		return ""
	}
	return best
}

// qvalue parses the parameters after a coding (";q=0.5"): the weight in
// thousandths, 1000 when there is none.
func qvalue(params string) (int, bool) {
	q := 1000
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		v = strings.TrimSpace(v)
		// qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
		if v == "" || len(v) > 5 || (v[0] != '0' && v[0] != '1') || len(v) > 1 && v[1] != '.' {
			return 0, false
		}
		n, scale := int(v[0]-'0')*1000, 100
		for _, c := range v[min(2, len(v)):] {
			if c < '0' || c > '9' {
				return 0, false
			}
			n += int(c-'0') * scale
			scale /= 10
		}
		if n > 1000 {
			return 0, false
		}
		q = n
	}
	return q, true
}
