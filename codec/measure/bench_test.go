// Package measure compares JSON codecs for vane's default (see docs/json-codec.md).
// It is its own module so that the candidates never enter vane's go.mod.
package measure

import (
	stdjson "encoding/json"
	"testing"
	"time"

	"github.com/bytedance/sonic"
	gojson "github.com/goccy/go-json"
	segjson "github.com/segmentio/encoding/json"
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

type codec struct {
	name string
	m    func(any) ([]byte, error)
	u    func([]byte, any) error
}

var codecs = []codec{
	{"std", stdjson.Marshal, stdjson.Unmarshal},
	{"goccy", gojson.Marshal, gojson.Unmarshal},
	{"sonic", sonic.ConfigStd.Marshal, sonic.ConfigStd.Unmarshal},
	{"segmentio", segjson.Marshal, segjson.Unmarshal},
}

func BenchmarkDecodeSmall(b *testing.B) {
	for _, c := range codecs {
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
	for _, c := range codecs {
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
	for _, c := range codecs {
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
	stdjson.Unmarshal(itemIn, &it)
	for _, c := range codecs {
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
