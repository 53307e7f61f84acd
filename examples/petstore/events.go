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

// PetUpdated is sent when a pet is changed (PUT, PATCH or a photo upload).
type PetUpdated struct {
	Pet Pet `json:"pet"`
}

// PetDeleted is sent when a pet is removed.
type PetDeleted struct {
	ID int64 `json:"id"`
}

// StreamReset is sent first, before any other event, to a client whose
// Last-Event-ID names an event the server no longer has (deleted by
// retention) or never had: the events in between cannot be replayed, so
// the client must read the pets again (GET /pets) rather than rely on the
// stream for what it missed. The events after Oldest follow.
type StreamReset struct {
	Reason string `json:"reason" enum:"expired,unknown" doc:"expired: the events after Last-Event-ID were deleted by retention; unknown: no event ever had that id."`
	Oldest int64  `json:"oldest" doc:"The id of the last event that can no longer be replayed; the stream resumes after it."`
}

// EventsInput is the input of GET /pets/events.
type EventsInput struct {
	LastEventID string `header:"Last-Event-ID" doc:"The id of the last event received, sent by a reconnecting client: the events after it are sent first, in order, then the new ones, with no gap and none twice. Events are kept 24 hours; a client further behind first gets a reset event."`
}

// Event retention: events older than this are deleted, checked every
// pruneEvery by each replica.
const (
	eventRetention = 24 * time.Hour
	pruneEvery     = time.Minute
)

// A stream's buffer of live events: a client that falls this far behind is
// disconnected (it reconnects with Last-Event-ID and replays) rather than
// silently skipping events.
const streamBuffer = 256

// storedEvent is a row of the events table, its payload decoded.
type storedEvent struct {
	id   int64
	data any
}

// eventTypes maps an event's kind, as stored, to its Go type.
var eventTypes = map[string]func([]byte) (any, error){
	"created": decodeEvent[PetCreated],
	"updated": decodeEvent[PetUpdated],
	"deleted": decodeEvent[PetDeleted],
}

func decodeEvent[T any](b []byte) (any, error) {
	var v T
	err := json.Unmarshal(b, &v)
	return v, err
}

// addEvent inserts an event in tx, the transaction of the change it
// reports. On PostgreSQL it first locks the events table (against other
// writers only; readers go on) until the commit, so that events commit in
// the order of their ids and a reader that has seen id N will never see a
// lower id appear later; and pg_notify, delivered at the commit, wakes the
// replicas' listeners.
func (s *Store) addEvent(ctx context.Context, tx *sql.Tx, kind string, data any, now time.Time) error {
	payload, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if s.d.name == postgres.name {
		if _, err := tx.ExecContext(ctx, "LOCK TABLE events IN SHARE ROW EXCLUSIVE MODE"); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO events (kind, payload, created_at) VALUES ($1, $2, $3)",
		kind, string(payload), now); err != nil {
		return err
	}
	if s.d.name == postgres.name {
		if _, err := tx.ExecContext(ctx, "SELECT pg_notify('"+notifyChannel+"', '')"); err != nil {
			return err
		}
	}
	return nil
}

// notifyChannel is the PostgreSQL channel that carries a notification, with
// no payload, for each committed change.
const notifyChannel = "pet_events"

// eventsAfter returns the events with an id above after, and at most through
// (when through > 0), in id order, at most limit of them.
func (s *Store) eventsAfter(ctx context.Context, after, through int64, limit int) ([]storedEvent, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, kind, payload FROM events
		WHERE id > $1 AND ($2 = 0 OR id <= $2) ORDER BY id LIMIT $3`, after, through, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []storedEvent
	for rows.Next() {
		var id int64
		var kind, payload string
		if err := rows.Scan(&id, &kind, &payload); err != nil {
			return nil, err
		}
		decode, ok := eventTypes[kind]
		if !ok {
			return nil, fmt.Errorf("event %d: unknown kind %q", id, kind)
		}
		v, err := decode([]byte(payload))
		if err != nil {
			return nil, fmt.Errorf("event %d: %w", id, err)
		}
		out = append(out, storedEvent{id: id, data: v})
	}
	return out, rows.Err()
}

// eventBounds returns the highest event id there is (0 if none ever was)
// and the highest that retention has deleted.
func (s *Store) eventBounds(ctx context.Context) (newest, pruned int64, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT
		(SELECT through FROM events_pruned WHERE one = 1),
		COALESCE((SELECT MAX(id) FROM events), 0)`).Scan(&pruned, &newest)
	return max(newest, pruned), pruned, err
}

// PruneEvents deletes the events created before cutoff and returns how
// many it deleted.
func (s *Store) PruneEvents(ctx context.Context, cutoff time.Time) (int64, error) {
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var through sql.NullInt64
		if err := tx.QueryRowContext(ctx, "SELECT MAX(id) FROM events WHERE created_at < $1",
			cutoff.UTC().Truncate(time.Second)).Scan(&through); err != nil || !through.Valid {
			return err
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM events WHERE id <= $1", through.Int64)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "UPDATE events_pruned SET through = $1 WHERE one = 1 AND through < $1", through.Int64)
		return err
	})
	return n, err
}

// hub hands the events table's new rows to this process's streams, in id
// order. It reads them by id (WHERE id > the last it read) when woken: by
// a commit in this process, by a PostgreSQL notification (a listener on
// one connection of its own), or by a poll every second, so a missed
// notification delays an event by a second at most and loses nothing.
type hub struct {
	s      *Store
	logger *slog.Logger
	wakeC  chan struct{}
	cancel context.CancelFunc
	done   sync.WaitGroup

	mu   sync.Mutex
	last int64 // the id of the last event handed to the subscribers
	subs map[*subscriber]struct{}
}

// subscriber is one stream's place in the hub. Its channel is closed when
// it falls more than streamBuffer events behind.
type subscriber struct {
	c chan storedEvent
}

// startHub starts the hub of s: from the newest event on, plus, on
// PostgreSQL, a listener on the database at url.
func startHub(s *Store, url string, logger *slog.Logger) error {
	ctx, cancel := context.WithCancel(context.Background())
	h := &hub{s: s, logger: logger, wakeC: make(chan struct{}, 1), cancel: cancel, subs: map[*subscriber]struct{}{}}
	newest, _, err := s.eventBounds(ctx)
	if err != nil {
		cancel()
		return err
	}
	h.last = newest
	s.hub = h
	h.done.Add(1)
	go h.run(ctx)
	if url != "" {
		h.done.Add(1)
		go h.listen(ctx, url)
	}
	return nil
}

// wake makes the hub read new events soon. It never blocks.
func (h *hub) wake() {
	if h == nil {
		return
	}
	select {
	case h.wakeC <- struct{}{}:
	default:
	}
}

// stop ends the hub's goroutines and closes its streams.
func (h *hub) stop() {
	if h == nil {
		return
	}
	h.cancel()
	h.done.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs {
		close(sub.c)
		delete(h.subs, sub)
	}
}

func (h *hub) run(ctx context.Context) {
	defer h.done.Done()
	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	prune := time.NewTicker(pruneEvery)
	defer prune.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.wakeC:
		case <-poll.C:
		case <-prune.C:
			if _, err := h.s.PruneEvents(ctx, h.s.now().Add(-eventRetention)); err != nil && ctx.Err() == nil {
				h.logger.Warn("pruning events", slog.Any("error", err))
			}
			continue
		}
		if err := h.fetch(ctx); err != nil && ctx.Err() == nil {
			h.logger.Warn("reading events", slog.Any("error", err))
		}
	}
}

// fetch reads the events after the last one delivered and hands them to
// the subscribers.
func (h *hub) fetch(ctx context.Context) error {
	for {
		h.mu.Lock()
		last := h.last
		h.mu.Unlock()
		evs, err := h.s.eventsAfter(ctx, last, 0, 500)
		if err != nil || len(evs) == 0 {
			return err
		}
		h.mu.Lock()
		for _, e := range evs {
			for sub := range h.subs {
				select {
				case sub.c <- e:
				default: // too far behind: its stream ends, and the client replays
					close(sub.c)
					delete(h.subs, sub)
				}
			}
		}
		h.last = evs[len(evs)-1].id
		h.mu.Unlock()
		if len(evs) < 500 {
			return nil
		}
	}
}

// subscribe adds a subscriber; it receives every event after the returned
// id.
func (h *hub) subscribe() (*subscriber, int64, func()) {
	sub := &subscriber{c: make(chan storedEvent, streamBuffer)}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.subs[sub] = struct{}{}
	return sub, h.last, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := h.subs[sub]; ok {
			delete(h.subs, sub)
			close(sub.c)
		}
	}
}

// listen holds one connection to PostgreSQL that LISTENs on
// notifyChannel and wakes the hub at each notification, reconnecting with
// backoff (0.1 s doubling to 5 s) while the connection fails.
func (h *hub) listen(ctx context.Context, url string) {
	defer h.done.Done()
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := h.listenOnce(ctx, url, func() { backoff = 100 * time.Millisecond })
		if ctx.Err() != nil {
			return
		}
		h.logger.Warn("event listener disconnected; reconnecting", slog.Any("error", err), slog.Duration("in", backoff))
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func (h *hub) listenOnce(ctx context.Context, url string, connected func()) error {
	connCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	conn, err := pgx.Connect(connCtx, url)
	cancel()
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return err
	}
	connected()
	h.wake() // what was committed while no one listened
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		h.wake()
	}
}

// serveEvents is the handler of GET /pets/events: the changes, from every
// replica, as they commit, until the client leaves or the server shuts
// down; after Last-Event-ID's event first, replayed from the events table.
func (s *Store) serveEvents(ctx context.Context, in *EventsInput, send vane.Sender) error {
	sub, live, unsubscribe := s.hub.subscribe()
	defer unsubscribe()
	// The subscriber gets every event after live; the replay sends those
	// after the client's last, up to live; so none is missed or sent twice.
	sent := live
	if in.LastEventID != "" {
		last, err := strconv.ParseInt(in.LastEventID, 10, 64)
		if err != nil || last < 0 {
			last = -1
		}
		newest, pruned, err := s.eventBounds(ctx)
		if err != nil {
			return dbError(err)
		}
		switch {
		case last < 0 || last > newest:
			if err := send(vane.Event{Data: StreamReset{Reason: "unknown", Oldest: newest}}); err != nil {
				return err
			}
			last = newest
		case last < pruned:
			if err := send(vane.Event{Data: StreamReset{Reason: "expired", Oldest: pruned}}); err != nil {
				return err
			}
			last = pruned
		}
		for last < live {
			evs, err := s.eventsAfter(ctx, last, live, 500)
			if err != nil {
				return dbError(err)
			}
			if len(evs) == 0 {
				break
			}
			for _, e := range evs {
				if err := send(vane.Event{ID: strconv.FormatInt(e.id, 10), Data: e.data}); err != nil {
					return err
				}
			}
			last = evs[len(evs)-1].id
		}
		// A client that has seen events this replica has not yet read
		// (through another replica) skips them.
		sent = max(live, last)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-sub.c:
			if !ok {
				return nil // fell behind, or the store closed: the client reconnects
			}
			if e.id <= sent {
				continue
			}
			if err := send(vane.Event{ID: strconv.FormatInt(e.id, 10), Data: e.data}); err != nil {
				return err
			}
			sent = e.id
		}
	}
}
