package permission

import (
	"crypto/sha256"
	"encoding/hex"
)

// An Identity is who a server id stands for: the same id in a cloned
// project's config may name another command or URL than the server the
// user once allowed, and must not inherit that answer.
type Identity struct {
	// Key fingerprints the definition that decides where calls go (see
	// [IdentityKey]); "" keys answers by the server id alone.
	Key string
	// Vouched reports that the user's own configuration (the global file,
	// MCP_HOST_SERVERS or command-line flags) defines the server, rather
	// than a project file. Allow rules and "trust" apply only to vouched
	// servers; deny rules apply to all.
	Vouched bool
}

// IdentityKey fingerprints a server's target: the first 16 hex digits of
// the sha256 of its URL, or of its command and arguments, the way token
// records are keyed.
func IdentityKey(url, command string, args []string) string {
	h := sha256.New()
	if url != "" {
		h.Write([]byte("url\x00" + url))
	} else {
		h.Write([]byte("cmd\x00" + command))
		for _, a := range args {
			h.Write([]byte("\x00" + a))
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// identity asks Options.Identity, defaulting to the bare id, vouched for.
func (g *Gate) identity(server string) Identity {
	if g.opts.Identity == nil {
		return Identity{Vouched: true}
	}
	return g.opts.Identity(server)
}

// storeKey is the key of the server's remembered answers: "<id>|<key>",
// or the bare id when the identity has no key. Server ids cannot contain
// "|", so the two never collide.
func (id Identity) storeKey(server string) string {
	if id.Key == "" {
		return server
	}
	return server + "|" + id.Key
}
