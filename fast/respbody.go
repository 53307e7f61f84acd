package fast

import "github.com/valyala/fasthttp"

// maxKeptBody is the most bytes of an answer's body written into
// fasthttp's response buffer, which fasthttp keeps with the connection at
// the largest size it has held, for as long as the connection is open
// (and then in its pool for another). A larger body goes into a slice of
// its own, which fasthttp sends and then drops: one GET of a 1.7 MB asset
// would otherwise leave its connection holding 1.7 MB while idle.
const maxKeptBody = 16 << 10

// bigBody is an answer's body once it has passed maxKeptBody bytes: the
// bytes written so far, fasthttp's buffer's included, in a slice the
// request owns.
type bigBody struct{ b []byte }

// write appends p to the body of resp, of which n bytes are written.
func (o *bigBody) write(resp *fasthttp.Response, n int64, p []byte) {
	if o.b == nil {
		if n+int64(len(p)) <= maxKeptBody {
			resp.AppendBody(p)
			return
		}
		o.b = make([]byte, 0, int(n)+len(p)) // exact for one large write; append grows it for more
		o.b = append(o.b, resp.Body()...)
		resp.ResetBody()
	}
	o.b = append(o.b, p...)
}

// settle puts the body, when it has its own slice, into resp, which sends
// it without a copy and drops it with the request; o is empty after.
func (o *bigBody) settle(resp *fasthttp.Response) {
	if o.b != nil {
		resp.SetBodyRaw(o.b)
		o.b = nil
	}
}

// drop forgets the body's own slice.
func (o *bigBody) drop() { o.b = nil }
