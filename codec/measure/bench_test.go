// Package measure compares JSON codecs for vane's default (see docs/design/json-codec.md).
// It is its own module so that the candidates never enter vane's go.mod.
package measure

import (
	stdjson "encoding/json"
	"testing"
	"time"

	"github.com/bytedance/sonic"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	gojson "github.com/goccy/go-json"
	gojsontext "github.com/goccy/go-json/jsontext"
	gojsonv2 "github.com/goccy/go-json/v2"
	segjson "github.com/segmentio/encoding/json"

	"github.com/vane-http/vane/codec"
)

type GreetingIn struct {
	Suffix string `json:"suffix"`
}
type GreetingOut struct {
	Greeting    string `json:"greeting"`
	Suffix      string `json:"suffix"`
	Length      int    `json:"length"`
	ContentType string `json:"content_type"`
	Num         int    `json:"num"`
}
type Item struct {
	ID      int64             `json:"id"`
	Name    string            `json:"name"`
	Email   string            `json:"email,omitempty"`
	Price   float64           `json:"price"`
	Tags    []string          `json:"tags"`
	Created time.Time         `json:"created"`
	Meta    map[string]string `json:"meta,omitempty"`
	Owner   *struct {
		Name string `json:"name"`
		Age  int    `json:"age"`
	} `json:"owner"`
}

var smallIn = []byte(`{"suffix":"!"}`)
var itemIn = []byte(`{"id":12345,"name":"A lamp with a long name","email":"a@example.com","price":12.5,"tags":["red","blue","green"],"created":"2024-01-02T03:04:05Z","meta":{"a":"b","c":"d"},"owner":{"name":"Ann","age":33}}`)

// v2Strict is encoding/json/v2 (as go-json-experiment/json) with
// encoding/json's semantics except exact key matching, duplicate keys
// refused, invalid UTF-8 refused and a Go array read only from a JSON
// array of its length; v2StrictV2Errors is the same with v2's errors (JSON
// pointers) and no separate syntax pass.
var (
	v2Strict = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv1.UnmarshalArrayFromAnyLength(false),
		jsonv2.MatchCaseInsensitiveNames(false), jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false))
	v2StrictV2Errors = jsonv2.JoinOptions(v2Strict, jsonv1.ReportErrorsWithLegacySemantics(false))
	v2V1             = jsonv1.DefaultOptionsV1()
	noDup            = jsontext.AllowDuplicateNames(false)

	// The same options, for goccy/go-json's implementation of the v2 API.
	goccyStrict = gojsonv2.JoinOptions(gojson.DefaultOptionsV1(), gojson.UnmarshalArrayFromAnyLength(false),
		gojsonv2.MatchCaseInsensitiveNames(false), gojsontext.AllowDuplicateNames(false), gojsontext.AllowInvalidUTF8(false))
	goccyStrictV2Errors = gojsonv2.JoinOptions(goccyStrict, gojson.ReportErrorsWithLegacySemantics(false))
	goccyV1             = gojson.DefaultOptionsV1()
)

var errInvalid = stdjson.Unmarshal([]byte("{"), new(any))

type candidate struct {
	name string
	m    func(any) ([]byte, error)
	u    func([]byte, any) error
}

var candidates = []candidate{
	{"std", stdjson.Marshal, stdjson.Unmarshal},
	{"goccy", gojson.Marshal, gojson.Unmarshal},
	{"goccy+dupscan", gojson.Marshal, func(b []byte, v any) error {
		if !jsontext.Value(b).IsValid(noDup) {
			return errInvalid
		}
		return gojson.Unmarshal(b, v)
	}},
	{"v2-v1compat", func(v any) ([]byte, error) { return jsonv2.Marshal(v, v2V1) }, func(b []byte, v any) error { return jsonv2.Unmarshal(b, v, v2V1) }},
	{"v2-strict", func(v any) ([]byte, error) { return jsonv2.Marshal(v, v2Strict) }, func(b []byte, v any) error { return jsonv2.Unmarshal(b, v, v2Strict) }},
	{"v2-strict-v2errors", func(v any) ([]byte, error) { return jsonv2.Marshal(v, v2StrictV2Errors) }, func(b []byte, v any) error { return jsonv2.Unmarshal(b, v, v2StrictV2Errors) }},
	{"goccy-v2-v1compat", func(v any) ([]byte, error) { return gojsonv2.Marshal(v, goccyV1) }, func(b []byte, v any) error { return gojsonv2.Unmarshal(b, v, goccyV1) }},
	{"goccy-v2-strict", func(v any) ([]byte, error) { return gojsonv2.Marshal(v, goccyStrict) }, func(b []byte, v any) error { return gojsonv2.Unmarshal(b, v, goccyStrict) }},
	{"goccy-v2-strict-v2errors", func(v any) ([]byte, error) { return gojsonv2.Marshal(v, goccyStrictV2Errors) }, func(b []byte, v any) error { return gojsonv2.Unmarshal(b, v, goccyStrictV2Errors) }},
	{"vane", codec.JSON.Marshal, codec.JSON.Unmarshal},
	{"sonic", sonic.ConfigStd.Marshal, sonic.ConfigStd.Unmarshal},
	{"segmentio", segjson.Marshal, segjson.Unmarshal},
}

func BenchmarkDecodeSmall(b *testing.B) {
	for _, c := range candidates {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var v GreetingIn
				if err := c.u(smallIn, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeItem(b *testing.B) {
	for _, c := range candidates {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var v Item
				if err := c.u(itemIn, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodeSmall(b *testing.B) {
	out := &GreetingOut{"Hello, 123!", "!", 11, "application/json", 5}
	for _, c := range candidates {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.m(out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodeItem(b *testing.B) {
	var it Item
	if err := stdjson.Unmarshal(itemIn, &it); err != nil {
		b.Fatal(err)
	}
	for _, c := range candidates {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.m(&it); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
