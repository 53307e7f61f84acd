package bind

import (
	"github.com/vane-http/vane/internal/addr"
	"net/http"
	"strings"

	"github.com/vane-http/vane/problem"
)

// How a cookie parameter's field takes its cookie.
const (
	cookieValue   = iota // a scalar: the value, parsed
	cookieStruct         // an http.Cookie: name and value
	cookiePointer        // an *http.Cookie
)

// bindCookies reads the Cookie header lines, building http.Cookie values
// only for fields of that type. The first cookie of a name wins, as with
// http.Request.Cookie. A value in double quotes is unquoted (the cookie's
// Quoted is set).
func (b *Binder) bindCookies(lines []string, base addr.Addr, st *State, errs []problem.FieldError) []problem.FieldError {
	var seen uint64 // bit i: b.cookie[i]; at most MaxPresent
	for _, line := range lines {
		for line != "" {
			var part string
			part, line, _ = cut(line, ';')
			name, val, ok := cut(strings.TrimSpace(part), '=')
			if !ok {
				continue
			}
			quoted := false
			if len(val) > 1 && val[0] == '"' && val[len(val)-1] == '"' {
				val, quoted = val[1:len(val)-1], true
			}
			for i := range b.cookie {
				p := &b.cookie[i]
				bit := uint64(1) << i
				if p.name != name || seen&bit != 0 {
					continue
				}
				seen |= bit
				dst := base.Field(p.offset)
				ok := true
				switch p.cookie {
				case cookieStruct:
					*addr.As[http.Cookie](dst) = http.Cookie{Name: p.name, Value: val, Quoted: quoted}
				case cookiePointer:
					*addr.As[*http.Cookie](dst) = &http.Cookie{Name: p.name, Value: val, Quoted: quoted}
				default:
					if err := p.set(val, dst); err != nil {
						errs = append(errs, fieldErr(p.loc, err, val))
						ok = false
					}
				}
				if ok {
					st.Present |= p.bit
				}
				break
			}
		}
	}
	for i := range b.cookie {
		if seen&(1<<i) == 0 {
			errs = b.cookie[i].absent(base, st, errs)
		}
	}
	return errs
}
