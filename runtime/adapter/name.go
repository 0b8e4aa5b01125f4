// Package adapter turns MCP tools into core tools. This file gives each tool
// its public name: mcp_<server>_<tool>_<hash8>.
package adapter

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxNameLen is the longest public name models accept.
const maxNameLen = 64

// PublicName returns the stable public name of a server's tool:
// "mcp_<server slug>_<tool slug>_<hash8>", where the slugs keep only
// [a-z0-9_] and hash8 is the first 8 hex digits of sha256(server + ":" +
// tool). The name never exceeds 64 characters: the slugs are shortened,
// never the hash, so two tools never share a name unless their hashes do.
func PublicName(server, tool string) string {
	sum := sha256.Sum256([]byte(server + ":" + tool))
	hash := hex.EncodeToString(sum[:4])
	s, t := slug(server), slug(tool)
	// "mcp_" + s + "_" + t + "_" + hash
	room := maxNameLen - len("mcp_") - 2 - len(hash)
	if len(s)+len(t) > room {
		half := room / 2
		switch {
		case len(s) <= half:
			t = t[:room-len(s)]
		case len(t) <= half:
			s = s[:room-len(t)]
		default:
			s, t = s[:half], t[:room-half]
		}
	}
	return "mcp_" + s + "_" + t + "_" + hash
}

// slug lowercases name and replaces every run of other characters with one
// underscore.
func slug(name string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			under = false
		} else if !under {
			b.WriteByte('_')
			under = true
		}
	}
	out := strings.Trim(b.String(), "_")
	if out == "" {
		return "x"
	}
	return out
}
