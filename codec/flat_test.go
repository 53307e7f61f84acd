package codec

import (
	"encoding/json"
	"github.com/vane-http/vane/internal/addr"
	"reflect"
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
	I32     int32  `json:",omitempty"`
	I64     int64  `json:"i64"`
	U       uint   `json:"u,omitempty"`
	U8      uint8  `json:"u8"`
	U16     uint16 `json:"u16"`
	U32     uint32 `json:"u32,omitempty"`
	U64     uint64 `json:"u64"`
	On      bool   `json:"on,omitempty"`
	Off     bool   `json:"off"`
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
	return string(enc(nil, addr.OfValue(reflect.ValueOf(v))))
}

func checkFlat(t *testing.T, v *flatAll) {
	t.Helper()
	want, _ := json.Marshal(v)
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
		On: true, Off: true, Skipped: "no", Dash: "dash", hidden: "no"})
}

func FuzzFlatEncoder(f *testing.F) {
	f.Add("plain", "", int64(0), uint64(0), true)
	f.Add("<script>\u2028\xff", "\x7f\"", int64(-9), uint64(1<<63), false)
	f.Fuzz(func(t *testing.T, s, note string, i int64, u uint64, b bool) {
		checkFlat(t, &flatAll{Name: s, Note: note, Level: flatLevel(note), N: int(i), I8: int8(i), I16: int16(i), I32: int32(i), I64: i,
			U: uint(u), U8: uint8(u), U16: uint16(u), U32: uint32(u), U64: u, On: b})
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
		struct{ F float64 }{},
		struct{ P *int }{},
		struct{ S []string }{},
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
	if n := testing.AllocsPerRun(100, func() { buf = enc(buf[:0], addr.Of(v)) }); n != 0 {
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
