package runtime

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcp-host/mcp-host/termsafe"
)

// MaxInstructionsBytes bounds one server's instructions in the model's
// context.
const MaxInstructionsBytes = 2 << 10

// ServerInstructions renders a server's instructions (from initialize) as
// the model gets them: stripped like every server string (controls,
// escapes, bidi and invisible characters; newlines kept) and cut at
// [MaxInstructionsBytes] with a note saying so.
func ServerInstructions(raw string) string {
	s := strings.TrimSpace(termsafe.Sanitize(raw, termsafe.Options{MultiLine: true, Max: -1}))
	if len(s) <= MaxInstructionsBytes {
		return s
	}
	return cutBytes(s, MaxInstructionsBytes) + fmt.Sprintf("\n[instructions cut: %d of %d bytes left out]", len(s)-len(cutBytes(s, MaxInstructionsBytes)), len(s))
}

// cutBytes returns the longest prefix of the valid UTF-8 s of at most n
// bytes that ends on a rune boundary.
func cutBytes(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Instructions returns the server's instructions as the model gets them
// (see [ServerInstructions]), "" when it sent none or is not ready, and
// whether its config leaves them out ("instructions": false).
func (m *Manager) Instructions(id string) (text string, off bool) {
	sv, err := m.server(id)
	if err != nil {
		return "", false
	}
	off = !sv.entry.Config.WantsInstructions()
	s, err := sv.liveSession()
	if err != nil {
		if cat := sv.cachedCatalog(); cat != nil {
			return ServerInstructions(cat.Instructions), off
		}
		return "", off
	}
	return ServerInstructions(s.Info().Instructions), off
}
