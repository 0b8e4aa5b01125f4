package session

import (
	"bytes"
	"encoding/json"
	"sync/atomic"
)

// The next page's cursor, early. listTools asks for page n+1 as soon as it
// knows page n's nextCursor (catalog.go); these find that cursor before the
// page's tools are decoded, and, on an event stream, from the start of the
// answer while the rest of it still arrives. A cursor found early is a
// guess that listTools checks against the page the SDK returns: a request
// sent for a wrong guess is cancelled and the right one sent.

// newListCapture returns a capture for one tools/list call of a listing
// whose pages share sizes (nil for none).
func newListCapture(sizes *pageSizes) *listCapture {
	return &listCapture{next: make(chan string, 1), sizes: sizes}
}

// pageSizes remembers the size of the last answer of one listing, so that
// the next page is read into one buffer of about that size: the pages of a
// catalog are alike, and a page read in 64 KiB pieces must then be copied
// whole once more before it can be decoded (one more megabyte of fresh
// memory per megabyte of catalog).
type pageSizes struct{ last atomic.Int64 }

// bufferFor returns the capacity to read the answer of c's call into: a
// quarter more than the last page of its listing, within limit; 0 when no
// page has been read yet (or c is nil).
func (c *listCapture) bufferFor(limit int) int {
	if c == nil || c.sizes == nil {
		return 0
	}
	n := c.sizes.last.Load()
	if n <= 0 {
		return 0
	}
	return int(min(n+n/4+4<<10, int64(limit)))
}

// saw records that the answer of c's call had size bytes.
func (c *listCapture) saw(size int) {
	if c != nil && c.sizes != nil {
		c.sizes.last.Store(int64(size))
	}
}

// wholePage returns a page read in chunks as one slice to decode: the
// chunks joined, or the only chunk, copied when the buffer it was read
// into is much larger. The tools decoded from a page point into that
// buffer and keep all of it, and a server whose pages go from large to
// small must not make each small page hold a large buffer (a hundred pages
// after one of 32 MB would keep 3 GB).
func wholePage(chunks [][]byte) []byte {
	if len(chunks) > 1 {
		return bytes.Join(chunks, nil)
	}
	page := chunks[0]
	if cap(page)-len(page) > len(page)/4+8<<10 {
		return bytes.Clone(page)
	}
	return page
}

// offerCursor passes on cursor as the page's nextCursor; only the first
// offer counts.
func (c *listCapture) offerCursor(cursor string) {
	if c == nil || cursor == "" {
		return
	}
	c.nextOnce.Do(func() { c.next <- cursor })
}

// sawCursor offers the nextCursor of a whole tools/list result.
func (c *listCapture) sawCursor(result []byte) {
	if c == nil {
		return
	}
	cs, ce, found := objectMember(result, "nextCursor")
	var cursor string
	if found && json.Unmarshal(result[cs:ce], &cursor) == nil {
		c.offerCursor(cursor)
	}
}

// earlyCursor reads the nextCursor of a tools/list answer from the start
// of the JSON-RPC message, msg, which may be cut anywhere. final is true
// once the answer is known: the cursor was found, or it does not come
// before the tools (a server that writes it last), or msg is nothing this
// can read; otherwise more of the message may tell.
func earlyCursor(msg []byte) (cursor string, final bool) {
	vs, found, final := findMember(msg, 0, "result", "")
	if !found {
		return "", final
	}
	if vs, found, final = findMember(msg, vs, "nextCursor", "tools"); !found {
		return "", final
	}
	ve := skipValue(msg, vs)
	if ve < 0 {
		return "", false
	}
	_ = json.Unmarshal(msg[vs:ve], &cursor) // not a string: no cursor
	return cursor, true
}

// findMember looks for the member key of the object at msg[i:], which may
// be cut anywhere, and returns the index of its value. When it is not
// found, final says whether more of msg could still find it: not after
// the object's end, the member stop, or anything this cannot read.
func findMember(msg []byte, i int, key, stop string) (value int, found, final bool) {
	i, ok := enterObject(msg, i)
	if !ok {
		return 0, false, i == -2
	}
	for {
		name, vs, next := nextMember(msg, i)
		switch {
		case next == -1:
			return 0, false, false // cut: more may tell
		case next < -1, stop != "" && name == stop:
			return 0, false, true
		case name == key:
			return vs, true, false
		}
		if i = skipValue(msg, vs); i < 0 {
			return 0, false, false
		}
	}
}

// enterObject returns the index after the '{' at or after msg[i]; ok is
// false, with -1 when msg ends first and -2 when something else is there.
func enterObject(msg []byte, i int) (int, bool) {
	i = skipSpace(msg, i)
	switch {
	case i >= len(msg):
		return -1, false
	case msg[i] != '{':
		return -2, false
	}
	return i + 1, true
}

// nextMember reads the name of the member at msg[i:] (after a '{' or a
// value) and returns it with the index of its value; next is -1 when msg
// ends first and -2 at the object's end or anything unexpected, such as a
// name spelled with escapes.
func nextMember(msg []byte, i int) (name string, value, next int) {
	i = skipSpace(msg, i)
	if i < len(msg) && msg[i] == ',' {
		i = skipSpace(msg, i+1)
	}
	if i >= len(msg) {
		return "", 0, -1
	}
	if msg[i] != '"' {
		return "", 0, -2
	}
	ke := skipString(msg, i)
	if ke < 0 {
		return "", 0, -1
	}
	raw := msg[i+1 : ke-1]
	for _, b := range raw {
		if b == '\\' {
			return "", 0, -2
		}
	}
	i = skipSpace(msg, ke)
	switch {
	case i >= len(msg):
		return "", 0, -1
	case msg[i] != ':':
		return "", 0, -2
	}
	vs := skipSpace(msg, i+1)
	if vs >= len(msg) {
		return "", 0, -1
	}
	return string(raw), vs, 0
}

// peekCursor offers the cursor in the start of the event's data, until that
// start has told what it can (see earlyCursor).
func (ev *event) peekCursor(c *listCapture) {
	if c == nil || ev.cursorKnown {
		return
	}
	cursor, final := earlyCursor(ev.data)
	c.offerCursor(cursor)
	ev.cursorKnown = final || len(ev.data) > maxEndpointBytes
}
