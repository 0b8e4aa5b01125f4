package auth

import (
	"context"
	"sync"
)

// MemoryStore is a [Store] that keeps records in memory, for tests and for
// servers whose credentials should not outlive the process.
type MemoryStore struct {
	mu   sync.Mutex
	recs map[Key]*Record
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{recs: map[Key]*Record{}} }

// Load returns a copy of the record for key, or nil.
func (s *MemoryStore) Load(_ context.Context, key Key) (*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recs[key].clone(), nil
}

// Save stores a copy of rec.
func (s *MemoryStore) Save(_ context.Context, key Key, rec *Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs[key] = rec.clone()
	return nil
}

// Delete removes the record for key.
func (s *MemoryStore) Delete(_ context.Context, key Key) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.recs, key)
	return nil
}
