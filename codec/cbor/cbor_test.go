package cbor_test

import (
	"context"
	"encoding/hex"
	"net/http/httptest"
	"testing"
	"time"

	fx "github.com/fxamacker/cbor/v2"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/codec/cbor"
)

type pet struct {
	ID   int64    `json:"id"`
	Name string   `json:"name"`
	Tags []string `json:"tags,omitempty"`
}

type petOut struct{ Body pet }

// A client that prefers CBOR gets the body in CBOR, with the json names;
// one that does not gets JSON; the document lists both.
func TestNegotiatedCBOR(t *testing.T) {
	r := vane.New(vane.Encode(cbor.MediaType, cbor.Codec))
	vane.Get(r, "/pets/{id}", func(ctx context.Context, in *struct {
		ID int64 `path:"id"`
	}) (*petOut, error) {
		return &petOut{Body: pet{ID: in.ID, Name: "Rex", Tags: []string{"dog"}}}, nil
	})
	req := httptest.NewRequest("GET", "/pets/7", nil)
	req.Header.Set("Accept", "application/cbor, application/json;q=0.5")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != 200 || w.Header().Get("Content-Type") != cbor.MediaType || w.Header().Get("Vary") != "Accept" {
		t.Fatalf("%d %s", w.Code, w.Header())
	}
	var got map[string]any
	if err := fx.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got["id"] != uint64(7) || got["name"] != "Rex" {
		t.Errorf("decoded %v", got)
	}
	var back pet
	if err := cbor.Codec.Unmarshal(w.Body.Bytes(), &back); err != nil || back.Name != "Rex" || back.Tags[0] != "dog" {
		t.Errorf("round trip %+v %v", back, err)
	}
	w = httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/pets/7", nil))
	if w.Header().Get("Content-Type") != "application/json" || w.Body.String() != `{"id":7,"name":"Rex","tags":["dog"]}` {
		t.Errorf("default: %s %s", w.Header().Get("Content-Type"), w.Body)
	}
	var types []string
	for _, c := range r.Operations()[0].Responses[0].Content {
		types = append(types, c.MediaType)
	}
	if len(types) != 2 || types[1] != cbor.MediaType {
		t.Errorf("documented %v", types)
	}
	if err := cbor.Codec.Unmarshal([]byte{0xa2, 0x61, 'a', 0x01, 0x61, 'a', 0x02}, &map[string]int{}); err == nil {
		t.Error("a duplicate map key was accepted")
	}
}

// A time.Time is the text its JSON is, as the document's date-time schema
// says: nanoseconds and offset kept.
func TestTimeIsRFC3339Text(t *testing.T) {
	type event struct {
		At time.Time `json:"at"`
	}
	at := time.Date(2026, 11, 24, 13, 4, 5, 600, time.FixedZone("", 3600))
	b, err := cbor.Codec.Marshal(event{At: at})
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := fx.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	jsonText, _ := at.MarshalText()
	if raw["at"] != string(jsonText) {
		t.Errorf("at = %#v, want the text %q", raw["at"], jsonText)
	}
	var back event
	if err := cbor.Codec.Unmarshal(b, &back); err != nil || !back.At.Equal(at) {
		t.Errorf("round trip %v %v", back.At, err)
	}
}

// A []byte is sent as a byte string tagged 22 (base64 when converted to
// JSON, as the shared schema says), and both it and a plain byte string
// decode back into a []byte.
func TestBytesAgreeWithTheSchema(t *testing.T) {
	type photo struct {
		Data []byte `json:"data"`
	}
	b, err := cbor.Codec.Marshal(photo{Data: []byte{1, 2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	// a1 (map of 1), 64 "data", d6 (tag 22), 43 01 02 03 (byte string of 3)
	if want := "a16464617461d643010203"; hex.EncodeToString(b) != want {
		t.Errorf("encoded %x, want %s", b, want)
	}
	for _, in := range []string{"a16464617461d643010203", "a1646461746143010203"} {
		raw, _ := hex.DecodeString(in)
		var p photo
		if err := cbor.Codec.Unmarshal(raw, &p); err != nil || len(p.Data) != 3 || p.Data[2] != 3 {
			t.Errorf("decoding %s: %v %v", in, p, err)
		}
	}
}
