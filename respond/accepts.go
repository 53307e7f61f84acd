package respond

// Accepts reports whether the Accept fields of a request (its
// Header["Accept"]) accept the media type mt, such as "image/png", as RFC
// 9110 section 12.5.1 reads them: the most specific range that matches mt
// (mt itself, then its type/*, then */*) decides, and accepts it with a
// weight above 0. No Accept field, or an empty one, accepts everything.
// It allocates nothing.
//
// Typed operations negotiate their encoded bodies themselves; Accepts
// serves a handler whose body's media type is known only once it has the
// body (a stored file), so that it answers 406 Not Acceptable alike.
func Accepts(accept []string, mt string) bool {
	if len(accept) == 0 || (len(accept) == 1 && accept[0] == "") {
		return true
	}
	q, _ := quality(accept, mt)
	return q > 0
}
