// Package adapter turns MCP tools into core tools: each tool of a server
// becomes a [Tool] with a stable hashed public name, a description that names
// its origin, an input schema checked against size and shape limits, and
// results converted to core content with large output cut.
//
// It must not import runtime or runtime/serve: the runtime builds adapters,
// not the other way round.
package adapter

import (
	"crypto/sha256"
	"encoding/hex"
	"unicode"
)

// maxNameLen is the longest public name models accept.
const maxNameLen = 64

// PublicName returns the stable public name of a server's tool:
// "mcp_<server slug>_<tool slug>_<hash8>", where the slugs keep only
// [a-z0-9_] and hash8 is the first 8 hex digits of sha256(server + ":" +
// tool). The name never exceeds 64 characters: the slugs are shortened,
// never the hash, so two tools never share a name unless their hashes do.
func PublicName(server, tool string) string {
	return publicName(server, tool, "")
}

// publicName is PublicName with salt appended to the hashed text; a
// non-empty salt gives the alternative names used to resolve collisions.
func publicName(server, tool, salt string) string {
	var hash [8]byte
	sum := hashOf(server, tool, salt)
	hex.Encode(hash[:], sum[:4])

	sl, tl := slugLen(server), slugLen(tool)
	// "mcp_" + s + "_" + t + "_" + hash
	room := maxNameLen - len("mcp_") - 2 - len(hash)
	if sl+tl > room {
		half := room / 2
		switch {
		case sl <= half:
			tl = room - sl
		case tl <= half:
			sl = room - tl
		default:
			sl, tl = half, room-half
		}
	}
	var buf [maxNameLen]byte
	b := append(buf[:0], "mcp_"...)
	b = appendSlug(b, server, sl)
	b = append(b, '_')
	b = appendSlug(b, tool, tl)
	b = append(b, '_')
	b = append(b, hash[:]...)
	return string(b)
}

// hashOf returns sha256(server + ":" + tool + salt) without building the
// string on the heap for names of ordinary length.
func hashOf(server, tool, salt string) [sha256.Size]byte {
	n := len(server) + 1 + len(tool) + len(salt)
	var small [256]byte
	var b []byte
	if n <= len(small) {
		b = small[:0]
	} else {
		b = make([]byte, 0, n)
	}
	b = append(b, server...)
	b = append(b, ':')
	b = append(b, tool...)
	b = append(b, salt...)
	return sha256.Sum256(b)
}

// slugRunes walks the slug of name: lowercase letters and digits are kept,
// every run of other runes becomes one underscore, and leading and trailing
// underscores are dropped. A name with nothing to keep slugs to "x". emit is
// called for each byte of the slug until it returns false.
func slugRunes(name string, emit func(c byte) bool) {
	pending, any := false, false
	for _, r := range name {
		r = unicode.ToLower(r)
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if pending && any {
				if !emit('_') {
					return
				}
			}
			if !emit(byte(r)) {
				return
			}
			pending, any = false, true
		} else {
			pending = true
		}
	}
	if !any {
		emit('x')
	}
}

// slugLen is the length of the slug of name.
func slugLen(name string) int {
	n := 0
	slugRunes(name, func(byte) bool { n++; return true })
	return n
}

// appendSlug appends the first max bytes of the slug of name to b.
func appendSlug(b []byte, name string, max int) []byte {
	slugRunes(name, func(c byte) bool {
		if max <= 0 {
			return false
		}
		b = append(b, c)
		max--
		return true
	})
	return b
}
