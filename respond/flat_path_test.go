package respond

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/internal/addr"
	"github.com/vane-http/vane/schema"
)

type flatItem struct {
	Body struct {
		ID    string   `json:"id"`
		Price float64  `json:"price"`
		Tags  []string `json:"tags"`
		On    bool     `json:"on,omitempty"`
	}
}

// takingWriter takes the body's header lines (a BodyHeaderSetter) when
// nothing else is in its map, as the fast engine's writer does.
type takingWriter struct {
	*httptest.ResponseRecorder
	ct []string
}

func (w *takingWriter) SetBodyHeader(ct []string) bool {
	if len(w.Header()) > 0 {
		return false
	}
	w.ct = ct
	return true
}

// TestWriteFlatIsWriteAny: writeFlat, the path of an output that is its
// flat JSON body alone, answers as writeAny does for the same output,
// request and status: the same status, header lines, body and error,
// for a request or none, Accept that allows or refuses JSON, an encoder
// chosen before or not, a body-less status, a writer that takes the
// body's header lines or has lines of a middleware, and a NaN the flat
// encoder declines.
func TestWriteFlatIsWriteAny(t *testing.T) {
	o, err := Compile(reflect.TypeFor[flatItem](), schema.NewRegistry("#/components/schemas/"))
	if err != nil {
		t.Fatal(err)
	}
	if !o.plain {
		t.Fatal("the output is not plain")
	}
	enc := NewEncoders(codec.JSON)
	values := map[string]*flatItem{"item": {}, "nan": {}, "empty": {}}
	values["item"].Body.ID, values["item"].Body.Price, values["item"].Body.Tags, values["item"].Body.On = "a\"<", 9.99, []string{"x"}, true
	values["nan"].Body.Price = math.NaN()
	accepts := map[string][]string{"none": nil, "json": {"application/json"}, "any": {"*/*"}, "html": {"text/html"}, "json refused": {"application/json;q=0"}}
	for vname, v := range values {
		for aname, accept := range accepts {
			for _, status := range []int{200, 201, 204, 304} {
				for _, chosen := range []bool{false, true} {
					for _, wkind := range []string{"recorder", "taking", "taking with a line"} {
						for _, reqKind := range []string{"hr", "req", "no request"} {
							h := http.Header{}
							if accept != nil {
								h["Accept"] = accept
							}
							e := enc
							if chosen {
								if e = enc.Chosen(h); e == nil {
									continue // the 406 before the handler
								}
							}
							name := fmt.Sprintf("%s/%s/%d/chosen %v/%s/%s", vname, aname, status, chosen, wkind, reqKind)
							run := func(flat bool) (*httptest.ResponseRecorder, []string, error) {
								rec := httptest.NewRecorder()
								var w http.ResponseWriter = rec
								tw := &takingWriter{ResponseRecorder: rec}
								switch wkind {
								case "taking":
									w = tw
								case "taking with a line":
									rec.Header().Set("X-Request-Id", "1")
									w = tw
								}
								var hr *http.Request
								var req *Request
								switch reqKind {
								case "hr":
									hr = httptest.NewRequest("GET", "/", nil)
									hr.Header = h
								case "req":
									req = &Request{Method: "GET", Header: h}
								}
								p := addr.OfValue(reflect.ValueOf(v))
								if flat {
									if done, err := o.writeFlat(w, hr, req, p, status, e); done {
										return rec, tw.ct, err
									}
								}
								return rec, tw.ct, o.writeAny(w, hr, req, p, status, e)
							}
							a, act, aerr := run(true)
							b, bct, berr := run(false)
							if fmt.Sprint(aerr) != fmt.Sprint(berr) || a.Code != b.Code || a.Body.String() != b.Body.String() ||
								!reflect.DeepEqual(a.Header(), b.Header()) || !reflect.DeepEqual(act, bct) {
								t.Errorf("%s:\nflat %d %v %q taken %q, %v\nany  %d %v %q taken %q, %v", name,
									a.Code, a.Header(), a.Body, act, aerr, b.Code, b.Header(), b.Body, bct, berr)
							}
						}
					}
				}
			}
		}
	}
}

// TestWritePlain: an output with anything beside its flat body (a
// Status, a header or cookie field) or a body the flat encoder does not
// take is not plain; Write takes writeFlat only for one JSON encoder.
func TestWritePlain(t *testing.T) {
	type withStatus struct {
		Status int
		Body   struct{ A string }
	}
	type withHeader struct {
		ETag string `header:"ETag"`
		Body struct{ A string }
	}
	type withCookie struct {
		Session http.Cookie `cookie:"session"`
		Body    struct{ A string }
	}
	type notFlat struct {
		Body struct{ M map[string]int }
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[withStatus](), reflect.TypeFor[withHeader](), reflect.TypeFor[withCookie](), reflect.TypeFor[notFlat]()} {
		o, err := Compile(typ, schema.NewRegistry("#/components/schemas/"))
		if err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		if o.plain {
			t.Errorf("%v is plain", typ)
		}
	}
	// Two encoders: the body depends on Accept, and Vary says so, which
	// writeFlat does not write.
	o, _ := Compile(reflect.TypeFor[flatItem](), schema.NewRegistry("#/components/schemas/"))
	rec := httptest.NewRecorder()
	two := NewEncoders(codec.JSON, Encoder{MediaType: "application/x-test", Codec: codec.JSON})
	if err := o.Write(rec, httptest.NewRequest("GET", "/", nil), &flatItem{}, 200, two); err != nil || rec.Header().Get("Vary") != "Accept" {
		t.Errorf("two encoders: %v, header %v; want Vary: Accept", err, rec.Header())
	}
}
