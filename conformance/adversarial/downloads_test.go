package adversarial

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"mime/multipart"
	"net/textproto"
	"strings"
	"testing"
)

// photoBody is a multipart/form-data body with one photo part.
func photoBody(t *testing.T, ctype string, data []byte) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="photo"; filename="p"`)
	if ctype != "" {
		h.Set("Content-Type", ctype)
	}
	w, err := mw.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	mw.Close()
	return buf.Bytes(), "Content-Type: " + mw.FormDataContentType()
}

// wantField fails t unless res is a problem of status naming location.
func wantField(t *testing.T, what string, res response, status int, location string) {
	t.Helper()
	wantProblem(t, what, res, status)
	var p struct {
		Errors []struct {
			Location string `json:"location"`
		} `json:"errors"`
	}
	json.Unmarshal(res.body, &p)
	if len(p.Errors) == 0 || p.Errors[0].Location != location {
		t.Errorf("%s: %s; want an error at %s", what, res, location)
	}
}

// downloads: Range on a photo (a []byte body) and the upload's file
// constraints, with what an attacker would send.
func downloads(t *testing.T, s *target) {
	id, _ := s.create(t, `{"name":"`+s.name("Photo")+`","species":"cat"}`)
	photo := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte("0123456789"), 500)...)
	size := len(photo)
	body, ct := photoBody(t, "image/png", photo)
	wantStatus(t, "the upload", s.do(t, "POST", path(id)+"/photo", body, ct, s.auth()), 200)
	url := path(id) + "/photo"
	whole := s.do(t, "GET", url, nil)
	etag := whole.header.Get("ETag")
	if whole.status != 200 || !bytes.Equal(whole.body, photo) || whole.header.Get("Accept-Ranges") != "bytes" {
		t.Fatalf("GET the photo: %s, Accept-Ranges %q", whole, whole.header.Get("Accept-Ranges"))
	}

	t.Run("Range: never more than the photo once, plus parts' headers", func(t *testing.T) {
		many := make([]string, 1000)
		for i := range many {
			many[i] = fmt.Sprintf("%d-%d", i, i)
		}
		overlapping := strings.Repeat(fmt.Sprintf("0-%d,", size-1), 16)
		spread := make([]string, 16)
		for i := range spread {
			spread[i] = fmt.Sprintf("%d-%d", i*300, i*300+1)
		}
		for _, c := range []struct {
			what, rng string
			status    int
			maxBody   int
		}{
			{"1000 ranges (more than 16): the field is ignored", "bytes=" + strings.Join(many, ","), 200, size},
			{"16 copies of the whole photo: one range", "bytes=" + strings.TrimSuffix(overlapping, ","), 206, size},
			{"overlapping ranges: coalesced", "bytes=0-100,50-150,100-200,0-10", 206, 201},
			{"16 small ranges far apart: one part each", "bytes=" + strings.Join(spread, ","), 206, 32 + 16*200},
			{"a last position past any size", "bytes=0-99999999999999999999999999999", 206, size},
			{"a suffix longer than any size", "bytes=-99999999999999999999999999999", 206, size},
		} {
			res := s.do(t, "GET", url, nil, "Range: "+c.rng)
			wantStatus(t, c.what, res, c.status)
			if len(res.body) > c.maxBody {
				t.Errorf("%s: %d bytes sent, more than %d", c.what, len(res.body), c.maxBody)
			}
			if mt, params, _ := mime.ParseMediaType(res.header.Get("Content-Type")); mt == "multipart/byteranges" {
				mr := multipart.NewReader(bytes.NewReader(res.body), params["boundary"])
				parts := 0
				for {
					p, err := mr.NextPart()
					if err != nil {
						break
					}
					var a, b, n int
					if _, err := fmt.Sscanf(p.Header.Get("Content-Range"), "bytes %d-%d/%d", &a, &b, &n); err != nil || n != size {
						t.Errorf("%s: part %d: Content-Range %q", c.what, parts, p.Header.Get("Content-Range"))
						break
					}
					var got bytes.Buffer
					got.ReadFrom(p)
					if !bytes.Equal(got.Bytes(), photo[a:b+1]) {
						t.Errorf("%s: part %d is not the photo's bytes %d-%d", c.what, parts, a, b)
					}
					parts++
				}
				if parts != 16 {
					t.Errorf("%s: %d parts, want 16", c.what, parts)
				}
			}
		}
	})

	t.Run("Range: unsatisfiable is a 416 problem with the size", func(t *testing.T) {
		for _, rng := range []string{fmt.Sprintf("bytes=%d-", size), "bytes=99999999999999999999999-", "bytes=-0", fmt.Sprintf("bytes=%d-,-0", size+5)} {
			res := s.do(t, "GET", url, nil, "Range: "+rng)
			wantProblem(t, rng, res, 416)
			if got := res.header.Get("Content-Range"); got != fmt.Sprintf("bytes */%d", size) {
				t.Errorf("%s: Content-Range %q", rng, got)
			}
		}
	})

	t.Run("Range: malformed is ignored, never a 5xx", func(t *testing.T) {
		for _, rng := range []string{"bytes", "bytes=", "bytes=abc", "bytes=5-1", "bytes=--1", "bytes=1-2-3", "bytes=+1-2", "bytes=0x10-",
			"items=0-1", "bytes=1-2;q=1", "bytes=" + strings.Repeat(",", 20000) + "0-1"} {
			res := s.do(t, "GET", url, nil, "Range: "+rng)
			wantStatus(t, rng[:min(len(rng), 30)], res, 200, 206)
			if res.status == 200 && !bytes.Equal(res.body, photo) {
				t.Errorf("%.30s: 200 without the whole photo", rng)
			}
		}
		res := s.do(t, "GET", url, nil, "Range: bytes=0-1", "Range: bytes=2-3")
		wantStatus(t, "two Range lines", res, 200)
	})

	t.Run("If-Range: only the strong current ETag lets Range apply", func(t *testing.T) {
		for ifRange, want := range map[string]int{
			etag:                            206,
			"W/" + etag:                     200, // a weak tag never matches (RFC 9110 §13.1.5)
			`"0000"`:                        200,
			"Wed, 21 Oct 2015 07:28:00 GMT": 200, // no Last-Modified to match
			"garbage":                       200,
		} {
			res := s.do(t, "GET", url, nil, "Range: bytes=0-9", "If-Range: "+ifRange)
			wantStatus(t, "If-Range "+ifRange, res, want)
			if want == 200 && !bytes.Equal(res.body, photo) {
				t.Errorf("If-Range %s: 200 without the whole photo", ifRange)
			}
		}
	})

	t.Run("Range: only on GET", func(t *testing.T) {
		res := s.do(t, "HEAD", url, nil, "Range: bytes=0-9")
		if res.status != 200 || res.header.Get("Content-Length") != fmt.Sprint(size) || res.header.Get("Accept-Ranges") != "bytes" {
			t.Errorf("HEAD with Range: %s, Content-Length %q", res, res.header.Get("Content-Length"))
		}
		res = s.do(t, "GET", path(id), nil, "Range: bytes=0-1") // JSON: not a seekable body
		wantStatus(t, "Range on a JSON answer", res, 200)
		if res.header.Get("Content-Range") != "" {
			t.Errorf("Range on a JSON answer: Content-Range %q", res.header.Get("Content-Range"))
		}
	})

	t.Run("file parts: type and size as the tags say", func(t *testing.T) {
		for _, c := range []struct {
			what, ctype string
			data        []byte
			status      int
		}{
			{"an HTML file", "text/html", []byte("<script>alert(1)</script>"), 422},
			{"an SVG (scriptable)", "image/svg+xml", []byte("<svg onload=alert(1)/>"), 422},
			{"no Content-Type", "", photo, 422},
			{"a list of types", "image/png, text/html", photo, 422},
			{"a malformed type", "image/", photo, 422},
			{"4 MiB + 1 byte", "image/png", bytes.Repeat([]byte("x"), 4<<20+1), 413},
			{"a large file of the wrong type", "application/zip", bytes.Repeat([]byte("x"), 3<<20), 422},
		} {
			body, ct := photoBody(t, c.ctype, c.data)
			res := s.do(t, "POST", url, body, ct, s.auth())
			wantField(t, c.what, res, c.status, "body.photo")
		}
		// The photo is still the one uploaded first.
		if res := s.do(t, "GET", url, nil); !bytes.Equal(res.body, photo) {
			t.Errorf("a refused upload changed the photo: %s", res)
		}
	})
}
