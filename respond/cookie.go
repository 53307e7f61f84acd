package respond

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"unsafe"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/schema"
)

// Cookies: an output field of type http.Cookie, *http.Cookie or
// []*http.Cookie tagged `cookie` is sent as Set-Cookie header lines, one
// per cookie, after any a middleware has set:
//
//	type LoginOutput struct {
//	    Session http.Cookie    `cookie:"session"` // sent when its Value or MaxAge is set
//	    Theme   *http.Cookie   `cookie:"theme"`   // sent when not nil
//	    More    []*http.Cookie `cookie:""`        // each cookie under its own Name
//	    Body    Profile
//	}
//
// The tag's name is the cookie's name for a single cookie (its Name
// field, if set, must agree); a slice's cookies carry their own names. A
// cookie that http.Cookie.Valid refuses (a bad name, value, path or
// domain) makes Write fail before anything is sent, so the caller answers
// 500 rather than silently dropping it as http.SetCookie does. The
// operation documents a Set-Cookie response header naming the cookies.
// A cookie type tagged header, or a cookie tag on another type, is a
// Compile error.

type cookieField struct {
	name   string // the tag's; "" for a slice
	offset uintptr
	kind   int // cookieValue, cookiePointer, cookieSlice
}

const (
	cookieValue = iota
	cookiePointer
	cookieSlice
)

var (
	cookieType      = reflect.TypeFor[http.Cookie]()
	cookiePtrType   = reflect.TypeFor[*http.Cookie]()
	cookieSliceType = reflect.TypeFor[[]*http.Cookie]()
)

func isCookieType(t reflect.Type) bool {
	return t == cookieType || t == cookiePtrType || t == cookieSliceType
}

func (o *Writer) addCookie(f reflect.StructField) error {
	name, ok := f.Tag.Lookup("cookie")
	if !ok {
		if _, isHeader := f.Tag.Lookup("header"); isHeader {
			return fmt.Errorf("%v is sent as Set-Cookie: tag it `cookie:\"name\"`, not header", f.Type)
		}
		return nil // not part of the response, as any untagged field
	}
	c := cookieField{name: name, offset: f.Offset}
	switch f.Type {
	case cookieType:
		c.kind = cookieValue
	case cookiePtrType:
		c.kind = cookiePointer
	default:
		c.kind = cookieSlice
		c.name = ""
	}
	if c.kind != cookieSlice && !validCookieName(name) {
		return fmt.Errorf("cookie name %q is not a valid token", name)
	}
	o.cookies = append(o.cookies, c)
	names := make([]string, 0, len(o.cookies))
	for _, c := range o.cookies {
		if c.name != "" {
			names = append(names, c.name)
		}
	}
	desc := "Sets cookies."
	if len(names) > 0 && len(names) == len(o.cookies) {
		desc = "Sets the cookie" + plural(len(names)) + " " + strings.Join(names, ", ") + "."
	} else if len(names) > 0 {
		desc = "Sets cookies, among them " + strings.Join(names, ", ") + "."
	}
	doc := operation.Header{Name: "Set-Cookie", Description: desc, Schema: &schema.Schema{Type: schema.TypeString}, Field: f.Name}
	for i := range o.headerDocs {
		if o.headerDocs[i].Name == "Set-Cookie" {
			o.headerDocs[i].Description = desc
			return nil
		}
	}
	o.headerDocs = append(o.headerDocs, doc)
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func validCookieName(name string) bool {
	return name != "" && (&http.Cookie{Name: name}).Valid() == nil
}

// setCookies adds the Set-Cookie lines of the output at p.
func (o *Writer) setCookies(hdr http.Header, p unsafe.Pointer) error {
	for _, f := range o.cookies {
		fp := unsafe.Add(p, f.offset)
		switch f.kind {
		case cookieValue:
			c := (*http.Cookie)(fp)
			if c.Value == "" && c.MaxAge == 0 {
				continue
			}
			if err := addCookie(hdr, c, f.name); err != nil {
				return err
			}
		case cookiePointer:
			if c := *(**http.Cookie)(fp); c != nil {
				if err := addCookie(hdr, c, f.name); err != nil {
					return err
				}
			}
		default:
			for _, c := range *(*[]*http.Cookie)(fp) {
				if c == nil {
					continue
				}
				if err := addCookie(hdr, c, ""); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func addCookie(hdr http.Header, c *http.Cookie, name string) error {
	if name != "" && c.Name != name {
		if c.Name != "" {
			return fmt.Errorf("cookie field %q holds a cookie named %q", name, c.Name)
		}
		cc := *c
		cc.Name = name
		c = &cc
	}
	if err := c.Valid(); err != nil {
		return fmt.Errorf("cookie %q: %w", c.Name, err)
	}
	hdr["Set-Cookie"] = append(hdr["Set-Cookie"], c.String())
	return nil
}

// unsetCookies removes the Set-Cookie lines the output added, keeping
// the first before, set earlier (by middleware).
func unsetCookies(hdr http.Header, before int) {
	if before == 0 {
		delete(hdr, "Set-Cookie")
		return
	}
	hdr["Set-Cookie"] = hdr["Set-Cookie"][:before:before]
}
