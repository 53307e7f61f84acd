package openapi

import (
	"strings"
	"unicode/utf8"
)

// yamlWriter writes YAML in block style, two spaces per level, a mapping's
// keys in the order given: the value a YAML parser reads from it is the
// value written, whatever its strings hold. A string is written plain when
// it is a short line that YAML reads as no other type and that nothing in
// it ends; single-quoted when it is one line of printable characters; as
// a literal block when it has several lines and nothing a literal block
// would change; double-quoted, with escapes, otherwise. Invalid UTF-8 is written as U+FFFD, as JSON writes
// it.
type yamlWriter struct {
	output
	stack []yamlFrame
	// afterKey: a mapping's key was written ("key:"), its value not yet.
	afterKey bool
}

// yamlFrame is an open mapping or sequence.
type yamlFrame struct {
	seq    bool
	indent int  // the column of its keys or dashes
	n      int  // entries written
	inline bool // its first entry goes on the current line, after the parent's "- "
	opened bool // its first entry's line has begun
}

func (w *yamlWriter) spaces(n int) {
	for range n {
		w.buf = append(w.buf, ' ')
	}
}

// push opens a mapping or sequence as the next value.
func (w *yamlWriter) push(seq bool) {
	f := yamlFrame{seq: seq}
	if len(w.stack) > 0 {
		p := &w.stack[len(w.stack)-1]
		f.indent = p.indent + 2
		f.inline = p.seq
	}
	w.afterKey = false
	w.stack = append(w.stack, f)
}

// open begins the line of frame i's first entry, opening its parents
// first.
func (w *yamlWriter) open(i int) {
	f := &w.stack[i]
	if f.opened {
		return
	}
	f.opened = true
	if i == 0 {
		return
	}
	p := &w.stack[i-1]
	if !p.seq {
		w.buf = append(w.buf, '\n') // after "key:"
		return
	}
	w.dash(i - 1)
}

// dash writes the "- " of a new item of sequence frame i.
func (w *yamlWriter) dash(i int) {
	w.open(i)
	p := &w.stack[i]
	if !(p.inline && p.n == 0) {
		w.spaces(p.indent)
	}
	w.buf = append(w.buf, '-', ' ')
	p.n++
}

func (w *yamlWriter) pop(empty string) {
	i := len(w.stack) - 1
	f := w.stack[i]
	w.stack = w.stack[:i]
	if f.opened {
		return
	}
	// Nothing was written for it: the flow form of an empty collection.
	switch {
	case i == 0:
	case w.stack[i-1].seq:
		w.dash(i - 1)
	default:
		w.buf = append(w.buf, ' ')
	}
	w.buf = append(w.buf, empty...)
	w.buf = append(w.buf, '\n')
	w.cut()
}

func (w *yamlWriter) beginObject() { w.push(false) }
func (w *yamlWriter) endObject()   { w.pop("{}") }
func (w *yamlWriter) beginArray()  { w.push(true) }
func (w *yamlWriter) endArray()    { w.pop("[]") }

func (w *yamlWriter) key(k string) {
	i := len(w.stack) - 1
	w.open(i)
	f := &w.stack[i]
	if !(f.inline && f.n == 0) {
		w.spaces(f.indent)
	}
	f.n++
	start := len(w.buf)
	switch {
	case yamlPlain(k):
		w.buf = append(w.buf, k...)
	case yamlSingle(k):
		w.buf = appendYAMLSingle(w.buf, k)
	default:
		w.buf = appendYAMLQuoted(w.buf, k)
	}
	if len(w.buf)-start > 1000 {
		// YAML limits an implicit key to 1024 characters: the explicit
		// form, "? key", then ":" on a line of its own.
		key := append([]byte(nil), w.buf[start:]...)
		w.buf = append(append(w.buf[:start], '?', ' '), key...)
		w.buf = append(w.buf, '\n')
		w.spaces(f.indent)
	}
	w.buf = append(w.buf, ':')
	w.afterKey = true
}

// scalarStart begins a scalar value, and returns the indentation of a
// literal block's lines.
func (w *yamlWriter) scalarStart() int {
	if len(w.stack) == 0 {
		return 2
	}
	i := len(w.stack) - 1
	f := &w.stack[i]
	if w.afterKey {
		w.afterKey = false
		w.buf = append(w.buf, ' ')
		return f.indent + 2
	}
	w.dash(i)
	return f.indent + 2
}

func (w *yamlWriter) plainScalar(text string) {
	w.scalarStart()
	w.buf = append(w.buf, text...)
	w.buf = append(w.buf, '\n')
	w.cut()
}

func (w *yamlWriter) str(s string) {
	indent := w.scalarStart()
	switch {
	case yamlPlain(s):
		w.buf = append(w.buf, s...)
	case yamlSingle(s):
		w.buf = appendYAMLSingle(w.buf, s)
	case len(w.stack) > 0 && yamlLiteral(s):
		w.literal(s, indent)
		return
	default:
		w.buf = appendYAMLQuoted(w.buf, s)
	}
	w.buf = append(w.buf, '\n')
	w.cut()
}

// literal writes s, which yamlLiteral accepts, as a literal block.
func (w *yamlWriter) literal(s string, indent int) {
	body, clip := strings.CutSuffix(s, "\n")
	if clip {
		w.buf = append(w.buf, '|', '\n')
	} else {
		w.buf = append(w.buf, '|', '-', '\n')
	}
	for line := range strings.SplitSeq(body, "\n") {
		if line != "" {
			w.spaces(indent)
			w.buf = append(w.buf, line...)
		}
		w.buf = append(w.buf, '\n')
	}
	w.cut()
}

func (w *yamlWriter) number(text string) { w.plainScalar(text) }

func (w *yamlWriter) boolean(b bool) {
	if b {
		w.plainScalar("true")
	} else {
		w.plainScalar("false")
	}
}

func (w *yamlWriter) null()            { w.plainScalar("null") }
func (w *yamlWriter) rawJSON(b []byte) { replayJSON(w, b) }

// yamlPlain reports whether s can be written as a plain scalar that YAML
// reads back as the string s. Either a version number ("3.1.0": digits
// and at least two dots, which no YAML number or date has), or: a letter,
// '_', '/' or '$' first, then printable ASCII with no ": " or " #" (which
// end a plain scalar) and no ':' at the end, no space at the end, and not
// a word YAML reads as a boolean or null.
func yamlPlain(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	if c := s[0]; '0' <= c && c <= '9' {
		dots := 0
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '.':
				if i == len(s)-1 || s[i+1] == '.' {
					return false
				}
				dots++
			case c < '0' || c > '9':
				return false
			}
		}
		return dots >= 2
	}
	if c := s[0]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '/' || c == '$') {
		return false
	}
	if s[len(s)-1] == ' ' {
		return false
	}
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e:
			return false
		case c == ':' && (i == len(s)-1 || s[i+1] == ' '): // ": " ends a key
			return false
		case c == '#' && s[i-1] == ' ': // " #" begins a comment
			return false
		}
	}
	switch strings.ToLower(s) {
	case "null", "true", "false", "yes", "no", "on", "off", "y", "n":
		return false
	}
	return true
}

// yamlSingle reports whether s can be written single-quoted, where only
// the quote itself is escaped (doubled): a line of printable characters,
// with no white space at either end (a quoted scalar's line break and the
// spaces beside it fold).
func yamlSingle(s string) bool {
	if s == "" {
		return true
	}
	if c := s[0]; c == ' ' || c == '\t' {
		return false
	}
	if c := s[len(s)-1]; c == ' ' || c == '\t' {
		return false
	}
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return false
			}
		}
		if !yamlPrintable(r) || r == '\t' {
			return false
		}
	}
	return true
}

func appendYAMLSingle(b []byte, s string) []byte {
	b = append(b, '\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			b = append(b, '\'')
		}
		b = append(b, s[i])
	}
	return append(b, '\'')
}

// yamlLiteral reports whether s, which has several lines, reads back the
// same from a literal block ("|" or "|-"): printable characters and line
// feeds only, at most one line feed at the end, a first line that does not
// begin with white space (it would set the block's indentation), and no
// line of white space alone.
func yamlLiteral(s string) bool {
	if !strings.Contains(s, "\n") || strings.HasSuffix(s, "\n\n") || strings.TrimLeft(s, "\n") == "" {
		return false
	}
	first := strings.TrimLeft(s, "\n")
	if first[0] == ' ' || first[0] == '\t' {
		return false
	}
	lineStart, blank := true, true
	for i, r := range s {
		switch {
		case r == '\n':
			if !lineStart && blank {
				return false // white space alone on a line
			}
			lineStart, blank = true, true
			continue
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return false
			}
		case !yamlPrintable(r):
			return false
		}
		if r != ' ' && r != '\t' {
			blank = false
		}
		lineStart = false
	}
	return lineStart || !blank
}

// yamlPrintable reports whether YAML allows r unescaped, other than as a
// line break: tab, printable ASCII, and the printable ranges beyond, less
// the byte order mark and the characters YAML 1.1 reads as line breaks.
func yamlPrintable(r rune) bool {
	switch {
	case r == '\t', 0x20 <= r && r <= 0x7e:
		return true
	case r == 0x85, r == 0x2028, r == 0x2029, r == 0xfeff:
		return false
	case 0xa0 <= r && r <= 0xd7ff, 0xe000 <= r && r <= 0xfffd, 0x10000 <= r && r <= 0x10ffff:
		return true
	}
	return false
}

// appendYAMLQuoted appends s as a double-quoted scalar: backslash and
// quote escaped, every character YAML does not print escaped, invalid
// UTF-8 as U+FFFD.
func appendYAMLQuoted(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == utf8.RuneError && size == 1:
			b = append(b, `\uFFFD`...)
		case r < 0x20 || r == 0x7f:
			b = append(b, '\\', 'x', hex[r>>4], hex[r&0xf])
		case yamlPrintable(r):
			b = utf8.AppendRune(b, r)
		case r <= 0xffff:
			b = append(b, '\\', 'u', hex[r>>12], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		default:
			b = append(b, '\\', 'U', '0', '0', '0', hex[r>>16&0xf], hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		}
	}
	return append(b, '"')
}
