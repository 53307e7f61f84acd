package codec

// MediaCodec names the media type a Codec reads and writes, for content
// negotiation: a typed operation whose body is encoded by codecs answers
// with the media type a request's Accept prefers among application/json
// (the operation's JSON codec) and those added (vane.WithMediaCodec).
//
// A codec for another format must still follow encoding/json's rules for
// Go types (field names from json tags, omitempty), since the schema the
// document shows for every media type is the one derived from them.
type MediaCodec struct {
	MediaType string // type/subtype without parameters: "application/cbor"
	Codec     Codec
}
