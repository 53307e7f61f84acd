package adversarial

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// event is one server-sent event of GET /pets/events.
type event struct {
	seq  int64  // its id: line
	kind string // its event: line
	id   int64  // the pet it is about
	data string
}

// openStream opens GET /pets/events with the header lines given, and
// returns the response (its body open) and a function that closes it.
func (s *target) openStream(t *testing.T, headers ...string) (*http.Response, func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	req, err := http.NewRequestWithContext(ctx, "GET", s.base+"/pets/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Add(k, strings.TrimSpace(v))
	}
	res, err := streamClient.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET /pets/events: %v", err)
	}
	return res, func() { res.Body.Close(); cancel() }
}

// streamClient keeps each stream on a connection of its own.
var streamClient = &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: -1}}

// readUntil reads events from a stream until stop returns true for one (it
// is included), failing t if the stream ends first.
func readUntil(t *testing.T, res *http.Response, stop func(event) bool) []event {
	t.Helper()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []event
	var e event
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id:"):
			e.seq, _ = strconv.ParseInt(strings.TrimSpace(line[3:]), 10, 64)
		case strings.HasPrefix(line, "event:"):
			e.kind = strings.TrimSpace(line[6:])
		case strings.HasPrefix(line, "data:"):
			e.data += strings.TrimSpace(line[5:])
		case line == "" && e.kind != "":
			var d struct {
				ID  int64 `json:"id"`
				Pet struct {
					ID int64 `json:"id"`
				} `json:"pet"`
			}
			json.Unmarshal([]byte(e.data), &d)
			e.id = max(d.ID, d.Pet.ID)
			out = append(out, e)
			if stop(e) {
				return out
			}
			e = event{}
		}
	}
	t.Fatalf("the stream ended before the awaited event (%v); read %d events", sc.Err(), len(out))
	return nil
}

// lastEventID returns the id of an event sent now: a mark that events sent
// later follow. It creates a pet and reads that pet's created event in a
// replay from the log's beginning: a stream without Last-Event-ID starts
// where it subscribes, which is after its headers reach the client, so a
// change made as soon as they arrive may precede it (docs/operations.md).
func (s *target) lastEventID(t *testing.T) string {
	t.Helper()
	id, _ := s.create(t, `{"name":"`+s.name("Mark")+`","species":"fish"}`)
	res, stop := s.openStream(t, "Last-Event-ID: 0")
	defer stop()
	if res.StatusCode != 200 {
		t.Fatalf("GET /pets/events: %d", res.StatusCode)
	}
	evs := readUntil(t, res, func(e event) bool { return e.kind == "created" && e.id == id })
	return strconv.FormatInt(evs[len(evs)-1].seq, 10)
}

// eventsAfter returns every event after the mark, as a reconnecting client
// is replayed them, up to a pet created now.
func (s *target) eventsAfter(t *testing.T, mark string) []event {
	t.Helper()
	id, _ := s.create(t, `{"name":"`+s.name("End")+`","species":"fish"}`)
	res, stop := s.openStream(t, "Last-Event-ID: "+mark)
	defer stop()
	if res.StatusCode != 200 {
		t.Fatalf("GET /pets/events after %s: %d", mark, res.StatusCode)
	}
	return readUntil(t, res, func(e event) bool { return e.kind == "created" && e.id == id })
}

// streams: event streams, their replay and their fairness.
func streams(t *testing.T, s *target) {
	t.Run("a deleted pet's data is not replayable", func(t *testing.T) {
		// Issue 31 row 4: the full body of a deleted pet, owner included,
		// was replayed to anyone sending Last-Event-ID: 0.
		mark := s.lastEventID(t)
		name, owner := s.name("Secret"), s.name("Owner")
		id, _ := s.create(t, `{"name":"`+name+`","species":"cat","owner":"`+owner+`"}`)
		s.do(t, "PATCH", path(id), []byte(`{"tags":["x"]}`), "Content-Type: application/merge-patch+json", s.auth())
		res := s.do(t, "DELETE", path(id), nil, s.auth())
		wantStatus(t, "DELETE", res, 204)
		sawDelete := false
		for _, e := range s.eventsAfter(t, mark) {
			if e.id != id {
				continue
			}
			sawDelete = sawDelete || e.kind == "deleted"
			if strings.Contains(e.data, name) || strings.Contains(e.data, owner) {
				t.Errorf("the replay of event %d (%s) shows the deleted pet's data: %s", e.seq, e.kind, e.data)
			}
		}
		if !sawDelete {
			t.Errorf("no deleted event for pet %d in the replay", id)
		}
		// Nor from the beginning of the log.
		res2, stop := s.openStream(t, "Last-Event-ID: 0")
		defer stop()
		end, _ := s.create(t, `{"name":"`+s.name("End")+`","species":"fish"}`)
		for _, e := range readUntil(t, res2, func(e event) bool { return e.kind == "created" && e.id == end }) {
			if strings.Contains(e.data, owner) {
				t.Errorf("Last-Event-ID: 0 replays the deleted pet's owner in event %d", e.seq)
			}
		}
	})

	t.Run("one client cannot hold every stream", func(t *testing.T) {
		// Row 11: one client could hold all 1,024 event-stream slots. The
		// service believes X-Forwarded-For from loopback, so the suite
		// speaks as two clients.
		var closers []func()
		defer func() {
			for _, c := range closers {
				c()
			}
		}()
		refused := 0
		for i := range 200 {
			res, stop := s.openStream(t, "X-Forwarded-For: 203.0.113.7")
			closers = append(closers, stop)
			if res.StatusCode == 200 {
				continue
			}
			if res.StatusCode != 429 && res.StatusCode != 503 {
				t.Fatalf("stream %d of one client: %d, want 200 until a 429 or 503", i+1, res.StatusCode)
			}
			if res.Header.Get("Retry-After") == "" {
				t.Errorf("stream %d refused without Retry-After", i+1)
			}
			refused = i + 1
			break
		}
		if refused == 0 {
			t.Fatal("one client opened 200 streams; want a per-client cap well below the service's 1,024")
		}
		t.Logf("the %dth stream of one client was refused", refused)
		res, stop := s.openStream(t, "X-Forwarded-For: 203.0.113.8")
		closers = append(closers, stop)
		if res.StatusCode != 200 {
			t.Errorf("another client's stream while the first holds its cap: %d", res.StatusCode)
		}
	})

	t.Run("a reconnect far ahead is reset, not trusted", func(t *testing.T) {
		res, stop := s.openStream(t, "Last-Event-ID: 999999999999999999")
		defer stop()
		if res.StatusCode != 200 {
			t.Fatalf("Last-Event-ID far ahead: %d", res.StatusCode)
		}
		evs := readUntil(t, res, func(e event) bool { return true })
		if evs[0].kind != "reset" {
			t.Errorf("first event %s, want reset", evs[0].kind)
		}
	})

	t.Run("streams are GET only", func(t *testing.T) {
		for _, m := range []string{"POST", "PUT", "DELETE"} {
			res := s.do(t, m, "/pets/events", nil, s.auth())
			wantStatus(t, m+" /pets/events", res, 405)
			if a := res.header.Get("Allow"); !strings.Contains(a, "GET") || strings.Contains(a, m) {
				t.Errorf("%s /pets/events: Allow %q", m, a)
			}
		}
	})
}
