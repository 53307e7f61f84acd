package main

import (
	"context"
	"strconv"
	"sync"

	"github.com/vane-http/vane"
)

// The events of GET /pets/events, one Go type each: the stream's document
// names them created, updated and deleted, with these schemas.

// PetCreated is sent when a pet is added.
type PetCreated struct {
	Pet Pet `json:"pet"`
}

// PetUpdated is sent when a pet is changed (PUT or PATCH).
type PetUpdated struct {
	Pet Pet `json:"pet"`
}

// PetDeleted is sent when a pet is removed.
type PetDeleted struct {
	ID int64 `json:"id"`
}

// EventsInput is the input of GET /pets/events.
type EventsInput struct {
	LastEventID string `header:"Last-Event-ID" doc:"The id of the last event received, sent by a reconnecting client; events are not replayed, so it only tells the server where the client was."`
}

// broker hands each change to every open stream of this replica. A slow
// client's events are dropped rather than held up: its buffer holds 64.
// (With several replicas, a client sees the changes made through the
// replica it is connected to; a service that needs all of them puts the
// events in the database, such as PostgreSQL's LISTEN/NOTIFY.)
type broker struct {
	mu   sync.Mutex
	subs map[chan event]struct{}
	seq  int64
}

type event struct {
	id   string
	data any
}

func newBroker() *broker { return &broker{subs: map[chan event]struct{}{}} }

func (b *broker) publish(data any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	e := event{id: strconv.FormatInt(b.seq, 10), data: data}
	for c := range b.subs {
		select {
		case c <- e:
		default: // a client that does not keep up loses the event
		}
	}
}

func (b *broker) subscribe() (chan event, func()) {
	c := make(chan event, 64)
	b.mu.Lock()
	b.subs[c] = struct{}{}
	b.mu.Unlock()
	return c, func() {
		b.mu.Lock()
		delete(b.subs, c)
		b.mu.Unlock()
	}
}

// serve is the handler of GET /pets/events: the changes, as they happen,
// until the client leaves or the server shuts down.
func (b *broker) serve(ctx context.Context, in *EventsInput, send vane.Sender) error {
	c, unsubscribe := b.subscribe()
	defer unsubscribe()
	for {
		select {
		case <-ctx.Done():
			return nil
		case e := <-c:
			if err := send(vane.Event{ID: e.id, Data: e.data}); err != nil {
				return err
			}
		}
	}
}
