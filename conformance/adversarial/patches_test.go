package adversarial

import (
	"fmt"
	"strings"
	"testing"
)

// patches: JSON Patch (RFC 6902) and JSON Pointer (RFC 6901) documents that
// bend the rules, and patches that change nothing.
func patches(t *testing.T, s *target) {
	jsonPatch := func(t *testing.T, id int64, doc string, headers ...string) response {
		t.Helper()
		return s.do(t, "PATCH", path(id), []byte(doc), append(headers, "Content-Type: application/json-patch+json", s.auth())...)
	}
	mergePatch := func(t *testing.T, id int64, doc string, headers ...string) response {
		t.Helper()
		return s.do(t, "PATCH", path(id), []byte(doc), append(headers, "Content-Type: application/merge-patch+json", s.auth())...)
	}

	t.Run("a patch that changes nothing is not a new version", func(t *testing.T) {
		// Issue 31 row 6: such patches answered 200 with a new ETag, a new
		// updatedAt and an updated event, failing every other client's
		// If-Match for nothing.
		name := s.name("Noop")
		id, etag := s.create(t, `{"name":"`+name+`","species":"cat","tags":["a","b"]}`)
		mark := s.lastEventID(t)
		for what, send := range map[string]func() response{
			"a JSON Patch of only test": func() response { return jsonPatch(t, id, `[{"op":"test","path":"/name","value":"`+name+`"}]`) },
			"an empty JSON Patch":       func() response { return jsonPatch(t, id, `[]`) },
			"a move to itself":          func() response { return jsonPatch(t, id, `[{"op":"move","from":"/tags/0","path":"/tags/0"}]`) },
			"a replace with the same":   func() response { return jsonPatch(t, id, `[{"op":"replace","path":"/species","value":"cat"}]`) },
			"a merge patch of the same": func() response { return mergePatch(t, id, `{"name":"`+name+`"}`) },
			"an empty merge patch":      func() response { return mergePatch(t, id, `{}`) },
			"an add then a remove": func() response {
				return jsonPatch(t, id, `[{"op":"add","path":"/owner","value":"x"},{"op":"remove","path":"/owner"}]`)
			},
		} {
			res := send()
			wantStatus(t, what, res, 200)
			if got := res.header.Get("ETag"); got != etag {
				t.Errorf("%s: ETag %s, want the unchanged %s", what, got, etag)
			}
			// The version is still the one other clients hold.
			res = mergePatch(t, id, `{}`, "If-Match: "+etag)
			wantStatus(t, what+", then a patch with the old If-Match", res, 200)
		}
		for _, e := range s.eventsAfter(t, mark) {
			if e.id == id {
				t.Errorf("an event for a patch that changed nothing: %+v", e)
			}
		}
	})

	t.Run("a read-only member is refused, not dropped", func(t *testing.T) {
		// Row 6: a write to id or createdAt was silently dropped and
		// answered 200.
		id, _ := s.create(t, `{"name":"`+s.name("Ro")+`","species":"cat"}`)
		for _, doc := range []string{`[{"op":"replace","path":"/id","value":1}]`, `[{"op":"replace","path":"/createdAt","value":"2000-01-01T00:00:00Z"}]`} {
			res := jsonPatch(t, id, doc)
			wantProblem(t, "JSON Patch "+doc, res, 422)
			if !strings.Contains(string(res.body), "id") && !strings.Contains(string(res.body), "createdAt") {
				t.Errorf("JSON Patch %s: the problem does not name the member: %s", doc, res)
			}
		}
		res := mergePatch(t, id, `{"hasPhoto":true}`)
		wantProblem(t, "a merge patch of hasPhoto", res, 422)
	})

	t.Run("array indexes follow RFC 6901's grammar", func(t *testing.T) {
		// Row 8: /tags/01 and /tags/+0 were accepted as indexes.
		id, etag := s.create(t, `{"name":"`+s.name("Idx")+`","species":"cat","tags":["a","b"]}`)
		for _, p := range []string{"/tags/01", "/tags/+0", "/tags/-1", "/tags/0x0", "/tags/ 0", "/tags/1.0", "/tags/99999999999999999999"} {
			res := jsonPatch(t, id, `[{"op":"replace","path":"`+p+`","value":"z"}]`)
			wantProblem(t, "replace at "+p, res, 422)
		}
		for _, p := range []string{"/name~2", "name", "/~"} {
			res := jsonPatch(t, id, `[{"op":"replace","path":"`+p+`","value":"z"}]`)
			wantProblem(t, "a pointer "+p, res, 422)
		}
		if got := s.do(t, "GET", path(id), nil).header.Get("ETag"); got != etag {
			t.Errorf("a refused patch changed the pet: ETag %s, was %s", got, etag)
		}
	})

	t.Run("test compares JSON values, not their spelling", func(t *testing.T) {
		// Row 8 (RFC 6902 §4.6): 16526.0 equals 16526; objects equal
		// whatever their member order.
		id, etag := s.create(t, `{"name":"`+s.name("Num")+`","species":"cat","tags":["a"]}`)
		for _, doc := range []string{
			fmt.Sprintf(`[{"op":"test","path":"/id","value":%d.0}]`, id),
			fmt.Sprintf(`[{"op":"test","path":"/id","value":%de0}]`, id),
			`[{"op":"test","path":"/tags","value":["a"]}]`,
		} {
			res := jsonPatch(t, id, doc)
			wantStatus(t, "test "+doc, res, 200)
			if got := res.header.Get("ETag"); got != etag {
				t.Errorf("test %s: ETag %s, want %s", doc, got, etag)
			}
		}
	})

	t.Run("a failed test is 409, an invalid patch 422", func(t *testing.T) {
		// Row 8: a test of a missing member was 409 in one case and 422
		// in another.
		id, _ := s.create(t, `{"name":"`+s.name("Fail")+`","species":"cat"}`)
		for _, doc := range []string{
			`[{"op":"test","path":"/name","value":"not the name"}]`,
			`[{"op":"test","path":"/owner","value":"x"}]`,
			`[{"op":"test","path":"/nothere","value":1}]`,
			`[{"op":"test","path":"/tags/5","value":"x"}]`,
		} {
			res := jsonPatch(t, id, doc)
			wantProblem(t, "test "+doc, res, 409)
		}
		for _, doc := range []string{
			`{}`, `[{}]`, `[{"op":"frobnicate","path":"/name"}]`, `[{"op":"add","path":"/name"}]`,
			`[{"op":"move","path":"/name"}]`, `[{"op":"move","from":"/tags","path":"/tags/0"}]`,
			// Errors that depend on the pet's state: RFC 5789 §2.2 allows
			// 409 (conflicting state) as well as 422.
			`[{"op":"remove","path":"/nothere"}]`, `[{"op":"add","path":"/tags/7","value":"x"}]`,
		} {
			res := jsonPatch(t, id, doc)
			if strings.Contains(doc, "nothere") || strings.Contains(doc, "/tags/7") {
				wantProblem(t, "patch "+doc, res, 409, 422)
			} else {
				wantProblem(t, "patch "+doc, res, 422)
			}
			for _, leak := range []string{"jsonpatch", "evanphx", "goroutine", ".go:"} {
				if strings.Contains(string(res.body), leak) {
					t.Errorf("patch %s: the problem shows %q: %s", doc, leak, res)
				}
			}
		}
	})

	t.Run("a patch of many operations is refused before it is applied", func(t *testing.T) {
		// Row 8: 20,000 operations (0.9 MB) took 2.7 s, even for a pet
		// that does not exist.
		var b strings.Builder
		b.WriteString("[")
		for i := range 20000 {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`{"op":"add","path":"/tags/0","value":"t"}`)
		}
		b.WriteString("]")
		id, etag := s.create(t, `{"name":"`+s.name("Big")+`","species":"cat"}`)
		res := jsonPatch(t, id, b.String())
		wantProblem(t, "20,000 operations", res, 413, 422)
		if got := s.do(t, "GET", path(id), nil).header.Get("ETag"); got != etag {
			t.Errorf("the refused patch changed the pet")
		}
		res = jsonPatch(t, 999999999, b.String())
		wantProblem(t, "20,000 operations on a pet that does not exist", res, 404, 413, 422)
	})

	t.Run("pointer escapes address the member they spell", func(t *testing.T) {
		// RFC 6901 §4: ~1 is "/", ~0 is "~", in that order.
		id, _ := s.create(t, `{"name":"`+s.name("Esc")+`","species":"cat","tags":["a"]}`)
		res := jsonPatch(t, id, `[{"op":"replace","path":"/na~0me","value":"x"}]`)
		wantProblem(t, "replace /na~0me (the member \"na~me\", which a pet has not)", res, 422)
	})
}
