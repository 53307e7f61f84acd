package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/vane-http/vane"
)

// The events of GET /pets/events, one Go type each: the stream's document
// names them created, updated, deleted and reset, with these schemas.

// PetCreated is sent when a pet is added.
type PetCreated struct {
	Pet Pet `json:"pet"`
}

// PetUpdated is sent when a pet is changed (PUT, PATCH, a photo).
type PetUpdated struct {
	Pet Pet `json:"pet"`
}

// PetDeleted is sent when a pet is removed.
type PetDeleted struct {
	ID int64 `json:"id"`
}

// PetRedacted stands, in the history a reconnecting client is replayed,
// for a created or updated event of a pet deleted since: a deleted pet's
// data is kept neither in the pets nor in the events. The pet's deleted
// event follows it.
type PetRedacted struct {
	ID int64 `json:"id"`
}

// EventsReset is sent first to a client whose Last-Event-ID is older than
// the events the service keeps, or names no event the database ever had:
// it has missed changes, and should read the pets again.
type EventsReset struct {
	Reason string `json:"reason" example:"events before 1234 are no longer kept"`
}

// eventTypes are the stream's events by name, as its document lists them.
var eventTypes = map[string]any{"created": PetCreated{}, "updated": PetUpdated{}, "deleted": PetDeleted{},
	"redacted": PetRedacted{}, "reset": EventsReset{}}

// EventsInput is the input of GET /pets/events.
type EventsInput struct {
	LastEventID string `header:"Last-Event-ID" pattern:"^[0-9]{1,18}$" doc:"The id of the last event received, sent by a reconnecting client: the events after it are sent first, in order, then the new ones. Events are kept for 24 hours, at most the newest 10,000; a client further behind gets a reset event first."`
}

// Event retention: what the service keeps for reconnecting clients.
const (
	eventsKept   = 10_000
	eventsMaxAge = 24 * time.Hour
)

// storedEvent is a row of pet_events.
type storedEvent struct {
	ID      int64
	Kind    string
	Payload []byte
}

// addEvent writes the event of a change in the change's transaction. On
// PostgreSQL it first takes a transaction-scoped advisory lock, held to
// the commit, so that event IDs are assigned in commit order (a reader
// that has seen event N has seen all before it), and asks for a
// notification, which PostgreSQL delivers to every listening replica when
// the transaction commits.
func (s *Store) addEvent(ctx context.Context, tx *sql.Tx, kind string, petID int64, data any) error {
	payload, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if s.d.name == "postgres" {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", eventsLock); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, "INSERT INTO pet_events (kind, pet_id, payload, created_at) VALUES ($1, $2, $3, $4)",
		kind, petID, string(payload), s.now().UTC())
	if err == nil && s.d.name == "postgres" {
		_, err = tx.ExecContext(ctx, "SELECT pg_notify($1, '')", eventsChannel)
	}
	return err
}

// redactEvents replaces, with tx, the created and updated events of the
// pet petID, which tx deletes, by redacted events that hold its ID only:
// what the pet was (its name, its owner) leaves the replayable history in
// the transaction that deletes it. The events keep their IDs and order.
func redactEvents(ctx context.Context, tx *sql.Tx, petID int64) error {
	payload, err := json.Marshal(PetRedacted{ID: petID})
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, "UPDATE pet_events SET kind = 'redacted', payload = $1 WHERE pet_id = $2 AND kind IN ('created', 'updated')",
		string(payload), petID)
	return err
}

// The PostgreSQL advisory lock that orders event IDs, and the channel of
// the notifications.
const (
	eventsLock    = 0x70657473 // "pets"
	eventsChannel = "pet_events"
)

// EventsAfter returns up to limit events with IDs above after, in order.
func (s *Store) EventsAfter(ctx context.Context, after int64, limit int) ([]storedEvent, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT id, kind, payload FROM pet_events WHERE id > $1 ORDER BY id LIMIT $2", after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []storedEvent
	for rows.Next() {
		var e storedEvent
		var payload string
		if err := rows.Scan(&e.ID, &e.Kind, &payload); err != nil {
			return nil, err
		}
		e.Payload = []byte(payload)
		out = append(out, e)
	}
	return out, rows.Err()
}

// LastEventID returns the ID of the newest event, 0 for none.
func (s *Store) LastEventID(ctx context.Context) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, "SELECT COALESCE(MAX(id), 0) FROM pet_events").Scan(&id)
	return id, err
}

// PrunedThrough returns the highest event ID that retention deleted: a
// client whose last event is below it has missed events.
func (s *Store) PrunedThrough(ctx context.Context) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, "SELECT through FROM pet_events_pruned WHERE one = 1").Scan(&id)
	return id, err
}

// PruneEvents deletes the events beyond retention: all but the newest
// keep, and those older than maxAge.
func (s *Store) PruneEvents(ctx context.Context, keep int64, maxAge time.Duration) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		var last int64
		if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(id), 0) FROM pet_events").Scan(&last); err != nil {
			return err
		}
		var old sql.NullInt64
		err := tx.QueryRowContext(ctx, "SELECT MAX(id) FROM pet_events WHERE created_at < $1", s.now().UTC().Add(-maxAge)).Scan(&old)
		if err != nil {
			return err
		}
		through := max(last-keep, old.Int64)
		if through <= 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM pet_events WHERE id <= $1", through); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "UPDATE pet_events_pruned SET through = $1 WHERE one = 1 AND through < $1", through)
		return err
	})
}

// feed reads new events from the database and hands each to every open
// stream of this process. It reads when poked (a commit of this process,
// a PostgreSQL notification from any replica) and every pollEvery besides,
// so that a lost notification delays an event by at most that. A
// subscriber whose buffer is full is dropped (its stream ends, and its
// client reconnects with Last-Event-ID and is replayed what it missed)
// rather than holding up the others or losing events silently.
type feed struct {
	store  *Store
	listen string // a PostgreSQL URL to LISTEN on; "" for none (SQLite)
	logger *slog.Logger
	// listenFn, when not nil, replaces listenOnce in listenLoop.
	listenFn func(ctx context.Context) (listened bool, err error)

	wake   chan struct{}
	cancel context.CancelFunc
	done   sync.WaitGroup

	size int // of each subscriber's buffer: subscriberSize

	mu   sync.Mutex
	last int64 // the newest event handed out
	subs map[*subscriber]struct{}
}

// subscriber is one stream's share of the feed.
type subscriber struct {
	c chan storedEvent // closed when the subscriber is dropped
}

const (
	subscriberSize = 256
	readBatch      = 500
)

// pollEvery is how often the feed reads without being poked. A variable
// so that a test can make notifications the only way an event arrives in
// time.
var pollEvery = time.Second

// startFeed starts the feed of s from its newest event on.
func startFeed(s *Store, listenURL string, logger *slog.Logger) (*feed, error) {
	last, err := s.LastEventID(context.Background())
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &feed{store: s, listen: listenURL, logger: logger, wake: make(chan struct{}, 1), cancel: cancel,
		size: subscriberSize, last: last, subs: map[*subscriber]struct{}{}}
	f.done.Add(1)
	go f.run(ctx)
	if listenURL != "" {
		f.done.Add(1)
		go f.listenLoop(ctx)
	}
	return f, nil
}

func (f *feed) stop() {
	f.cancel()
	f.done.Wait()
}

// poke makes the feed read new events now.
func (f *feed) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// subscribe registers a subscriber and returns it with the ID of the
// newest event handed out before it: it receives every event after that.
func (f *feed) subscribe() (*subscriber, int64, func()) {
	sub := &subscriber{c: make(chan storedEvent, f.size)}
	f.mu.Lock()
	f.subs[sub] = struct{}{}
	last := f.last
	f.mu.Unlock()
	return sub, last, func() {
		f.mu.Lock()
		if _, ok := f.subs[sub]; ok {
			delete(f.subs, sub)
			close(sub.c)
		}
		f.mu.Unlock()
	}
}

func (f *feed) run(ctx context.Context) {
	defer f.done.Done()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	prune := time.NewTicker(time.Minute)
	defer prune.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.wake:
		case <-tick.C:
		case <-prune.C:
			if err := f.store.PruneEvents(ctx, eventsKept, eventsMaxAge); err != nil && ctx.Err() == nil {
				f.logger.Warn("pruning events", "error", err)
			}
			continue
		}
		if err := f.read(ctx); err != nil && ctx.Err() == nil {
			f.logger.Warn("reading events", "error", err) // the next tick tries again
		}
	}
}

// read hands out the events after the newest handed out.
func (f *feed) read(ctx context.Context) error {
	for {
		f.mu.Lock()
		after := f.last
		f.mu.Unlock()
		events, err := f.store.EventsAfter(ctx, after, readBatch)
		if err != nil || len(events) == 0 {
			return err
		}
		f.mu.Lock()
		for _, e := range events {
			for sub := range f.subs {
				select {
				case sub.c <- e:
				default: // a subscriber that does not keep up is dropped
					delete(f.subs, sub)
					close(sub.c)
				}
			}
			f.last = e.ID
		}
		f.mu.Unlock()
		if len(events) < readBatch {
			return nil
		}
	}
}

// listenLoop keeps a connection that LISTENs for the notifications of
// every replica's commits, and pokes the feed for each. It reconnects
// whenever the connection fails, after a wait that doubles with each
// attempt that fails (listenRetryMin to listenRetryMax) and starts again
// from listenRetryMin once a connection has listened: a database that
// restarts is listened to again within listenRetryMin of its return,
// however often it failed before.
func (f *feed) listenLoop(ctx context.Context) {
	defer f.done.Done()
	listen := f.listenOnce
	if f.listenFn != nil {
		listen = f.listenFn
	}
	backoff := listenRetryMin
	for ctx.Err() == nil {
		listened, err := listen(ctx)
		if ctx.Err() != nil {
			return
		}
		if listened {
			backoff = listenRetryMin
		}
		f.logger.Warn("listening for events; reconnecting", "error", err, "in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, listenRetryMax)
	}
}

// The waits of listenLoop between its attempts to listen.
const (
	listenRetryMin = 100 * time.Millisecond
	listenRetryMax = 5 * time.Second
)

// listenOnce connects to f.listen and LISTENs there, poking the feed for
// each notification, until the connection fails or ctx ends. listened
// reports whether it got as far as listening.
func (f *feed) listenOnce(ctx context.Context) (listened bool, err error) {
	conn, err := pgx.Connect(ctx, f.listen)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+eventsChannel); err != nil {
		return false, err
	}
	f.poke() // what was committed while the connection was down
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return true, err
		}
		f.poke()
	}
}

// serveEvents is the handler of GET /pets/events: the events after the
// client's Last-Event-ID from the table, then the new ones as they are
// committed, on any replica, until the client leaves, falls behind or the
// server shuts down.
func (a *api) serveEvents(ctx context.Context, in *EventsInput, send vane.Sender) error {
	sub, last, unsubscribe := a.store.feed.subscribe()
	defer unsubscribe()
	if in.LastEventID != "" {
		after, _ := strconv.ParseInt(in.LastEventID, 10, 64) // the pattern allows digits only
		newest, err := a.store.LastEventID(ctx)
		if err != nil {
			return err
		}
		if after > newest {
			// Not an event of this database: the client cannot know what
			// it missed.
			reset := EventsReset{Reason: fmt.Sprintf("event %d is unknown; read the pets again", after)}
			if err := send(vane.Event{Data: reset}); err != nil {
				return err
			}
			after = newest
		}
		if err := a.replay(ctx, after, last, send); err != nil {
			return err
		}
		// A client that has seen events this replica's feed has not read
		// yet (through another replica) is not sent them twice.
		last = max(last, after)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-sub.c:
			if !ok {
				return nil // dropped for falling behind: the client reconnects and is replayed
			}
			if e.ID <= last {
				continue
			}
			if err := sendStored(send, e); err != nil {
				return err
			}
		}
	}
}

// replay sends the events after after, up to through, in order: first a
// reset event if retention deleted some of them.
func (a *api) replay(ctx context.Context, after, through int64, send vane.Sender) error {
	pruned, err := a.store.PrunedThrough(ctx)
	if err != nil {
		return err
	}
	if after < pruned {
		reset := EventsReset{Reason: fmt.Sprintf("events up to %d are no longer kept; read the pets again", pruned)}
		if err := send(vane.Event{Data: reset}); err != nil {
			return err
		}
	}
	for after < through {
		events, err := a.store.EventsAfter(ctx, after, readBatch)
		if err != nil {
			return err
		}
		if len(events) == 0 {
			return nil
		}
		for _, e := range events {
			if e.ID > through {
				return nil
			}
			if err := sendStored(send, e); err != nil {
				return err
			}
			after = e.ID
		}
	}
	return nil
}

// sendStored sends a stored event as its typed data, with its ID.
func sendStored(send vane.Sender, e storedEvent) error {
	decode, ok := eventDecoders[e.Kind]
	if !ok {
		return fmt.Errorf("event %d has an unknown kind %q", e.ID, e.Kind)
	}
	data, err := decode(e.Payload)
	if err != nil {
		return fmt.Errorf("event %d: %w", e.ID, err)
	}
	return send(vane.Event{ID: strconv.FormatInt(e.ID, 10), Data: data})
}

// eventDecoders turn a stored payload into the event's typed data, by kind.
var eventDecoders = map[string]func([]byte) (any, error){
	"created":  decodeAs[PetCreated],
	"updated":  decodeAs[PetUpdated],
	"deleted":  decodeAs[PetDeleted],
	"redacted": decodeAs[PetRedacted],
}

func decodeAs[T any](payload []byte) (any, error) {
	var v T
	err := json.Unmarshal(payload, &v)
	return v, err
}
