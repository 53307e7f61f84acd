package respond

import (
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"
)

func TestAppendHTTPDateIsTimeFormat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	times := []time.Time{
		time.Date(2006, 1, 2, 15, 4, 5, 999, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 2, 29, 12, 0, 0, 0, time.FixedZone("x", -7*3600)),
	}
	for range 2000 {
		times = append(times, time.Unix(rng.Int64N(400_000_000_000)-100_000_000_000, rng.Int64N(1e9)))
	}
	for _, tm := range times {
		if got, want := string(appendHTTPDate(nil, tm)), tm.UTC().Format(http.TimeFormat); got != want {
			t.Fatalf("%v: %q, want %q", tm, got, want)
		}
	}
}

func FuzzAppendHTTPDate(f *testing.F) {
	f.Add(int64(0), int64(0))
	f.Add(int64(1136214245), int64(999))
	f.Fuzz(func(t *testing.T, sec, nsec int64) {
		tm := time.Unix(sec, nsec)
		if got, want := string(appendHTTPDate(nil, tm)), tm.UTC().Format(http.TimeFormat); got != want {
			t.Fatalf("%v: %q, want %q", tm, got, want)
		}
	})
}

// TestHTTPDateRemembersTheLastSecond: the same second is formatted once
// (no allocation the second time), another second anew; concurrent
// callers each get their own time's text (run with -race).
func TestHTTPDateRemembersTheLastSecond(t *testing.T) {
	var d httpDate
	a := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	if got := d.format(a); got != "Tue, 02 Jan 2024 03:04:05 GMT" {
		t.Fatal(got)
	}
	if n := testing.AllocsPerRun(100, func() { d.format(a.Add(300 * time.Millisecond)) }); n != 0 {
		t.Errorf("the same second again: %.0f allocations", n)
	}
	if got := d.format(a.Add(time.Second)); got != "Tue, 02 Jan 2024 03:04:06 GMT" {
		t.Errorf("the next second: %s", got)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			tm := a.Add(time.Duration(g) * time.Hour)
			want := tm.Format(http.TimeFormat)
			for range 500 {
				if got := d.format(tm); got != want {
					t.Errorf("%s, want %s", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
