package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The lean tools/call path.
//
// The SDK decodes a tools/call result through a decoder that reads its
// input through a growing buffer: a 5 MB text block costs it some 40 MB
// of allocation and a peak of several copies. The session reads the large
// text blocks of the answer itself (one decode of each string) and passes
// the SDK the same answer with those strings empty, then puts them back
// into the SDK's result. Everything else (the other blocks, structured
// content, _meta, the SDK's checks) is the SDK's as before; an answer
// whose shape is unusual (a duplicate or escaped member name, a block
// whose type is not plainly "text") is passed on untouched.

// leanTextMin is the size of a text block's JSON string from which the
// session reads it itself.
const leanTextMin = 256 << 10

// callCapture receives the large texts of one tools/call answer, by
// content index, read by the transport (extConn.leanAnswer).
type callCapture struct {
	mu    sync.Mutex
	texts map[int]string
}

// reset forgets what an earlier attempt of the call captured.
func (c *callCapture) reset() {
	c.mu.Lock()
	c.texts = nil
	c.mu.Unlock()
}

func (c *callCapture) put(texts map[int]string) {
	c.mu.Lock()
	c.texts = texts
	c.mu.Unlock()
}

// restore puts the captured texts back into the SDK's result.
func (c *callCapture) restore(res *mcp.CallToolResult) error {
	c.mu.Lock()
	texts := c.texts
	c.texts = nil
	c.mu.Unlock()
	for i, s := range texts {
		if res == nil || i >= len(res.Content) {
			return fmt.Errorf("tools/call: the result lost its content block %d", i)
		}
		tc, ok := res.Content[i].(*mcp.TextContent)
		if !ok {
			return fmt.Errorf("tools/call: content block %d is not text in the decoded result", i)
		}
		tc.Text = s
	}
	return nil
}

type callCaptureKey struct{}

// withCallCapture marks ctx as a tools/call whose large texts the
// transport may read into c.
func withCallCapture(ctx context.Context, c *callCapture) context.Context {
	return context.WithValue(ctx, callCaptureKey{}, c)
}

func callCaptureFrom(ctx context.Context) *callCapture {
	c, _ := ctx.Value(callCaptureKey{}).(*callCapture)
	return c
}

// leanCallResult returns result with every large text block's text
// replaced by "", and those texts by content index; ok is false when
// there is nothing to take out, or result is not a shape this reads.
func leanCallResult(result []byte) (trimmed []byte, texts map[int]string, ok bool) {
	if len(result) < leanTextMin {
		return nil, nil, false
	}
	cs, ce, found := objectMember(result, "content")
	if !found || result[cs] != '[' {
		return nil, nil, false
	}
	type span struct{ s, e int }
	var cuts []span
	i := cs + 1
	for idx := 0; ; idx++ {
		i = skipSpace(result, i)
		if i < ce && result[i] == ']' {
			break
		}
		es := i
		ee := skipValue(result, es)
		if ee < 0 || ee > ce {
			return nil, nil, false
		}
		el := result[es:ee]
		if ts, te, isText := objectMember(el, "type"); isText && string(el[ts:te]) == `"text"` {
			if xs, xe, has := objectMember(el, "text"); has && xe-xs >= leanTextMin && el[xs] == '"' {
				var s string
				if json.Unmarshal(el[xs:xe], &s) != nil {
					return nil, nil, false // the SDK's to refuse
				}
				if texts == nil {
					texts = map[int]string{}
				}
				texts[idx] = s
				cuts = append(cuts, span{es + xs, es + xe})
			}
		}
		i = skipSpace(result, ee)
		if i < ce && result[i] == ',' {
			i++
		}
	}
	if len(cuts) == 0 {
		return nil, nil, false
	}
	var b bytes.Buffer
	last := 0
	for _, c := range cuts {
		b.Write(result[last:c.s])
		b.WriteString(`""`)
		last = c.e
	}
	b.Write(result[last:])
	return b.Bytes(), texts, true
}
