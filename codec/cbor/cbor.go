// Package cbor is a CBOR (RFC 8949) codec for vane's typed operations, by
// github.com/fxamacker/cbor/v2. It is a module of its own, so that vane
// itself does not depend on a CBOR library.
//
//	r := vane.New(cbor.Option())
//
// lets every operation whose body is encoded by codecs answer
// application/cbor when a request's Accept prefers it, and lists
// application/cbor in the document beside application/json.
//
// Values follow encoding/json's rules for Go types, by which vane derives
// the schema the document shows for both media types: map keys are the
// json tags' names (a cbor tag, if present, wins), omitempty and "-" are
// honoured, and time.Time is an RFC 3339 text string (CBOR tag 0), as in
// JSON. Unlike JSON, a []byte is a CBOR byte string, not base64 text.
// Decoding refuses duplicate map keys, as vane's JSON codec does.
package cbor

import (
	"github.com/fxamacker/cbor/v2"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/codec"
)

// MediaType is the media type of CBOR.
const MediaType = "application/cbor"

// Codec encodes and decodes CBOR (see the package documentation).
var Codec codec.Codec = newCodec()

// Option adds Codec to a router for MediaType (vane.Encode).
func Option() vane.Option { return vane.Encode(MediaType, Codec) }

type cborCodec struct {
	enc cbor.EncMode
	dec cbor.DecMode
}

func newCodec() cborCodec {
	enc, err := cbor.EncOptions{Time: cbor.TimeRFC3339Nano, TimeTag: cbor.EncTagRequired}.EncMode()
	if err != nil {
		panic(err)
	}
	dec, err := cbor.DecOptions{DupMapKey: cbor.DupMapKeyEnforcedAPF}.DecMode()
	if err != nil {
		panic(err)
	}
	return cborCodec{enc: enc, dec: dec}
}

func (c cborCodec) Marshal(v any) ([]byte, error)      { return c.enc.Marshal(v) }
func (c cborCodec) Unmarshal(data []byte, v any) error { return c.dec.Unmarshal(data, v) }
