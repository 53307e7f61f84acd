package codec

import (
	"encoding/json"
	"math"
	"reflect"

	"github.com/vane-http/vane/internal/addr"
	"strings"
	"testing"
	"time"
)

type flatLevel string

type flatAll struct {
	Name    string    `json:"name"`
	Note    string    `json:"note,omitempty"`
	Level   flatLevel `json:"level"`
	N       int       `json:"n"`
	I8      int8      `json:"i8,omitempty"`
	I16     int16
	I32     int32    `json:",omitempty"`
	I64     int64    `json:"i64"`
	U       uint     `json:"u,omitempty"`
	U8      uint8    `json:"u8"`
	U16     uint16   `json:"u16"`
	U32     uint32   `json:"u32,omitempty"`
	U64     uint64   `json:"u64"`
	On      bool     `json:"on,omitempty"`
	Off     bool     `json:"off"`
	F64     float64  `json:"f64"`
	F64o    float64  `json:"f64o,omitempty"`
	F32     float32  `json:"f32"`
	F32o    float32  `json:"f32o,omitempty"`
	Tags    []string `json:"tags"`
	Tagso   []string `json:"tagso,omitempty"`
	Levels  []flatLevel
	Skipped string `json:"-"`
	Dash    string `json:"-,"`
	hidden  string
}

// encodeFlat encodes v with the compiled encoder of its type.
func encodeFlat(t *testing.T, v any) string {
	t.Helper()
	enc, ok := CompileFlat(reflect.TypeOf(v).Elem())
	if !ok {
		t.Fatalf("%T is not flat", v)
	}
	b, ok := enc(nil, addr.OfValue(reflect.ValueOf(v)))
	if !ok {
		t.Fatalf("%+v: not encoded", v)
	}
	return string(b)
}

// checkFlat: the flat encoder writes v as encoding/json and the JSON codec
// do, or, for a value encoding/json refuses (a NaN), reports false as
// both fail.
func checkFlat(t *testing.T, v *flatAll) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		enc, _ := CompileFlat(reflect.TypeFor[flatAll]())
		if _, ok := enc(nil, addr.Of(v)); ok {
			t.Errorf("%+v: encoded, but encoding/json fails: %v", v, err)
		}
		if _, err := JSON.Marshal(v); err == nil {
			t.Errorf("%+v: the JSON codec encodes what encoding/json refuses", v)
		}
		return
	}
	got := encodeFlat(t, v)
	viaCodec, _ := JSON.Marshal(v)
	if got != string(want) || string(viaCodec) != string(want) {
		t.Errorf("flat %s\nencoding/json %s\nJSON codec %s", got, want, viaCodec)
	}
}

func TestFlatIsEncodingJSON(t *testing.T) {
	checkFlat(t, &flatAll{})
	checkFlat(t, &flatAll{Name: "a\"b\\c\b\f\n\r\t\x00\x1f<>&'\u2028\u2029é\xff\xc3 日本", Note: "x", Level: "<hi>",
		N: -1 << 62, I8: -128, I16: 32767, I32: -5, I64: 1 << 62, U: 1, U8: 255, U16: 65535, U32: 7, U64: 1<<64 - 1,
		On: true, Off: true, Skipped: "no", Dash: "dash", hidden: "no",
		F64: 9.99, F64o: -0.0 * -1, F32: 1e-7, F32o: 3.4e38, Tags: []string{"a", "<b>", ""}, Tagso: []string{"x"}, Levels: []flatLevel{}})
	negZero := math.Copysign(0, -1)
	for _, f := range []float64{0, negZero, 1, -1, 0.1, 1e-6, 1e-7, 9.99999e-7, 1e20, 1e21, 123456789012345678901234.0,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 5e-324, 1e-9, 2.5e-10, float64(float32(0.1))} {
		checkFlat(t, &flatAll{F64: f, F64o: f, F32: float32(f), F32o: float32(f), Tags: []string{}})
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		checkFlat(t, &flatAll{F64: f})
		checkFlat(t, &flatAll{F32o: float32(f)})
	}
}

func FuzzFlatEncoder(f *testing.F) {
	f.Add("plain", "", int64(0), uint64(0), true, 0.0, uint64(0))
	f.Add("<script>\u2028\xff", "\x7f\"", int64(-9), uint64(1<<63), false, 9.99, uint64(0x7ff8000000000001))
	f.Add("a", "b", int64(1), uint64(2), true, 1e21, uint64(0x3eb0c6f7a0b5ed8d))
	f.Fuzz(func(t *testing.T, s, note string, i int64, u uint64, b bool, f64 float64, fbits uint64) {
		var tags []string
		if !b {
			tags = []string{s, note}
		}
		checkFlat(t, &flatAll{Name: s, Note: note, Level: flatLevel(note), N: int(i), I8: int8(i), I16: int16(i), I32: int32(i), I64: i,
			U: uint(u), U8: uint8(u), U16: uint16(u), U32: uint32(u), U64: u, On: b,
			F64: f64, F64o: math.Float64frombits(fbits), F32: float32(f64), F32o: math.Float32frombits(uint32(fbits)),
			Tags: tags, Tagso: tags, Levels: []flatLevel{flatLevel(s)}})
	})
}

type withText string

func (w withText) MarshalText() ([]byte, error) { return []byte("t"), nil }

type withJSON struct{ A int }

func (*withJSON) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }

type inner struct{ A int }

// TestFlatRefuses: a type encoding/json treats otherwise than field by
// field, or with values other than booleans, integers and strings, is not
// flat.
func TestFlatRefuses(t *testing.T) {
	for _, v := range []any{
		struct{ T time.Time }{},
		struct{ P *int }{},
		struct{ B []byte }{},
		struct{ S []int }{},
		struct{ S [][]string }{},
		struct{ S []withText }{},
		struct{ A [2]string }{},
		struct{ C complex128 }{},
		struct{ inner }{},
		struct{ W withText }{},
		withJSON{},
		struct {
			N int `json:"n,string"`
		}{},
		struct {
			N int `json:"n,omitzero"`
		}{},
		reflect.New(reflect.StructOf([]reflect.StructField{ // one name twice: encoding/json drops both
			{Name: "A", Type: reflect.TypeFor[int](), Tag: `json:"x"`},
			{Name: "B", Type: reflect.TypeFor[int](), Tag: `json:"x"`},
		})).Elem().Interface(),
		struct {
			A int `json:"a b"`
		}{},
		0,
	} {
		if _, ok := CompileFlat(reflect.TypeOf(v)); ok {
			t.Errorf("%T compiled as flat", v)
		}
	}
}

// TestFlatAllocatesNothing: into a buffer large enough, nothing.
func TestFlatAllocatesNothing(t *testing.T) {
	enc, _ := CompileFlat(reflect.TypeFor[flatAll]())
	v := &flatAll{Name: "a<b", N: 7}
	buf := make([]byte, 0, 512)
	if n := testing.AllocsPerRun(100, func() { buf, _ = enc(buf[:0], addr.Of(v)) }); n != 0 {
		t.Errorf("%.0f allocations", n)
	}
}

// TestQuotedWordEdges: a byte that needs a closer look (an escape, a
// multi-byte rune, invalid UTF-8) at every offset of strings of every
// length around the 8-byte words appendQuoted skips, alone and after
// another: the same as encoding/json.
func TestQuotedWordEdges(t *testing.T) {
	specials := []string{"\"", "\\", "<", ">", "&", "\x00", "\x1f", "\n", "\x7f", "é", "\u2028", "日", "\xff", "\xc3"}
	for n := 0; n <= 26; n++ {
		for at := 0; at <= n; at++ {
			for _, sp := range specials {
				for _, s := range []string{
					strings.Repeat("a", at) + sp + strings.Repeat("b", n-at),
					strings.Repeat("a", at) + sp + strings.Repeat("b", n-at) + sp + "c",
				} {
					want, _ := json.Marshal(s)
					if got := appendQuoted(nil, s); string(got) != string(want) {
						t.Fatalf("%q: %s, want %s", s, got, want)
					}
				}
			}
		}
	}
}
