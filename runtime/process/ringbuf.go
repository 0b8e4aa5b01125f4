package process

import "sync"

// RingBuffer keeps the last max bytes written to it: a server's stderr,
// with the host's own notes about the server. It is safe for concurrent
// use.
type RingBuffer struct {
	mu      sync.Mutex
	buf     []byte
	max     int
	dropped int64
}

// NewRingBuffer returns a buffer that keeps the last max bytes.
func NewRingBuffer(max int) *RingBuffer { return &RingBuffer{max: max} }

// Write appends p, dropping the oldest bytes beyond the limit. It never fails.
func (r *RingBuffer) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.write(p)
}

// Note appends a line of the host's own about the server (such as a stdout
// line that was not JSON-RPC), starting it on a line of its own.
func (r *RingBuffer) Note(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.buf) > 0 && r.buf[len(r.buf)-1] != '\n' {
		r.write([]byte{'\n'})
	}
	r.write([]byte(line + "\n"))
}

func (r *RingBuffer) write(p []byte) (int, error) {
	n := len(p)
	if n >= r.max {
		r.dropped += int64(len(r.buf) + n - r.max)
		r.buf = append(r.buf[:0], p[n-r.max:]...)
		return n, nil
	}
	if over := len(r.buf) + n - r.max; over > 0 {
		r.dropped += int64(over)
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	r.buf = append(r.buf, p...)
	return n, nil
}

// String returns the kept tail, prefixed with a note when bytes were dropped.
func (r *RingBuffer) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dropped == 0 {
		return string(r.buf)
	}
	return "[… earlier output dropped …]\n" + string(r.buf)
}
