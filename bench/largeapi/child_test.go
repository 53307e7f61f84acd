package largeapi

import (
	"net/http"
	"testing"
)

// scanWriter finds its needle wherever the writes cut it.
func TestScanWriterFindsAcrossWrites(t *testing.T) {
	body := "xxxx/r1000/items/{id}yyyy"
	for cut1 := 0; cut1 <= len(body); cut1++ {
		for cut2 := cut1; cut2 <= len(body); cut2++ {
			w := &scanWriter{header: http.Header{}, want: []byte("/r1000/items/{id}")}
			w.Write([]byte(body[:cut1]))
			w.Write([]byte(body[cut1:cut2]))
			w.Write([]byte(body[cut2:]))
			if !w.found || w.n != len(body) {
				t.Fatalf("cuts %d, %d: found %v, %d bytes", cut1, cut2, w.found, w.n)
			}
		}
	}
	w := &scanWriter{header: http.Header{}, want: []byte("/r1000/items/{id}")}
	w.Write([]byte("/r1000/items/"))
	w.Write([]byte("{ix}"))
	if w.found {
		t.Error("found a needle that is not there")
	}
}

// Both frameworks answer the workload's operations and serve the four
// forms, in one process: what a measurement checks before it counts.
func TestMeasure(t *testing.T) {
	for _, fw := range []string{"vane", "huma"} {
		res, err := Measure(fw, 20, []Registrar{Shared})
		if err != nil {
			t.Fatalf("%s: %v", fw, err)
		}
		if len(res.Forms) != len(Forms) || res.PeakRSS == 0 || (fw == "vane") != (res.Check != nil) {
			t.Errorf("%s: %+v", fw, res)
		}
	}
}
