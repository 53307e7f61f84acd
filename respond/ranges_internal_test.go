package respond

import (
	"math/big"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseRange(t *testing.T) {
	for _, c := range []struct {
		header  string
		size    int64
		want    []byteRange
		outcome rangeOutcome
	}{
		{"bytes=0-4", 10, []byteRange{{0, 5}}, rangePartial},
		{"bytes=5-", 10, []byteRange{{5, 5}}, rangePartial},
		{"bytes=-3", 10, []byteRange{{7, 3}}, rangePartial},
		{"bytes=-30", 10, []byteRange{{0, 10}}, rangePartial},
		{"bytes=8-100", 10, []byteRange{{8, 2}}, rangePartial},
		{"BYTES=0-0", 10, []byteRange{{0, 1}}, rangePartial},
		{"bytes= 0-1 , ,2-3", 10, []byteRange{{0, 4}}, rangePartial},                // adjacent: one range
		{"bytes=0-1,1000-1001", 2000, []byteRange{{0, 2}, {1000, 2}}, rangePartial}, // far apart: two
		{"bytes=1000-1001,0-1", 2000, []byteRange{{0, 2}, {1000, 2}}, rangePartial}, // sorted
		{"bytes=0-99,50-150,10-20", 2000, []byteRange{{0, 151}}, rangePartial},      // overlapping: one
		{"bytes=10-,99999999999999999999999-", 100, []byteRange{{10, 90}}, rangePartial},
		{"bytes=0-99999999999999999999999", 100, []byteRange{{0, 100}}, rangePartial},
		{"bytes=-99999999999999999999999", 100, []byteRange{{0, 100}}, rangePartial},
		{"bytes=10-20", 5, nil, rangeUnsatisfiable},
		{"bytes=-0", 5, nil, rangeUnsatisfiable},
		{"bytes=5-", 5, nil, rangeUnsatisfiable},
		{"bytes=0-1", 0, nil, rangeIgnored}, // an empty body is sent whole
		{"bytes=", 10, nil, rangeIgnored},
		{"bytes=,,", 10, nil, rangeIgnored},
		{"bytes=3-2", 10, nil, rangeIgnored},
		{"bytes=a-b", 10, nil, rangeIgnored},
		{"bytes=+1-2", 10, nil, rangeIgnored},
		{"bytes=1-2-3", 10, nil, rangeIgnored},
		{"bytes=1", 10, nil, rangeIgnored},
		{"bytes=-", 10, nil, rangeIgnored},
		{"items=0-4", 10, nil, rangeIgnored},
		{"0-4", 10, nil, rangeIgnored},
		{"bytes=0-0" + strings.Repeat(",0-0", MaxRanges-1), 10, []byteRange{{0, 1}}, rangePartial},
		{"bytes=0-0" + strings.Repeat(",0-0", MaxRanges), 10, nil, rangeIgnored}, // too many
	} {
		got, outcome := parseRange(c.header, c.size)
		if outcome != c.outcome || !slices.Equal(got, c.want) {
			t.Errorf("parseRange(%q, %d) = %v, %d; want %v, %d", c.header, c.size, got, outcome, c.want, c.outcome)
		}
	}
}

// Many small ranges, each in its own place, cost at most MaxRanges parts:
// a field with more is ignored, and what is sent is never more than the
// body once.
func TestParseRangeBoundsTheParts(t *testing.T) {
	var b strings.Builder
	b.WriteString("bytes=0-0")
	for i := 1; i < 10000; i++ {
		b.WriteString(",0-0")
	}
	if rs, outcome := parseRange(b.String(), 1<<20); outcome != rangeIgnored || rs != nil {
		t.Errorf("10000 ranges: %v, %d; want the field ignored", rs, outcome)
	}
}

// refRange is an independent reading of a Range field, with numbers of
// any size: the satisfiable ranges [start, end) it asks for, and whether
// it is to be ignored, or is unsatisfiable.
func refRange(s string, size int64) (spans [][2]*big.Int, ignored, unsatisfiable bool) {
	unit, set, ok := strings.Cut(s, "=")
	if !ok || strings.ToLower(strings.TrimRight(unit, " \t")) != "bytes" || size <= 0 {
		return nil, true, false
	}
	sz := big.NewInt(size)
	isDigits := func(s string) bool {
		return s != "" && strings.Trim(s, "0123456789") == ""
	}
	n := 0
	for _, spec := range strings.Split(set, ",") {
		spec = strings.Trim(spec, " \t")
		if spec == "" {
			continue
		}
		n++
		a, b, ok := strings.Cut(spec, "-")
		if !ok {
			return nil, true, false
		}
		if a == "" {
			if !isDigits(b) {
				return nil, true, false
			}
			l, _ := new(big.Int).SetString(b, 10)
			if l.Sign() == 0 {
				continue
			}
			start := new(big.Int).Sub(sz, l)
			if start.Sign() < 0 {
				start.SetInt64(0)
			}
			spans = append(spans, [2]*big.Int{start, sz})
			continue
		}
		if !isDigits(a) || (b != "" && !isDigits(b)) {
			return nil, true, false
		}
		first, _ := new(big.Int).SetString(a, 10)
		end := new(big.Int).Set(sz)
		if b != "" {
			last, _ := new(big.Int).SetString(b, 10)
			if last.Cmp(first) < 0 {
				return nil, true, false
			}
			if last.Cmp(sz) < 0 {
				end = last.Add(last, big.NewInt(1))
			}
		}
		if first.Cmp(sz) >= 0 {
			continue
		}
		spans = append(spans, [2]*big.Int{first, end})
	}
	if n == 0 || n > MaxRanges {
		return nil, true, false
	}
	return spans, false, len(spans) == 0
}

func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"bytes=0-4", "bytes=-3", "bytes=5-", "bytes=0-1,3-4,100-200", "bytes=1000-2000,0-10,5-6",
		"bytes=99999999999999999999-", "bytes=-0", "bytes=,", "items=1-2", "bytes=3-2", "bytes= 1-2 ,\t3-4"} {
		f.Add(s, int64(1000))
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, s string, size int64) {
		if size < 0 {
			size = -(size + 1)
		}
		rs, outcome := parseRange(s, size)
		spans, ignored, unsatisfiable := refRange(s, size)
		switch {
		case ignored:
			if outcome != rangeIgnored {
				t.Fatalf("%q (size %d): %v, %d; the field is to be ignored", s, size, rs, outcome)
			}
			return
		case unsatisfiable:
			if outcome != rangeUnsatisfiable {
				t.Fatalf("%q (size %d): %v, %d; want unsatisfiable", s, size, rs, outcome)
			}
			return
		}
		if outcome != rangePartial || len(rs) == 0 || len(rs) > MaxRanges {
			t.Fatalf("%q (size %d): %v, %d; want 1 to %d ranges", s, size, rs, outcome, MaxRanges)
		}
		// Every range lies inside the body, sorted, CoalesceGap apart.
		var total int64
		for i, r := range rs {
			if r.start < 0 || r.length <= 0 || r.start > size-r.length {
				t.Fatalf("%q (size %d): range %v is outside the body", s, size, r)
			}
			if i > 0 && r.start-(rs[i-1].start+rs[i-1].length) < CoalesceGap {
				t.Fatalf("%q (size %d): %v: ranges %d and %d are not coalesced", s, size, rs, i-1, i)
			}
			total += r.length
		}
		if total > size {
			t.Fatalf("%q (size %d): %v sends %d bytes, more than the body", s, size, rs, total)
		}
		// Every requested byte is sent, and every byte sent was requested
		// or lies in a gap under CoalesceGap between requested ones.
		covered := func(x *big.Int) bool {
			for _, r := range rs {
				if x.Cmp(big.NewInt(r.start)) >= 0 && x.Cmp(big.NewInt(r.start+r.length)) < 0 {
					return true
				}
			}
			return false
		}
		for _, sp := range spans {
			last := new(big.Int).Sub(sp[1], big.NewInt(1))
			if !covered(sp[0]) || !covered(last) {
				t.Fatalf("%q (size %d): requested [%v, %v) is not in %v", s, size, sp[0], sp[1], rs)
			}
		}
		for _, r := range rs {
			for _, edge := range []int64{r.start, r.start + r.length - 1} {
				near := false
				for _, sp := range spans {
					lo := new(big.Int).Sub(sp[0], big.NewInt(CoalesceGap))
					hi := new(big.Int).Add(sp[1], big.NewInt(CoalesceGap))
					e := big.NewInt(edge)
					if e.Cmp(lo) >= 0 && e.Cmp(hi) < 0 {
						near = true
					}
				}
				if !near {
					t.Fatalf("%q (size %d): byte %d of %v is far from every requested range", s, size, edge, rs)
				}
			}
		}
		// Parse, format, parse: the same ranges.
		again, outcome := parseRange(formatRanges(rs), size)
		if outcome != rangePartial || !slices.Equal(again, rs) {
			t.Fatalf("%q (size %d): %v formats as %q, which parses as %v", s, size, rs, formatRanges(rs), again)
		}
	})
}

func TestIfRangeHolds(t *testing.T) {
	lm := mustTime(t, "Wed, 21 Oct 2015 07:28:00 GMT")
	for _, c := range []struct {
		ifRange []string
		etag    string
		holds   bool
	}{
		{nil, `"a"`, true},
		{[]string{`"a"`}, `"a"`, true},
		{[]string{` "a" `}, `"a"`, true},
		{[]string{`"b"`}, `"a"`, false},
		{[]string{`W/"a"`}, `W/"a"`, false}, // a weak tag never matches
		{[]string{`"a"`}, `W/"a"`, false},
		{[]string{`W/"a"`}, `"a"`, false},
		{[]string{`"a"`}, ``, false},
		{[]string{`"a"`, `"a"`}, `"a"`, false},
		{[]string{"Wed, 21 Oct 2015 07:28:00 GMT"}, "", true},
		{[]string{"Wed, 21 Oct 2015 07:28:01 GMT"}, "", false},
		{[]string{"Wed, 21 Oct 2015 07:27:59 GMT"}, "", false},
		{[]string{"yesterday"}, "", false},
	} {
		h := map[string][]string{}
		if c.ifRange != nil {
			h["If-Range"] = c.ifRange
		}
		if got := ifRangeHolds(h, c.etag, lm); got != c.holds {
			t.Errorf("If-Range %q, ETag %q: %v, want %v", c.ifRange, c.etag, got, c.holds)
		}
	}
	// A modification time with a fraction of a second is not the date.
	if ifRangeHolds(map[string][]string{"If-Range": {"Wed, 21 Oct 2015 07:28:00 GMT"}}, "", lm.Add(300e6)) {
		t.Error("a date matched a modification time 300 ms after it")
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := http.ParseTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}
