// Package cbor is a CBOR (RFC 8949) codec for vane's typed operations, in
// a module of its own so that vane does not depend on a CBOR library:
//
//	r := vane.New(vane.Encode(cbor.MediaType, cbor.Codec))
//
// A request whose Accept prefers application/cbor then gets its response
// body in CBOR, with the same Go types (struct fields by their json names,
// as fxamacker/cbor reads json tags).
package cbor

import (
	"github.com/fxamacker/cbor/v2"

	"github.com/vane-http/vane/codec"
)

// MediaType is CBOR's media type.
const MediaType = "application/cbor"

// Codec encodes and decodes CBOR with github.com/fxamacker/cbor/v2: core
// deterministic encoding (RFC 8949 section 4.2.1), and decoding that
// refuses duplicate map keys. A time.Time is the RFC 3339 text JSON has
// (nanoseconds kept, no tag), which is what the document's schema says
// (a string of format date-time), not fxamacker's default of whole Unix
// seconds. A []byte is a byte string tagged 22 (RFC 8949 section
// 3.4.5.2: expected to become base64 text in JSON), so that the CBOR
// body agrees with the schema both encodings share, a string with
// contentEncoding base64; a byte string, tagged or not, decodes into a
// []byte.
var Codec codec.Codec = cborCodec{}

var (
	encMode = must(func() (cbor.EncMode, error) {
		opts := cbor.CoreDetEncOptions()
		opts.Time, opts.TimeTag = cbor.TimeRFC3339Nano, cbor.EncTagNone
		opts.ByteSliceLaterFormat = cbor.ByteSliceLaterFormatBase64
		return opts.EncMode()
	}())
	decMode = must(cbor.DecOptions{DupMapKey: cbor.DupMapKeyEnforcedAPF}.DecMode())
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

type cborCodec struct{}

func (cborCodec) Marshal(v any) ([]byte, error)      { return encMode.Marshal(v) }
func (cborCodec) Unmarshal(data []byte, v any) error { return decMode.Unmarshal(data, v) }
