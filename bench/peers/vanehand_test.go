package peers

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
)

// vane-hand is the baseline of the Typed rows ("the same work by hand on
// vane's router", the Typed overhead section), so for every request of
// every Typed case it must answer as vane's typed operation does: the
// same status, the same header fields with the same values, and the same
// JSON. A header the typed answer carries and the baseline skips
// (nosniff, say) is work the row would charge to the schema. The Data
// rows compare each framework's own idiom, vane-hand's included, and are
// not held to this.
func TestVaneHandAnswersAsTyped(t *testing.T) {
	typed, _ := ByName("vane")
	hand, _ := ByName("vane-hand")
	compared := 0
	for _, c := range Cases() {
		if c.Category != "Typed" {
			continue
		}
		ht, errT := c.Build(typed)
		hh, errH := c.Build(hand)
		var lacks ErrLacks
		if errors.As(errT, &lacks) || errors.As(errH, &lacks) {
			continue
		}
		if errT != nil || errH != nil {
			t.Fatalf("%s/%s: %v, %v", c.Category, c.Name, errT, errH)
		}
		for _, r := range c.Requests() {
			wt, wh := httptest.NewRecorder(), httptest.NewRecorder()
			ht.ServeHTTP(wt, r.NewRequest())
			hh.ServeHTTP(wh, r.NewRequest())
			name := c.Category + "/" + c.Name + " " + r.Method + " " + r.Path
			if wt.Code != wh.Code {
				t.Errorf("%s: status %d by hand, %d typed", name, wh.Code, wt.Code)
			}
			if ht, hh := answerHeader(wt), answerHeader(wh); !reflect.DeepEqual(ht, hh) {
				t.Errorf("%s: header by hand %v, typed %v", name, hh, ht)
			}
			var bt, bh any
			if err := json.Unmarshal(wt.Body.Bytes(), &bt); err != nil {
				t.Fatalf("%s: typed body %q: %v", name, wt.Body, err)
			}
			if err := json.Unmarshal(bytes.TrimSpace(wh.Body.Bytes()), &bh); err != nil {
				t.Fatalf("%s: body by hand %q: %v", name, wh.Body, err)
			}
			if !reflect.DeepEqual(bt, bh) {
				t.Errorf("%s: body by hand %s, typed %s", name, wh.Body, wt.Body)
			}
			compared++
		}
	}
	if compared < 2 {
		t.Fatalf("compared %d answers; the Typed cases were not found", compared)
	}
}

// answerHeader is a recorded answer's header fields without Date, which
// neither side sets here and which would differ by the second if one did.
func answerHeader(w *httptest.ResponseRecorder) http.Header {
	h := w.Result().Header.Clone()
	h.Del("Date")
	return h
}
