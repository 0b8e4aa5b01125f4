package permission

import (
	"sync"

	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ReadOnlyClaim reports whether annotations claim a tool only reads
// (readOnlyHint: true) from a closed world (openWorldHint: false). The MCP
// specification defaults openWorldHint to true, so a tool that does not
// say otherwise reaches outside and does not qualify. These are the
// server's claims, not facts: only a server the user opted in with
// "auto_allow": "read_only" is taken at its word.
func ReadOnlyClaim(a *mcp.ToolAnnotations) bool {
	return a != nil && a.ReadOnlyHint && a.OpenWorldHint != nil && !*a.OpenWorldHint
}

// readOnlyPins remembers, for the life of the gate, the annotations under
// which each tool of an auto_allow server was first let run on its
// read-only claim. A tool whose annotations change afterwards is asked
// about again, even when it still claims to be read-only; once the user
// lets it run, the new annotations are pinned.
type readOnlyPins struct {
	mu   sync.Mutex
	pins map[[2]string]string // server, tool -> digest of the annotations
}

// allows reports whether t may run on its read-only claim: it makes the
// claim and its annotations are the ones first seen (pinning them when
// none were).
func (p *readOnlyPins) allows(t *adapter.Tool) bool {
	def := t.Definition()
	if !ReadOnlyClaim(def.Annotations) {
		return false
	}
	k, d := [2]string{t.Server(), t.ToolName()}, annotationsDigest(def.Annotations)
	p.mu.Lock()
	defer p.mu.Unlock()
	pinned, ok := p.pins[k]
	if !ok {
		if p.pins == nil {
			p.pins = make(map[[2]string]string)
		}
		p.pins[k] = d
		return true
	}
	return pinned == d
}

// repin pins t's current annotations after the user (or a rule) let it
// run, when it claims to be read-only and a pin already exists.
func (p *readOnlyPins) repin(t *adapter.Tool) {
	def := t.Definition()
	if !ReadOnlyClaim(def.Annotations) {
		return
	}
	k := [2]string{t.Server(), t.ToolName()}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.pins[k]; ok {
		p.pins[k] = annotationsDigest(def.Annotations)
	}
}

// annotationsDigest fingerprints annotations as the definition digest
// does.
func annotationsDigest(a *mcp.ToolAnnotations) string {
	return string(encodeJSON(annotationsDoc(a)))
}
