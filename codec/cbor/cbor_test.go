package cbor_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	fx "github.com/fxamacker/cbor/v2"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/codec/cbor"
)

type Item struct {
	ID      int64     `json:"id"`
	Name    string    `json:"name"`
	Note    string    `json:"note,omitempty"`
	Secret  string    `json:"-"`
	Created time.Time `json:"created"`
}

func router() *vane.Router {
	r := vane.New(cbor.Option())
	vane.Get(r, "/items/{id}", func(ctx context.Context, in *struct {
		ID int64 `path:"id"`
	}) (*Item, error) {
		return &Item{ID: in.ID, Name: "kite", Secret: "x", Created: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)}, nil
	})
	return r
}

func TestNegotiatesCBOR(t *testing.T) {
	r := router()
	for _, tc := range []struct {
		accept string
		ct     string
	}{
		{"", "application/json"},
		{"application/cbor", "application/cbor"},
		{"application/json;q=0.5, application/cbor", "application/cbor"},
		{"application/cbor;q=0.1, */*", "application/json"},
	} {
		t.Run(tc.accept, func(t *testing.T) {
			srv := httptest.NewServer(r)
			defer srv.Close()
			req, _ := http.NewRequest("GET", srv.URL+"/items/7", nil)
			if tc.accept != "" {
				req.Header.Set("Accept", tc.accept)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var body bytes.Buffer
			body.ReadFrom(res.Body)
			if res.StatusCode != 200 || res.Header.Get("Content-Type") != tc.ct {
				t.Fatalf("got %d %q Vary %q", res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Vary"))
			}
			if tc.ct != cbor.MediaType {
				return
			}
			// Keys are the JSON names; "-" and empty omitempty fields are left out.
			var m map[string]any
			if err := fx.Unmarshal(body.Bytes(), &m); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"id": uint64(7), "name": "kite", "created": time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)}
			if !reflect.DeepEqual(m, want) {
				t.Errorf("decoded %#v\nwant %#v", m, want)
			}
			var back Item
			if err := cbor.Codec.Unmarshal(body.Bytes(), &back); err != nil || back.ID != 7 || !back.Created.Equal(want["created"].(time.Time)) {
				t.Errorf("round trip %+v %v", back, err)
			}
		})
	}
	var mts []string
	for _, c := range r.Operations()[0].Response(200).Content {
		mts = append(mts, c.MediaType)
	}
	if !reflect.DeepEqual(mts, []string{"application/json", "application/cbor"}) {
		t.Errorf("documented media types %v", mts)
	}
}

func TestRefusesDuplicateKeys(t *testing.T) {
	// {"id": 1, "id": 2}
	dup := []byte{0xa2, 0x62, 'i', 'd', 0x01, 0x62, 'i', 'd', 0x02}
	var it Item
	if err := cbor.Codec.Unmarshal(dup, &it); err == nil {
		t.Errorf("duplicate key accepted: %+v", it)
	}
}

func ExampleOption() {
	r := router()
	req := httptest.NewRequest("GET", "/items/7", nil)
	req.Header.Set("Accept", "application/cbor")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	var it Item
	if err := cbor.Codec.Unmarshal(w.Body.Bytes(), &it); err != nil {
		panic(err)
	}
	fmt.Println(w.Code, w.Header().Get("Content-Type"), it.ID, it.Name, it.Created.Format(time.RFC3339))
	// Output: 200 application/cbor 7 kite 2026-11-24T12:00:00Z
}
