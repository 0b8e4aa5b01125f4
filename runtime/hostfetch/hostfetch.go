// Package hostfetch is the one bounded fetch for what the host reads from a
// server for itself, rather than for the model: an MCP App's UI resource,
// a resource an app reads, a skill's files. Nothing a server sends sizes
// the host:
//
//   - the limit of the kind of content is enforced while the answer is
//     read: the read's context carries an answer cap (WithAnswerCap) that
//     the session applies to the answer on the wire, in place of its
//     general response cap, so that a 30 MiB resource read with a 2 MiB
//     limit costs a few MiB, not 30 decoded twice;
//   - concurrent reads of the same resource share one read (Fetcher);
//   - a refusal for size is remembered for a while per server and URI
//     (Fetcher.RefusalTTL), so that opening a hostile server's app again
//     and again costs nothing more.
package hostfetch

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrTooLarge is matched by the error of a read whose answer or content
// went over the limit of the read (or the session's response cap).
var ErrTooLarge = errors.New("over the size limit")

// A Reader reads one resource of a server (a *session.Session does).
type Reader interface {
	ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error)
}

type capKey struct{}

// WithAnswerCap returns ctx carrying an answer cap of n bytes: the session
// that reads the answer to a request made with the returned context stops
// reading at n bytes of the answer (as sent, after decompression) and fails
// the request with an error matching ErrTooLarge, if n is below its own
// response cap. n <= 0 leaves ctx as it is. A smaller cap already in ctx
// holds.
func WithAnswerCap(ctx context.Context, n int) context.Context {
	if n <= 0 {
		return ctx
	}
	if old := AnswerCap(ctx); old > 0 && old <= n {
		return ctx
	}
	return context.WithValue(ctx, capKey{}, n)
}

// AnswerCap returns the answer cap ctx carries, or 0 if none.
func AnswerCap(ctx context.Context) int {
	n, _ := ctx.Value(capKey{}).(int)
	return n
}

// wireSlack is room on the wire for the JSON-RPC envelope, the content's
// URI, MIME type and _meta.
const wireSlack = 64 << 10

// WireBytes returns the answer cap of a read whose content may be up to
// limit bytes: twice the limit (JSON escapes quotes, newlines, and some
// encoders <, > and &; a blob's base64 is 4/3 of it) plus room for the
// envelope. Content that escapes to more than twice its size is refused
// even under its limit; that is the price of never reading more.
func WireBytes(limit int) int {
	if limit <= 0 {
		return 0
	}
	return 2*limit + wireSlack
}

// Read reads uri with r, bounded: the answer is read at most up to
// WireBytes(limit) bytes, and the contents (text and blobs together) must
// be at most limit bytes. An answer or content over them is an error that
// matches ErrTooLarge and names the URI and the limit.
func Read(ctx context.Context, r Reader, uri string, limit int) (*mcp.ReadResourceResult, error) {
	res, err := r.ReadResource(WithAnswerCap(ctx, WireBytes(limit)), uri)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return nil, &TooLargeError{URI: uri, Limit: limit, Err: err}
		}
		return nil, err
	}
	if res == nil {
		return nil, fmt.Errorf("resource %q: the server sent no result", uri)
	}
	total := 0
	for _, c := range res.Contents {
		if c != nil {
			total += len(c.Text) + len(c.Blob)
		}
	}
	if limit > 0 && total > limit {
		return nil, &TooLargeError{URI: uri, Limit: limit, Size: total}
	}
	return res, nil
}

// TooLargeError is a read refused for its size.
type TooLargeError struct {
	URI   string
	Limit int
	// Size is the content's size when it was read whole; 0 when the
	// answer was cut on the wire (Err says so).
	Size int
	Err  error
}

func (e *TooLargeError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("resource %q: %s (%v)", e.URI, e.Summary(), e.Err)
	}
	return fmt.Sprintf("resource %q: %s", e.URI, e.Summary())
}

// Summary says what was refused without the URI or the session's error:
// "3145728 bytes, over the bound of 2097152 bytes; refused".
func (e *TooLargeError) Summary() string {
	if e.Size > 0 {
		return fmt.Sprintf("%d bytes, over the bound of %d bytes; refused", e.Size, e.Limit)
	}
	return fmt.Sprintf("over the bound of %d bytes; refused, the answer cut where it passed it", e.Limit)
}

// Unwrap makes the error match ErrTooLarge (and the session's own error).
func (e *TooLargeError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrTooLarge, e.Err}
	}
	return []error{ErrTooLarge}
}
