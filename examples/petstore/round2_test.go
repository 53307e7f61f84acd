package main

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"testing"
)

// A PUT that stores what the pet already holds is not a new version: the
// same ETag and Last-Modified, no event, and another client's If-Match of
// that version still succeeds (issue 31 row 6's rule, for PUT).
func TestPutThatChangesNothingKeepsTheVersion(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		store := db.freshStore(t)
		c := startServiceOn(t, store)
		events := func() (n int) {
			t.Helper()
			if err := store.db.QueryRowContext(context.Background(), "SELECT count(*) FROM pet_events").Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		created := decode[Pet](t, c.sendJSON("POST", "/pets", `{"name":"Same","species":"cat","tags":["a","b"],"birthDate":"2020-01-02","owner":"Ann"}`, testToken), 201)
		path := "/pets/" + strconv.FormatInt(created.ID, 10)
		first := c.get(path)
		etag, modified := first.header.Get("ETag"), first.header.Get("Last-Modified")
		before := events()
		for _, body := range []string{
			`{"name":"Same","species":"cat","status":"available","tags":["a","b"],"birthDate":"2020-01-02","owner":"Ann"}`,
			`{"name":"Same","species":"cat","tags":["a","b"],"birthDate":"2020-01-02","owner":"Ann"}`, // status absent: available
		} {
			r := c.doHeaders("PUT", path, "application/json", body, "If-Match", etag)
			if r.status != 200 || r.header.Get("ETag") != etag || r.header.Get("Last-Modified") != modified {
				t.Errorf("PUT of the same fields: %d, ETag %q Last-Modified %q; want 200, %q %q", r.status, r.header.Get("ETag"), r.header.Get("Last-Modified"), etag, modified)
			}
		}
		if n := events(); n != before {
			t.Errorf("PUTs that change nothing added %d events", n-before)
		}
		// A change is still one: the tags' order, the owner removed.
		for _, body := range []string{
			`{"name":"Same","species":"cat","tags":["b","a"],"birthDate":"2020-01-02","owner":"Ann"}`,
			`{"name":"Same","species":"cat","tags":["b","a"],"birthDate":"2020-01-02"}`,
		} {
			r := c.doHeaders("PUT", path, "application/json", body)
			if r.status != 200 || r.header.Get("ETag") == etag {
				t.Errorf("PUT %s: %d, ETag %q; want 200 and a new ETag", body, r.status, r.header.Get("ETag"))
			}
			etag = r.header.Get("ETag")
		}
	})
}

// Two Authorization fields are a 400: a proxy in front may check one and
// the service read the other (RFC 9110 section 5.3: Authorization is not a
// list).
func TestTwoAuthorizationFieldsRefused(t *testing.T) {
	c := startService(t, testDBs[0])
	for _, lines := range [][]string{
		{"Bearer " + testToken, "Bearer wrong"},
		{"Bearer wrong", "Bearer " + testToken},
	} {
		req, _ := http.NewRequest("GET", c.base+"/me", nil)
		req.Header["Authorization"] = lines
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 400 {
			t.Errorf("Authorization %q: %d %s; want 400", lines, res.StatusCode, b)
		}
	}
}

// An empty photo is not an image: 422, and the pet keeps no photo.
func TestEmptyPhotoRefused(t *testing.T) {
	c := startService(t, testDBs[0])
	mt, body := multipartPhoto(t, "photo", "image/png", nil)
	if r := c.do("POST", "/pets/1/photo", mt, body, testToken); r.status != 422 {
		t.Errorf("an empty photo: %d %s; want 422", r.status, r.body)
	}
	if r := c.get("/pets/1/photo"); r.status != 404 {
		t.Errorf("GET the photo after an empty upload: %d; want 404", r.status)
	}
}
