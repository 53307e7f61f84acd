package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"testing"
)

// A photo carries a validator, its SHA-256 as a strong ETag: a GET whose
// If-None-Match names it is a 304 without the bytes, and a new photo has
// another. The photo route answers 406 to an Accept that its photo's
// media type does not satisfy, like the other routes.
func TestPhotoValidatorAndAccept(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		c := startService(t, db)
		upload := func(ctype string, data []byte) {
			t.Helper()
			mt, body := multipartPhoto(t, "photo", ctype, data)
			if r := c.do("POST", "/pets/1/photo", mt, body, testToken); r.status != 200 {
				t.Fatalf("upload: %d %s", r.status, r.body)
			}
		}
		png := []byte("\x89PNG\r\n\x1a\n one")
		upload("image/png", png)
		sum := sha256.Sum256(png)
		first := c.doHeaders("GET", "/pets/1/photo", "", "")
		if want := `"` + hex.EncodeToString(sum[:]) + `"`; first.status != 200 || first.header.Get("ETag") != want {
			t.Fatalf("GET: %d, ETag %q, want %q", first.status, first.header.Get("ETag"), want)
		}
		etag := first.header.Get("ETag")
		if r := c.doHeaders("GET", "/pets/1/photo", "", "", "If-None-Match", etag); r.status != 304 || len(r.body) != 0 || r.header.Get("ETag") != etag {
			t.Errorf("If-None-Match of the photo's ETag: %d %q, ETag %q", r.status, r.body, r.header.Get("ETag"))
		}
		if r := c.doHeaders("GET", "/pets/1/photo", "", "", "If-None-Match", `"other"`); r.status != 200 || string(r.body) != string(png) {
			t.Errorf("If-None-Match of another ETag: %d", r.status)
		}
		upload("image/png", []byte("\x89PNG\r\n\x1a\n two"))
		if r := c.doHeaders("GET", "/pets/1/photo", "", "", "If-None-Match", etag); r.status != 200 || r.header.Get("ETag") == etag {
			t.Errorf("a new photo with the old photo's If-None-Match: %d, ETag %q", r.status, r.header.Get("ETag"))
		}

		for accept, want := range map[string]int{
			"":                            200,
			"*/*":                         200,
			"image/*":                     200,
			"image/png":                   200,
			"image/webp, image/png;q=0.5": 200,
			"application/json":            406,
			"image/jpeg":                  406,
			"image/png;q=0, image/*":      406,
			"text/html, application/xml":  406,
		} {
			var r response
			if accept == "" {
				r = c.doHeaders("GET", "/pets/1/photo", "", "")
			} else {
				r = c.doHeaders("GET", "/pets/1/photo", "", "", "Accept", accept)
			}
			if r.status != want {
				t.Errorf("Accept %q: %d %s, want %d", accept, r.status, r.body, want)
			}
			if want == 406 {
				r.problem(t)
			}
		}
	})
}

// The event stream answers 406 to an Accept without text/event-stream,
// before it starts.
func TestEventsNotAcceptable(t *testing.T) {
	c := startService(t, testDBs[0])
	for accept, want := range map[string]int{
		"application/json":            406,
		"text/html":                   406,
		"text/event-stream;q=0, */*":  406,
		"text/event-stream":           200,
		"text/*":                      200,
		"application/json, */*;q=0.1": 200,
	} {
		for _, method := range []string{"GET", "HEAD"} {
			r := c.eventsWithAccept(method, accept)
			if r.status != want {
				t.Errorf("%s with Accept %q: %d, want %d", method, accept, r.status, want)
			}
		}
	}
}

// eventsWithAccept opens /pets/events with Accept and closes it once its
// headers arrive: the status, and the body of an answer that is not a
// stream.
func (c *client) eventsWithAccept(method, accept string) response {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.base+"/pets/events", nil)
	req.Header.Set("Accept", accept)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	var body []byte
	if res.StatusCode != 200 {
		body, _ = io.ReadAll(res.Body)
	}
	return response{res.StatusCode, res.Header, body}
}

// The migration that brings the photos' hashes hashes the photos stored
// before it.
func TestMigrationHashesPhotos(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := t.Context()
		loc := db.fresh(t)
		s := db.openStore(t, loc)
		data := []byte("GIF89a stored before")
		if _, err := s.SetPhoto(ctx, 2, Photo{ContentType: "image/gif", Data: data}); err != nil {
			t.Fatal(err)
		}
		migrateDown(t, s, 9)
		s.Close()
		s = db.openStore(t, loc)
		ph, err := s.Photo(ctx, 2)
		if sum := sha256.Sum256(data); err != nil || ph.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("after the migration: hash %q (%v)", ph.SHA256, err)
		}
	})
}

// A photo, a []byte body, answers Range (RFC 9110 section 14): 206 with
// the bytes asked for, If-Range deciding with the photo's ETag, 416 for
// a range past its end; and it is sent uncompressed, so that its ranges
// and its whole are one encoding.
func TestPhotoRange(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		c := startService(t, db)
		png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte("0123456789"), 300)...)
		mt, body := multipartPhoto(t, "photo", "image/png", png)
		if r := c.do("POST", "/pets/1/photo", mt, body, testToken); r.status != 200 {
			t.Fatalf("upload: %d %s", r.status, r.body)
		}
		whole := c.doHeaders("GET", "/pets/1/photo", "", "", "Accept-Encoding", "gzip")
		etag := whole.header.Get("ETag")
		if whole.status != 200 || whole.header.Get("Accept-Ranges") != "bytes" || whole.header.Get("Content-Encoding") != "" || !bytes.Equal(whole.body, png) {
			t.Fatalf("GET: %d, Accept-Ranges %q, Content-Encoding %q", whole.status, whole.header.Get("Accept-Ranges"), whole.header.Get("Content-Encoding"))
		}
		size := len(png)
		for _, c2 := range []struct {
			headers []string
			status  int
			body    []byte
			cr      string
		}{
			{[]string{"Range", "bytes=0-7"}, 206, png[:8], fmt.Sprintf("bytes 0-7/%d", size)},
			{[]string{"Range", "bytes=-10", "Accept-Encoding", "gzip"}, 206, png[size-10:], fmt.Sprintf("bytes %d-%d/%d", size-10, size-1, size)},
			{[]string{"Range", "bytes=100-", "If-Range", etag}, 206, png[100:], fmt.Sprintf("bytes 100-%d/%d", size-1, size)},
			{[]string{"Range", "bytes=100-", "If-Range", `"an old version"`}, 200, png, ""},
			{[]string{"Range", "bytes=100-", "If-Range", "W/" + etag}, 200, png, ""},
			{[]string{"Range", fmt.Sprintf("bytes=%d-", size)}, 416, nil, fmt.Sprintf("bytes */%d", size)},
		} {
			r := c.doHeaders("GET", "/pets/1/photo", "", "", c2.headers...)
			if r.status != c2.status || r.header.Get("Content-Range") != c2.cr || (c2.body != nil && !bytes.Equal(r.body, c2.body)) {
				t.Errorf("%q: %d %q, %d bytes", c2.headers, r.status, r.header.Get("Content-Range"), len(r.body))
			}
			if c2.status == 416 {
				r.problem(t)
			}
		}
		if r := c.doHeaders("HEAD", "/pets/1/photo", "", "", "Range", "bytes=0-7"); r.status != 200 || r.header.Get("Content-Length") != fmt.Sprint(size) {
			t.Errorf("HEAD with Range: %d, Content-Length %q; want it ignored", r.status, r.header.Get("Content-Length"))
		}
		// The upload's constraints are the tags': another type, and a file
		// too large, are refused naming the field.
		mt, body = multipartPhoto(t, "photo", "image/svg+xml", []byte("<svg/>"))
		if r := c.do("POST", "/pets/1/photo", mt, body, testToken); r.status != 422 || r.problem(t).Errors[0].Location != "body.photo" {
			t.Errorf("an SVG: %d %s", r.status, r.body)
		}
		mt, body = multipartPhoto(t, "photo", "image/png", bytes.Repeat([]byte("x"), maxPhotoBytes+1))
		if r := c.do("POST", "/pets/1/photo", mt, body, testToken); r.status != 413 || r.problem(t).Errors[0].Location != "body.photo" {
			t.Errorf("over 4 MiB: %d %s", r.status, r.body)
		}
	})
}
