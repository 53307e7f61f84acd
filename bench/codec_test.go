package bench_test

import (
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"testing"
	"time"

	gojson "github.com/goccy/go-json"
	jsoniter "github.com/json-iterator/go"
	"github.com/vane-http/vane/codec"
)

// device is the payload of the encode comparison of the jsoniter seed
// report: 50 of them, each with a map of attributes and a timestamp.
type device struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Type        string         `json:"type"`
	State       string         `json:"state"`
	Attributes  map[string]any `json:"attributes"`
	LastUpdated time.Time      `json:"last_updated"`
}

var devices = func() []device {
	ds := make([]device, 50)
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for i := range ds {
		ds[i] = device{
			ID:    "device-" + strconv.Itoa(i),
			Name:  "Sensor " + strconv.Itoa(i),
			Type:  "sensor",
			State: "on",
			Attributes: map[string]any{
				"battery": 87.5, "room": "kitchen", "unit": "celsius", "online": true,
			},
			LastUpdated: at.Add(time.Duration(i) * time.Minute),
		}
	}
	return ds
}()

// codecs are the response encoders compared: vane's default codec
// (codec.JSON), the standard library, and the well-kept alternatives. vane
// has no streaming encoder: it appends the encoding to a pooled buffer,
// then writes it, as its typed operations do (respond.Output.Write),
// which is what its Stream50 cell measures.
var codecs = []struct {
	name    string
	marshal func(v any) ([]byte, error)
	stream  func(w io.Writer, v any) error
}{
	{"vane", codec.JSON.Marshal, func(w io.Writer, v any) error {
		buf := vaneBuffers.Get().(*[]byte)
		b, err := codec.JSON.(codec.Appender).AppendMarshal((*buf)[:0], v)
		if err == nil {
			_, err = w.Write(b)
		}
		*buf = b[:0]
		vaneBuffers.Put(buf)
		return err
	}},
	{"encoding-json", json.Marshal, func(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }},
	{"jsoniter", jsoniter.ConfigFastest.Marshal, func(w io.Writer, v any) error { return jsoniter.ConfigFastest.NewEncoder(w).Encode(v) }},
	{"jsoniter-compat", jsoniter.ConfigCompatibleWithStandardLibrary.Marshal, func(w io.Writer, v any) error {
		return jsoniter.ConfigCompatibleWithStandardLibrary.NewEncoder(w).Encode(v)
	}},
	{"go-json", gojson.Marshal, func(w io.Writer, v any) error { return gojson.NewEncoder(w).Encode(v) }},
}

// vaneBuffers is the pool of body buffers vane's Stream50 cell encodes
// into, as respond's is for typed operations.
var vaneBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// TestCodecsAgree checks that every codec produces the same document
// before any of them is timed.
func TestCodecsAgree(t *testing.T) {
	want, _ := json.Marshal(devices)
	var wantV any
	json.Unmarshal(want, &wantV)
	for _, c := range codecs {
		got, err := c.marshal(devices)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var gotV any
		if err := json.Unmarshal(got, &gotV); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !equalJSON(gotV, wantV) {
			t.Errorf("%s encodes differently:\n%s\nwant\n%s", c.name, got[:200], want[:200])
		}
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// BenchmarkCodec is the encode comparison: 50 devices, by Marshal and by
// a streaming encoder.
func BenchmarkCodec(b *testing.B) {
	inSet(b, false)
	order := rotate(codecs, *benchRound-1)
	b.Run("Marshal50", func(b *testing.B) {
		for _, c := range order {
			b.Run(c.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.marshal(devices); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
	b.Run("Stream50", func(b *testing.B) {
		for _, c := range order {
			b.Run(c.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := c.stream(io.Discard, devices); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}
