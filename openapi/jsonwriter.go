package openapi

// jsonWriter writes JSON, compact or indented by indent per level (as
// json.MarshalIndent with an empty prefix does).
type jsonWriter struct {
	output
	indent string
	depth  int
	// first is true after an object or array opened and before its first
	// member; comma after a value, until the next member.
	first, comma bool
	afterKey     bool
}

func (w *jsonWriter) newline() {
	w.buf = append(w.buf, '\n')
	for range w.depth {
		w.buf = append(w.buf, w.indent...)
	}
}

// member starts a value: a comma and a line break after the one before,
// unless the value follows its key.
func (w *jsonWriter) member() {
	if w.afterKey {
		w.afterKey = false
		return
	}
	if w.comma {
		w.buf = append(w.buf, ',')
	}
	if w.indent != "" && w.depth > 0 {
		w.newline()
	}
	w.first = false
}

func (w *jsonWriter) open(c byte) {
	w.member()
	w.buf = append(w.buf, c)
	w.depth++
	w.first, w.comma = true, false
}

func (w *jsonWriter) close(c byte) {
	w.depth--
	if !w.first && w.indent != "" {
		w.newline()
	}
	w.buf = append(w.buf, c)
	w.first, w.comma = false, true
	w.cut()
}

func (w *jsonWriter) scalar(b []byte) {
	w.member()
	w.buf = append(w.buf, b...)
	w.comma = true
	w.cut()
}

func (w *jsonWriter) beginObject() { w.open('{') }
func (w *jsonWriter) endObject()   { w.close('}') }
func (w *jsonWriter) beginArray()  { w.open('[') }
func (w *jsonWriter) endArray()    { w.close(']') }

func (w *jsonWriter) key(k string) {
	w.member()
	w.buf = appendJSONString(w.buf, k)
	w.buf = append(w.buf, ':')
	if w.indent != "" {
		w.buf = append(w.buf, ' ')
	}
	w.afterKey = true
}

func (w *jsonWriter) str(s string) {
	w.member()
	w.buf = appendJSONString(w.buf, s)
	w.comma = true
	w.cut()
}

func (w *jsonWriter) number(text string) {
	w.member()
	w.buf = append(w.buf, text...)
	w.comma = true
	w.cut()
}

func (w *jsonWriter) boolean(b bool) {
	if b {
		w.scalar([]byte("true"))
	} else {
		w.scalar([]byte("false"))
	}
}

func (w *jsonWriter) null() { w.scalar([]byte("null")) }

func (w *jsonWriter) rawJSON(b []byte) {
	if w.indent == "" {
		w.scalar(b) // compact already
		return
	}
	replayJSON(w, b)
}
