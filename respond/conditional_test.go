package respond

import "testing"

func TestMatchETag(t *testing.T) {
	for _, tc := range []struct {
		list, etag   string
		weak, strong bool // the result of each comparison
	}{
		{`"a"`, `"a"`, true, true},
		{`"x", "a"`, `"a"`, true, true},
		{`"x","a"`, `"a"`, true, true},
		{`W/"a"`, `"a"`, true, false},
		{`"a"`, `W/"a"`, true, false},
		{`"a,b"`, `"a,b"`, true, true}, // a comma inside a tag
		{`"a,b"`, `"a"`, false, false},
		{`"a, "b"`, `"b"`, false, false}, // the tag is `a, `; then "b" is no entity tag
		{`*`, `"a"`, true, true},
		{` , *`, `"a"`, true, true},
		{`"b"`, `"a"`, false, false},
		{`a`, `a`, false, false},              // no entity tag in the list
		{`"a"`, `a`, true, true},              // the current one unquoted: its text
		{`"a`, `"a"`, false, false},           // unterminated
		{`W/`, `W/"a"`, false, false},         // nothing after W/
		{`"x" junk "a"`, `"a"`, false, false}, // reading stops at junk
	} {
		t.Run(tc.list+" vs "+tc.etag, func(t *testing.T) {
			if got := matchETag([]string{tc.list}, tc.etag, true); got != tc.weak {
				t.Errorf("weak comparison %v, want %v", got, tc.weak)
			}
			if got := matchETag([]string{tc.list}, tc.etag, false); got != tc.strong {
				t.Errorf("strong comparison %v, want %v", got, tc.strong)
			}
		})
	}
	if n := testing.AllocsPerRun(100, func() { matchETag([]string{`"x", W/"y", "a,b"`}, `"a,b"`, true) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

func FuzzMatchETag(f *testing.F) {
	f.Add(`"x", W/"a,b"`, `"a,b"`)
	f.Add(`*`, ``)
	f.Add(`W/"`, `W/`)
	f.Fuzz(func(t *testing.T, list, etag string) {
		weak := matchETag([]string{list}, etag, true)
		if strong := matchETag([]string{list}, etag, false); strong && !weak {
			t.Fatalf("%q vs %q: a strong match that is not a weak one", list, etag)
		}
	})
}
