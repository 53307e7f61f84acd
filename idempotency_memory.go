package vane

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"
)

// MemoryIdempotencyStore is an IdempotencyStore in the process's memory,
// for tests and for a service of one process whose writes have no
// transaction to record outcomes in (vane saves them after the handler,
// see IdempotencyStore). Its records are lost when the process ends, and
// its memory grows with the keyed requests of one retention period.
type MemoryIdempotencyStore struct {
	mu      sync.Mutex
	records map[string]*IdempotencyRecord
	order   []*IdempotencyRecord // by Save, for expiry
}

// NewMemoryIdempotencyStore returns an empty store.
func NewMemoryIdempotencyStore() *MemoryIdempotencyStore {
	return &MemoryIdempotencyStore{records: map[string]*IdempotencyRecord{}}
}

// Lookup returns a copy of the record kept under key, unless it expired.
func (m *MemoryIdempotencyStore) Lookup(_ context.Context, key string, now time.Time) (*IdempotencyRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec := m.records[key]
	if rec == nil || !rec.Expires.After(now) {
		return nil, nil
	}
	return cloneRecord(rec), nil
}

// Save keeps a copy of rec, unless a record under its key has not
// expired (ErrIdempotencyKeyInUse). Records that expired before
// rec.Created are forgotten, the oldest first.
func (m *MemoryIdempotencyStore) Save(_ context.Context, rec *IdempotencyRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for len(m.order) > 0 && !m.order[0].Expires.After(rec.Created) {
		if old := m.order[0]; m.records[old.Key] == old {
			delete(m.records, old.Key)
		}
		m.order[0] = nil
		m.order = m.order[1:]
	}
	if old := m.records[rec.Key]; old != nil && old.Expires.After(rec.Created) {
		return ErrIdempotencyKeyInUse
	}
	c := cloneRecord(rec)
	m.records[rec.Key] = c
	m.order = append(m.order, c)
	return nil
}

// Len returns how many records the store keeps, expired ones not yet
// forgotten included.
func (m *MemoryIdempotencyStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.records)
}

func cloneRecord(r *IdempotencyRecord) *IdempotencyRecord {
	c := *r
	c.Header = r.Header.Clone()
	c.Body = slices.Clone(r.Body)
	if c.Header == nil {
		c.Header = http.Header{}
	}
	maps.DeleteFunc(c.Header, func(k string, _ []string) bool { return unrecorded[http.CanonicalHeaderKey(k)] })
	return &c
}
