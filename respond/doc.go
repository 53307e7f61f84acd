package respond

import (
	"net/http"
	"reflect"
	"sort"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

// Responses returns the responses an operation documents, the success
// response first and the others by status: the writer's success response
// (Writer.Response); 204 too when the output can only be {} (Empty), since
// such an output is usually returned nil; the responses the operation
// documents itself (documented: status → description, an empty
// description meaning the status text); 304 when it may answer Not
// Modified (operation.Description.NotModified); and the errors vane itself may
// answer with (operation.Description.Errors). Error statuses (400 and
// above) carry the problem+json schema, named in reg.
func Responses(d *operation.Description, o *Writer, documented map[int]string, reg *schema.Registry) ([]operation.Response, error) {
	probSchema, err := reg.Schema(reflect.TypeFor[problem.Details]())
	if err != nil {
		return nil, err
	}
	probContent := []operation.Content{{MediaType: problem.ContentType, Schema: probSchema}}
	list := []operation.Response{o.Response()}
	add := func(status int, desc string) {
		for i := range list {
			if list[i].Status == status {
				if desc != "" {
					list[i].Description = desc
				}
				return
			}
		}
		if desc == "" {
			desc = http.StatusText(status)
		}
		r := operation.Response{Status: status, Description: desc}
		if status >= 400 {
			r.Content = probContent
		}
		list = append(list, r)
	}
	for status, desc := range documented {
		add(status, desc)
	}
	if o.empty {
		// A nil output is answered 204, and an output that can only be
		// {} is usually returned nil: document both answers.
		add(http.StatusNoContent, "")
	}
	if d.NotModified() {
		add(http.StatusNotModified, "")
		// A 304 carries the validators and caching headers a 200 would.
		for _, h := range list[0].Headers {
			switch h.Name {
			case "Etag", "Last-Modified", "Cache-Control", "Expires", "Vary", "Content-Location":
				r := &list[len(list)-1]
				r.Headers = append(r.Headers, h)
			}
		}
	}
	for _, status := range d.Errors() {
		add(status, "")
	}
	sort.SliceStable(list[1:], func(i, j int) bool { return list[1+i].Status < list[1+j].Status })
	return list, nil
}
