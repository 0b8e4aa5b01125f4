package session

import "bytes"

// A stdio answer of several megabytes (a tool result) used to cost the
// filter three copies of it beyond the line itself: the line buffer grown
// by append (about 1.25 times at each step for large slices, so about five
// times the line in all), a full decode by the SDK's jsonrpc.DecodeMessage
// only to learn whether it accepts the message (which copies the result
// and reads it through a growing buffer), and a copy for the SDK's reader.
// The helpers here cut those: the buffer doubles, a large message is
// checked with its bulky members left out, and the line itself is handed
// to the SDK when it can be.

// growLine appends p to b, doubling b's capacity when it must grow.
func growLine(b, p []byte) []byte {
	if n := len(b) + len(p); n > cap(b) {
		nb := make([]byte, len(b), max(n, 2*cap(b), 4<<10))
		copy(nb, b)
		b = nb
	}
	return append(b, p...)
}

// leanProbeMin is the size above which a message is checked without its
// bulky members (see probeOf).
const leanProbeMin = 64 << 10

// sdkMaxDepth is the nesting the SDK's decoder accepts (its
// internal/json checkMaxDepth, over the whole message).
const sdkMaxDepth = 1000

// probeOf returns what to hand jsonrpc.DecodeMessage to learn whether the
// SDK accepts raw, and whether raw passed the checks made here instead.
// Small messages are their own probe. A large one's top-level "result"
// and "params" (which the SDK keeps as raw JSON, unread) are replaced by
// {} once raw is known to be valid JSON (the caller's json.Valid) and
// within the SDK's nesting bound (checked here as the SDK checks it), so
// that the probe is decoded in a few bytes. A message whose members
// objectMember cannot read (duplicates, escaped names) is its own probe.
func probeOf(raw []byte) (probe []byte, ok bool) {
	if len(raw) < leanProbeMin {
		return raw, true
	}
	if !depthWithin(raw, sdkMaxDepth) {
		return nil, false
	}
	probe = raw
	for _, key := range []string{"result", "params"} {
		s, e, found := objectMember(probe, key)
		if !found || e-s < 2 {
			continue
		}
		var b bytes.Buffer
		b.Grow(len(probe) - (e - s) + 2)
		b.Write(probe[:s])
		b.WriteString("{}")
		b.Write(probe[e:])
		probe = b.Bytes()
	}
	return probe, true
}

// depthWithin reports whether data nests at most max deep, counted as the
// SDK counts it (brackets outside strings; a stray closer never below 0).
func depthWithin(data []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > max {
				return false
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return true
}
