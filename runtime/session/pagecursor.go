package session

import "encoding/json"

// The next page's cursor, early. listTools asks for page n+1 as soon as it
// knows page n's nextCursor (catalog.go); these find that cursor before the
// page's tools are decoded, and, on an event stream, from the start of the
// answer while the rest of it still arrives. A cursor found early is a
// guess that listTools checks against the page the SDK returns: a request
// sent for a wrong guess is cancelled and the right one sent.

// newListCapture returns a capture for one tools/list call.
func newListCapture() *listCapture { return &listCapture{next: make(chan string, 1)} }

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
