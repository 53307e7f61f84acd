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
// refuses duplicate map keys.
var Codec codec.Codec = cborCodec{}

var (
	encMode, _ = cbor.CoreDetEncOptions().EncMode()
	decMode, _ = cbor.DecOptions{DupMapKey: cbor.DupMapKeyEnforcedAPF}.DecMode()
)

type cborCodec struct{}

func (cborCodec) Marshal(v any) ([]byte, error)      { return encMode.Marshal(v) }
func (cborCodec) Unmarshal(data []byte, v any) error { return decMode.Unmarshal(data, v) }
