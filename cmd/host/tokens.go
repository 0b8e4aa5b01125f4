package main

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/runtime/policy"
	"github.com/mcp-host/mcp-host/tokenstore"
)

// tokenStoreDir is where tokens live when the keyring is not used: next to
// the global config.
func tokenStoreDir(globalConfig string) string { return filepath.Dir(globalConfig) }

// noticeStore is the token store of the CLI and of host serve. When the
// keyring was unavailable and auto fell back to the file, it calls warn
// once, the first time a token is actually stored there: a command that
// never stores a token (most of them) says nothing about the keyring, and
// a login prompt is never interrupted by it.
type noticeStore struct {
	*tokenstore.Store
	once sync.Once
	warn func(string)
}

// openTokenStore opens the token store named by $MCP_HOST_TOKEN_STORE
// (auto, keyring or file; default auto), probing the keyring once. The
// managed policy's "token_store" overrides the variable.
func openTokenStore(globalConfig string, warn func(string)) (*noticeStore, error) {
	backend, note := policy.DefaultSource().Load().TokenBackend(os.Getenv("MCP_HOST_TOKEN_STORE"))
	if note != "" && warn != nil {
		warn(note)
	}
	s, err := tokenstore.Open(tokenstore.Options{Backend: backend, Dir: tokenStoreDir(globalConfig)})
	if err != nil {
		return nil, err
	}
	return &noticeStore{Store: s, warn: warn}, nil
}

// Save stores rec, and warns once when a token went to the file fallback.
func (s *noticeStore) Save(ctx context.Context, key auth.Key, rec *auth.Record) error {
	err := s.Store.Save(ctx, key, rec)
	if err == nil && rec != nil && rec.Token != nil && s.Store.Warning() != "" && s.warn != nil {
		s.once.Do(func() { s.warn(s.Store.Warning()) })
	}
	return err
}
