package guide_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/problem"
)

// BookRoom says its rules in tags: they are checked before the handler
// runs, every broken one listed in one 422, and the document says them
// too (minimum, maxLength, pattern, enum, format …).
type BookRoom struct {
	Room string `path:"room" pattern:"^[a-z]+-[0-9]{3}$" doc:"A room, such as oak-101."`
	Body struct {
		Guest  string    `json:"guest" minLength:"1" maxLength:"80"`
		Email  string    `json:"email" format:"email"`
		People int       `json:"people" minimum:"1" maximum:"12"`
		Kind   string    `json:"kind" enum:"meeting,interview,workshop" default:"meeting"`
		From   time.Time `json:"from"`
		To     time.Time `json:"to"`
		Note   string    `json:"note,omitempty" maxLength:"500"`
	}
}

// Resolve holds the rules the tags cannot say: one field against another.
// Its failures are answered as the tags' are, and the handler does not run.
func (in *BookRoom) Resolve(ctx context.Context, req *http.Request) []problem.FieldError {
	if !in.Body.To.After(in.Body.From) {
		return []problem.FieldError{{Location: "body.to", Message: "must be after from", Value: in.Body.To}}
	}
	return nil
}

type Booking struct {
	Room  string `json:"room"`
	Guest string `json:"guest"`
}

var errTaken = errors.New("rooms: taken")

func book(ctx context.Context, in *BookRoom) (*Booking, error) {
	if in.Room == "oak-101" {
		// A StatusError chooses the status, and its message is shown.
		return nil, vane.Conflict("the room is taken at that time")
	}
	if in.Room == "elm-404" {
		// Any other error is a 500 that says nothing of it; the error
		// is logged with the request's context.
		return nil, errTaken
	}
	return &Booking{Room: in.Room, Guest: in.Body.Guest}, nil
}

func newRooms() *vane.Router {
	// ErrorHook sees every problem an operation answers, before it is
	// written: here, each gets a type URI of the service's own.
	r := vane.New(vane.ErrorHook(func(req *http.Request, p *problem.Details) *problem.Details {
		if p.Status == http.StatusConflict {
			p.Type = "https://rooms.example/problems/taken"
		}
		return p
	}))
	vane.Post(r, "/rooms/{room}/bookings", book, vane.ID("bookRoom"), vane.Status(http.StatusCreated),
		vane.Problems(vane.ProblemType{Status: http.StatusConflict, Type: "https://rooms.example/problems/taken",
			Description: "The room is booked at that time."}))
	return r
}

func TestValidation(t *testing.T) {
	r := newRooms()
	post := func(room, body string) (int, map[string]any) {
		w := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/rooms/"+room+"/bookings", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		r.ServeHTTP(w, req)
		var m map[string]any
		json.Unmarshal(w.Body.Bytes(), &m)
		return w.Code, m
	}
	good := `{"guest":"Ada","email":"ada@example.com","people":3,"from":"2026-12-01T09:00:00Z","to":"2026-12-01T10:00:00Z"}`
	if code, _ := post("pine-201", good); code != 201 {
		t.Errorf("a good booking: %d", code)
	}
	code, p := post("Pine", `{"guest":"","email":"no","people":20,"kind":"party","from":"2026-12-01T09:00:00Z","to":"2026-12-01T10:00:00Z"}`)
	if errs, _ := p["errors"].([]any); code != 422 || len(errs) != 5 {
		t.Errorf("five broken rules: %d %v", code, p)
	}
	code, p = post("pine-201", strings.Replace(good, "10:00", "08:00", 1))
	if code != 422 || !strings.Contains(p["errors"].([]any)[0].(map[string]any)["location"].(string), "body.to") {
		t.Errorf("to before from: %d %v", code, p)
	}
	if code, p = post("oak-101", good); code != 409 || p["type"] != "https://rooms.example/problems/taken" {
		t.Errorf("taken: %d %v", code, p)
	}
	if code, p = post("elm-404", good); code != 500 || strings.Contains(p["detail"].(string), "rooms:") {
		t.Errorf("an internal error: %d %v", code, p)
	}
}
