package adversarial

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vane-http/vane/conformance/internal/rawhttp"
	"github.com/vane-http/vane/internal/examplerun"
)

// origin is the one origin the service under attack lets browsers call it
// from (PETSTORE_CORS_ORIGINS).
const origin = "https://app.example"

// cursorKey is the service's cursor key (PETSTORE_CURSOR_KEY): its own
// secret, shared by replicas, unrelated to the bearer token.
const cursorKey = "adversarial-cursor-key-0123456789abcdef"

// target is the service under attack.
type target struct {
	svc   *examplerun.Service
	base  string // http://127.0.0.1:PORT
	host  string // 127.0.0.1:PORT
	token string
	seq   atomic.Int64 // makes names unique across cases

	engine string // the server under the service (examplerun.Engines)
}

// env is the service's environment in the suite: CORS for one origin,
// X-Forwarded-For believed from loopback (so that a case can speak as
// several clients), a cursor key of its own.
func env() []string {
	return []string{
		"PETSTORE_CORS_ORIGINS=" + origin,
		"PETSTORE_TRUSTED_PROXIES=127.0.0.1/32",
		"PETSTORE_CURSOR_KEY=" + cursorKey,
	}
}

func TestAdversarial(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example service")
	}
	for _, engine := range examplerun.Engines {
		t.Run(strings.ReplaceAll(engine, "/", ""), func(t *testing.T) { attack(t, engine) })
	}
}

// attack runs every area of the suite against the example served by
// engine.
func attack(t *testing.T, engine string) {
	svc := examplerun.Start(t, examplerun.Options{Race: true, Env: env(), Engine: engine})
	s := &target{svc: svc, base: svc.URL, host: strings.TrimPrefix(svc.URL, "http://"), token: svc.Token, engine: engine}
	for _, area := range []struct {
		name string
		run  func(*testing.T, *target)
	}{
		{"framing", framing},
		{"headers", headers},
		{"continue", continueLines},
		{"params", params},
		{"patches", patches},
		{"cursors", cursors},
		{"streams", streams},
		{"docs", docsAssets},
		{"cors", corsCases},
		{"writes", writes},
		{"secrets", secrets},
		{"downloads", downloads},
		{"round2", round2},
		{"memory", memory},
	} {
		t.Run(area.name, func(t *testing.T) { area.run(t, s) })
	}
}

// name returns a pet name no other case uses.
func (s *target) name(prefix string) string {
	return fmt.Sprintf("%s%d", prefix, s.seq.Add(1))
}

// response is an answer as the suite reads it.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) String() string {
	b := r.body
	if len(b) > 300 {
		b = append(b[:300:300], "…"...)
	}
	return fmt.Sprintf("%d %q", r.status, b)
}

// json decodes the body into v, failing t if it is not JSON.
func (r response) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("body is not JSON (%v): %s", err, r)
	}
}

// client sends what the suite asks as it is: no compression of its own,
// no redirects followed. The timeout only keeps a broken server from
// hanging the suite; no case measures time.
var client = &http.Client{
	Timeout:       30 * time.Second,
	Transport:     &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// do sends method path with body and header lines ("Name: value"), with
// the bearer token when auth is set.
func (s *target) do(t *testing.T, method, path string, body []byte, headers ...string) response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok {
			t.Fatalf("header %q has no colon", h)
		}
		req.Header.Add(k, strings.TrimSpace(v))
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	return response{res.StatusCode, res.Header, data}
}

// auth is the header line that authorises writes.
func (s *target) auth() string { return "Authorization: Bearer " + s.token }

// pet is a pet as the service answers it.
type pet struct {
	ID      int64    `json:"id"`
	Name    string   `json:"name"`
	Species string   `json:"species"`
	Tags    []string `json:"tags"`
	Owner   *string  `json:"owner"`
}

// create adds a pet from its JSON and returns its ID and ETag.
func (s *target) create(t *testing.T, body string) (int64, string) {
	t.Helper()
	res := s.do(t, "POST", "/pets", []byte(body), "Content-Type: application/json", s.auth())
	if res.status != 201 {
		t.Fatalf("POST /pets %s: %s", body, res)
	}
	var p pet
	res.json(t, &p)
	etag := res.header.Get("ETag")
	if etag == "" {
		etag = s.do(t, "GET", path(p.ID), nil).header.Get("ETag")
	}
	if etag == "" {
		t.Fatalf("pet %d has no ETag", p.ID)
	}
	return p.ID, etag
}

func path(id int64) string { return "/pets/" + strconv.FormatInt(id, 10) }

// raw writes text on a new connection and reads every answer until the
// server closes it or stays silent for 3 seconds after the last one
// (generous: the race-enabled service on a busy machine may be slow to
// send a second answer).
func (s *target) raw(t *testing.T, text string) []response {
	t.Helper()
	conn, err := net.Dial("tcp", s.host)
	if err != nil {
		t.Fatal(err)
	}
	answers, err := rawhttp.Exchange(conn, text, rawhttp.Options{Wait: 30 * time.Second, Next: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]response, len(answers))
	for i, a := range answers {
		out[i] = response{a.Status, a.Header, a.Body}
	}
	return out
}

// rawOne is raw for a case that expects exactly one answer.
func (s *target) rawOne(t *testing.T, text string) response {
	t.Helper()
	res := s.raw(t, text)
	if len(res) != 1 {
		t.Fatalf("%q: %d answers, want 1: %v", firstLine(text), len(res), res)
	}
	return res[0]
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\r\n")
	return line
}

// wantStatus fails t unless res has one of the statuses.
func wantStatus(t *testing.T, what string, res response, statuses ...int) {
	t.Helper()
	for _, s := range statuses {
		if res.status == s {
			return
		}
	}
	t.Errorf("%s: %s; want %v", what, res, statuses)
}

// wantProblem fails t unless res is an RFC 9457 problem with one of the
// statuses, whose status member agrees with the status line.
func wantProblem(t *testing.T, what string, res response, statuses ...int) {
	t.Helper()
	wantStatus(t, what, res, statuses...)
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
		t.Errorf("%s: Content-Type %q, want application/problem+json", what, ct)
		return
	}
	var p struct {
		Status int `json:"status"`
	}
	if err := json.Unmarshal(res.body, &p); err != nil || p.Status != res.status {
		t.Errorf("%s: problem body %s does not state the status %d", what, res.body, res.status)
	}
}
