package vane

import (
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// ProblemType documents an error response an operation sends beyond the
// plain problem (Problems): a problem type of one's own, its extension
// members, the headers that come with it. The operation's response for
// Status is then documented with the problem schema narrowed to this
// type (its type URI as a const, and the extension members as
// properties), and with the headers; several ProblemTypes of one status
// are documented as alternatives (anyOf). Documenting a type does not
// change what is sent: the handler returns the problem (see Error and
// problem.Details.WithType, With, WithHeader).
type ProblemType struct {
	Status      int    // the response status, 400 to 599
	Type        string // the type URI; empty: about:blank, the plain problem
	Title       string // the type's title, documented as its const when set
	Description string // the response's description; empty: the status text

	// Extensions is a value (or nil pointer) of a struct type whose JSON
	// properties are the type's extension members, documented with the
	// rules of package schema: struct{ Balance int `json:"balance"` }{}.
	// Nil: none.
	Extensions any

	// Headers are the response headers sent with it (by name, as they
	// are to be spelled in the document), documented as
	// strings: {"WWW-Authenticate": "the scheme to log in with"}.
	Headers map[string]string
}

// documentProblems documents an operation's problem types on the responses
// list (in place, adding responses for statuses it lacks).
func documentProblems(list []operation.Response, types []ProblemType, reg *schema.Registry) ([]operation.Response, error) {
	if len(types) == 0 {
		return list, nil
	}
	probSchema, err := reg.Schema(reflect.TypeFor[problem.Details]())
	if err != nil {
		return nil, err
	}
	for _, pt := range types {
		if pt.Status < 400 || pt.Status > 599 {
			return nil, fmt.Errorf("problem type %q: status %d is not an error status", pt.Type, pt.Status)
		}
		s := &schema.Schema{AllOf: []*schema.Schema{{Ref: probSchema.Ref}}}
		if pt.Type != "" || pt.Title != "" {
			narrow := &schema.Schema{Properties: map[string]*schema.Schema{}}
			if pt.Type != "" {
				narrow.Properties["type"] = &schema.Schema{Const: pt.Type}
				narrow.Required = []string{"type"}
			}
			if pt.Title != "" {
				narrow.Properties["title"] = &schema.Schema{Const: pt.Title}
			}
			s.AllOf = append(s.AllOf, narrow)
		}
		if pt.Extensions != nil {
			t := reflect.TypeOf(pt.Extensions)
			for t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			if t.Kind() != reflect.Struct {
				return nil, fmt.Errorf("problem type %q: Extensions is a %v, not a struct", pt.Type, t)
			}
			for _, f := range schema.Fields(t) {
				if problemMembers[f.Name] {
					return nil, fmt.Errorf("problem type %q: extension member %q has the name of a standard member", pt.Type, f.Name)
				}
			}
			es, err := reg.Schema(t)
			if err != nil {
				return nil, fmt.Errorf("problem type %q: %w", pt.Type, err)
			}
			s.AllOf = append(s.AllOf, es)
		}
		if len(s.AllOf) == 1 {
			s = &schema.Schema{Ref: probSchema.Ref} // the plain problem
		}
		var headers []operation.Header
		for _, name := range slices.Sorted(maps.Keys(pt.Headers)) {
			headers = append(headers, operation.Header{Name: name, Description: pt.Headers[name], Schema: &schema.Schema{Type: schema.TypeString}})
		}
		i := slices.IndexFunc(list, func(r operation.Response) bool { return r.Status == pt.Status })
		if i < 0 {
			list = append(list, operation.Response{Status: pt.Status, Description: http.StatusText(pt.Status)})
			i = len(list) - 1
		}
		r := &list[i]
		switch {
		case pt.Description == "" || strings.Contains(r.Description, pt.Description):
		case r.Description == "" || r.Description == http.StatusText(r.Status):
			r.Description = pt.Description
		default:
			r.Description += " Or: " + pt.Description
		}
		for _, h := range headers {
			if !slices.ContainsFunc(r.Headers, func(o operation.Header) bool { return strings.EqualFold(o.Name, h.Name) }) {
				r.Headers = append(r.Headers, h)
			}
		}
		c := slices.IndexFunc(r.Content, func(c operation.Content) bool { return c.MediaType == problem.ContentType })
		switch {
		case c < 0:
			r.Content = append(r.Content, operation.Content{MediaType: problem.ContentType, Schema: s})
		case r.Content[c].Schema != nil && r.Content[c].Schema.Ref == probSchema.Ref:
			// The plain problem, documented by default: this type replaces it.
			r.Content = slices.Clone(r.Content)
			r.Content[c].Schema = s
		default:
			// Another type documented for this status: either.
			prev := r.Content[c].Schema
			r.Content = slices.Clone(r.Content)
			if len(prev.AnyOf) > 0 && prev.Ref == "" && len(prev.AllOf) == 0 {
				r.Content[c].Schema = &schema.Schema{AnyOf: append(slices.Clone(prev.AnyOf), s)}
			} else {
				r.Content[c].Schema = &schema.Schema{AnyOf: []*schema.Schema{prev, s}}
			}
		}
	}
	sort.SliceStable(list[1:], func(i, j int) bool { return list[1+i].Status < list[1+j].Status })
	return list, nil
}

// problemMembers are the members of a problem that an extension cannot
// take the name of.
var problemMembers = map[string]bool{"type": true, "title": true, "status": true, "detail": true, "instance": true, "errors": true}
