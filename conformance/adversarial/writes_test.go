package adversarial

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"mime/multipart"
	"net/textproto"
	"strings"
	"testing"
)

// pngBytes is a 1×1 PNG.
var pngBytes, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

// uploadPhoto uploads data as the photo of pet id.
func (s *target) uploadPhoto(t *testing.T, id int64, ctype string, data []byte) response {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="photo"; filename="p"`)
	h.Set("Content-Type", ctype)
	part, _ := mw.CreatePart(h)
	part.Write(data)
	mw.Close()
	res := s.do(t, "POST", path(id)+"/photo", b.Bytes(), "Content-Type: "+mw.FormDataContentType(), s.auth())
	if res.status != 200 {
		t.Fatalf("photo upload: %s", res)
	}
	return res
}

func gzipped(parts ...string) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(p))
		zw.Close()
	}
	return b.Bytes()
}

// writes: bodies, codings, photos and retried writes.
func writes(t *testing.T, s *target) {
	t.Run("every gzip member is read, and nothing after the last", func(t *testing.T) {
		// Issue 31 row 13 (RFC 1952 §2.2: a gzip file is a series of
		// members): two members were read as truncated JSON (400), and
		// garbage after one member was accepted (201).
		name := s.name("Gz")
		body := gzipped(`{"name":"`+name+`",`, `"species":"cat"}`)
		res := s.do(t, "POST", "/pets", body, "Content-Type: application/json", "Content-Encoding: gzip", s.auth())
		wantStatus(t, "a body of two gzip members", res, 201)
		var p pet
		if res.status == 201 {
			res.json(t, &p)
			if p.Name != name {
				t.Errorf("two gzip members: name %q, want %q", p.Name, name)
			}
		}
		body = append(gzipped(`{"name":"`+s.name("Gz")+`","species":"cat"}`), "garbage"...)
		res = s.do(t, "POST", "/pets", body, "Content-Type: application/json", "Content-Encoding: gzip", s.auth())
		wantProblem(t, "a gzip member followed by garbage", res, 400)
		body = gzipped(`{"name":"` + s.name("Gz") + `","species":"cat"}`)
		res = s.do(t, "POST", "/pets", body[:len(body)-4], "Content-Type: application/json", "Content-Encoding: gzip", s.auth())
		wantProblem(t, "a gzip member without its trailer", res, 400)
		res = s.do(t, "POST", "/pets", body, "Content-Type: application/json", "Content-Encoding: gzip, gzip", s.auth())
		if res.status == 201 || res.status >= 500 {
			t.Errorf("gzip named twice over a body gzipped once: %s", res)
		}
	})

	t.Run("a photo has a validator", func(t *testing.T) {
		// Row 15: photos had no ETag, so every view downloaded them again.
		id, _ := s.create(t, `{"name":"`+s.name("Ph")+`","species":"cat"}`)
		s.uploadPhoto(t, id, "image/png", pngBytes)
		res := s.do(t, "GET", path(id)+"/photo", nil)
		wantStatus(t, "GET photo", res, 200)
		etag := res.header.Get("ETag")
		if etag == "" {
			t.Fatalf("GET photo: no ETag")
		}
		res = s.do(t, "GET", path(id)+"/photo", nil, "If-None-Match: "+etag)
		wantStatus(t, "GET photo with its ETag", res, 304)
		s.uploadPhoto(t, id, "image/png", append(bytes.Clone(pngBytes), 0))
		res = s.do(t, "GET", path(id)+"/photo", nil, "If-None-Match: "+etag)
		wantStatus(t, "GET a new photo with the old ETag", res, 200)
	})

	t.Run("a photo is what it says it is", func(t *testing.T) {
		id, _ := s.create(t, `{"name":"`+s.name("Ph")+`","species":"cat"}`)
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="photo"; filename="x.html"`)
		h.Set("Content-Type", "text/html")
		part, _ := mw.CreatePart(h)
		part.Write([]byte("<script>alert(1)</script>"))
		mw.Close()
		res := s.do(t, "POST", path(id)+"/photo", b.Bytes(), "Content-Type: "+mw.FormDataContentType(), s.auth())
		wantProblem(t, "an HTML photo", res, 415, 422)
	})

	t.Run("a retried write with its key happens once", func(t *testing.T) {
		// The committed-but-503 finding of issue 31: a client that cannot
		// know whether its write landed retries it with the same
		// Idempotency-Key and gets the first outcome.
		key := "Idempotency-Key: " + s.name("adversarial-retry-key-")
		body := []byte(`{"name":"` + s.name("Idem") + `","species":"cat"}`)
		first := s.do(t, "POST", "/pets", body, "Content-Type: application/json", s.auth(), key)
		wantStatus(t, "the first POST", first, 201)
		second := s.do(t, "POST", "/pets", body, "Content-Type: application/json", s.auth(), key)
		wantStatus(t, "the retry", second, 201)
		var a, b pet
		first.json(t, &a)
		second.json(t, &b)
		if a.ID != b.ID {
			t.Errorf("a retry with the same key created pet %d after pet %d", b.ID, a.ID)
		}
		other := s.do(t, "POST", "/pets", []byte(`{"name":"other","species":"dog"}`), "Content-Type: application/json", s.auth(), key)
		wantProblem(t, "the same key with another body", other, 422)
		long := s.do(t, "POST", "/pets", body, "Content-Type: application/json", s.auth(), "Idempotency-Key: "+strings.Repeat("k", 10000))
		wantProblem(t, "a key of 10,000 bytes", long, 400, 422)
		short := s.do(t, "POST", "/pets", body, "Content-Type: application/json", s.auth(), "Idempotency-Key: k")
		wantProblem(t, "a key of one character, guessable by anyone", short, 400, 422)
	})
}
