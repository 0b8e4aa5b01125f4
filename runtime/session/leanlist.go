package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	fastjson "github.com/segmentio/encoding/json"
)

// The lean tools/list path.
//
// The SDK's ListTools decodes every input and output schema into
// map[string]any and, for its x-mcp-header checks, encodes and decodes each
// one again: for a catalog of 10,000 tools that is most of the time and
// memory of connecting. The session needs the schemas only as JSON (the
// adapter hands them to the model as they are), so it reads each page
// itself, once, keeping inputSchema and outputSchema as json.RawMessage,
// and passes the SDK a trimmed copy of the page: the same answer (id,
// nextCursor, _meta, ttlMs and every other field byte for byte) whose tools
// array holds only the few tools whose input schema has x-mcp-header
// bindings, so that the SDK's own checks of them (it drops a tool whose
// bindings are invalid) and its header bindings for calls stay what they
// were. (The SDK's checks cost some 32 KB of allocation per tool, even for
// a tool without a schema: the tools that cannot have bindings are not
// shown to it at all.) The request is still the SDK's (headers, session,
// protocol era, auth, retries); only the answer is read here, where the
// session already reads every answer (the HTTP guard, the stdio
// connection). When anything about a page is unusual the page is passed on
// untouched and the SDK's decoding is used.

// listCapture receives the page a transport read for one tools/list call.
// The call's context carries it (see withListCapture).
type listCapture struct {
	mu   sync.Mutex
	page leanPage
	set  bool

	// next receives the page's nextCursor as soon as the transport has the
	// answer, before the tools are decoded, so that the next page can be
	// asked for while this one is read (listTools). Nothing is sent when
	// the answer has no nextCursor or an unusual one.
	next     chan string
	nextOnce sync.Once

	sizes *pageSizes // of the listing's pages, shared by them
}

// leanPage is a page as the session read it.
type leanPage struct {
	tools []*mcp.Tool // full definitions, in the server's order; nil for null
	bound []bool      // which tools were shown to the SDK (x-mcp-header)
}

func (c *listCapture) put(p leanPage) {
	c.mu.Lock()
	c.page, c.set = p, true
	c.mu.Unlock()
}

func (c *listCapture) take() (leanPage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.page, c.set
}

type listCaptureKey struct{}

// withListCapture marks ctx as a tools/list call whose answer the
// transport may read into c.
func withListCapture(ctx context.Context, c *listCapture) context.Context {
	return context.WithValue(ctx, listCaptureKey{}, c)
}

// listCaptureFrom returns the capture of a tools/list call's context.
func listCaptureFrom(ctx context.Context) *listCapture {
	c, _ := ctx.Value(listCaptureKey{}).(*listCapture)
	return c
}

// leanTool decodes one tool with its schemas left as JSON: the fields of
// the outer struct hide the embedded mcp.Tool's fields of the same name.
type leanTool struct {
	mcp.Tool
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// headerBinding marks a schema the SDK must see: x-mcp-header bindings.
var headerBinding = []byte("x-mcp-header")

// leanMessage reads the tools/list answer msg (a whole JSON-RPC message).
// It returns the trimmed message for the SDK and the page; ok is false
// when msg is not a result with a tools array it can read, and then msg
// must be passed on as it is.
func leanMessage(msg []byte, c *listCapture) (trimmed []byte, page leanPage, ok bool) {
	rs, re, found := objectMember(msg, "result")
	if !found {
		return nil, page, false
	}
	res, page, ok := leanResult(msg[rs:re], c)
	if !ok {
		return nil, page, false
	}
	out := make([]byte, 0, rs+len(res)+len(msg)-re)
	out = append(append(append(out, msg[:rs]...), res...), msg[re:]...)
	return out, page, true
}

// leanResult is leanMessage for the result object alone. It passes the
// page's nextCursor to c first.
func leanResult(result []byte, c *listCapture) (trimmed []byte, page leanPage, ok bool) {
	c.sawCursor(result)
	ts, te, found := objectMember(result, "tools")
	if !found {
		return nil, page, false
	}
	// Decoded as the SDK decodes (segmentio's decoder, field names matched
	// case-sensitively), so the session and the SDK read the same tools;
	// strings and schemas point into the page instead of being copied.
	var decoded []*leanTool
	rest, err := fastjson.Parse(result[ts:te], &decoded, fastjson.DontMatchCaseInsensitiveStructFields|fastjson.ZeroCopy)
	if err != nil || len(rest) != 0 {
		return nil, page, false
	}
	page.tools = make([]*mcp.Tool, len(decoded))
	page.bound = make([]bool, len(decoded))
	arr := []byte{'['}
	for i, lt := range decoded {
		if lt == nil {
			continue
		}
		t := &lt.Tool
		t.InputSchema, t.OutputSchema = rawOrNil(lt.InputSchema), rawOrNil(lt.OutputSchema)
		page.tools[i] = t
		if !bytes.Contains(lt.InputSchema, headerBinding) {
			continue
		}
		// The SDK needs the name and the schema; the rest of the tool it
		// may have too.
		page.bound[i] = true
		one, err := json.Marshal(&lt.Tool)
		if err != nil {
			return nil, page, false
		}
		if len(arr) > 1 {
			arr = append(arr, ',')
		}
		arr = append(arr, one...)
	}
	arr = append(arr, ']')
	out := make([]byte, 0, ts+len(arr)+len(result)-te)
	out = append(append(append(out, result[:ts]...), arr...), result[te:]...)
	return out, page, true
}

// rawOrNil keeps a schema as JSON, and an absent or null one as nil, as the
// SDK's decoding would.
func rawOrNil(raw json.RawMessage) any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

// fullTools merges the tools the SDK returned for a trimmed page (the
// bound ones it kept, in order) into the page: every tool not shown to it,
// and each bound tool the SDK kept. ok is false if the SDK returned a tool
// the page does not have in that place.
func fullTools(sdk []*mcp.Tool, page leanPage) ([]*mcp.Tool, bool) {
	out := make([]*mcp.Tool, 0, len(page.tools))
	j := 0
	for i, t := range page.tools {
		switch {
		case !page.bound[i]:
			out = append(out, t) // nil too: listTools reports it
		case j < len(sdk) && sdk[j] != nil && sdk[j].Name == t.Name:
			out = append(out, t)
			j++
		}
	}
	return out, j == len(sdk)
}

// objectMember finds the value of key in the JSON object obj, without
// decoding: it returns the value's span. found is false when obj is not an
// object, the key is absent, present more than once, or spelled with
// escapes; callers then leave the message to the SDK.
func objectMember(obj []byte, key string) (start, end int, found bool) {
	i, ok := enterObject(obj, 0)
	if !ok {
		return 0, 0, false
	}
	for {
		name, vs, next := nextMember(obj, i)
		if next != 0 { // the object's end, or something this does not read
			if j := skipSpace(obj, i); next == -2 && j < len(obj) && obj[j] == '}' {
				return start, end, found
			}
			return 0, 0, false
		}
		ve := skipValue(obj, vs)
		if ve < 0 {
			return 0, 0, false
		}
		if name == key {
			if found {
				return 0, 0, false // duplicate: which one counts is the decoder's business
			}
			start, end, found = vs, ve, true
		}
		i = ve
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] (a
// quote), or -1.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// maxDepth bounds the nesting of a value the lean path decodes, as the
// SDK's decoder bounds it: deeper values are left to the SDK, which refuses
// them.
const maxDepth = 1000

// skipValue returns the index after the JSON value starting at b[i], or
// -1. It checks only the nesting (at most maxDepth) and the strings; the
// decoder that reads the value later checks the rest.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				j := skipString(b, i)
				if j < 0 {
					return -1
				}
				i = j - 1
			case '{', '[':
				if depth++; depth > maxDepth {
					return -1
				}
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// leanEvent reads the tools/list answer in an SSE event (raw, whole) into
// c and returns the event with the trimmed answer, or the event as it is
// when its answer is not one leanMessage can read.
func leanEvent(raw []byte, c *listCapture) []byte {
	var data, other []byte
	dataLines := 0
	for line := range bytes.Lines(raw) {
		line = bytes.TrimRight(line, "\r\n")
		if v, isData := bytes.CutPrefix(line, []byte("data:")); isData {
			v = bytes.TrimPrefix(v, []byte{' '})
			switch dataLines++; dataLines {
			case 1:
				data = v // the usual single line, read in place
			case 2:
				data = append(append(append([]byte(nil), data...), '\n'), v...)
			default:
				data = append(append(data, '\n'), v...)
			}
		} else if len(line) > 0 {
			other = append(append(other, line...), '\n')
		}
	}
	trimmed, page, ok := leanMessage(data, c)
	if !ok {
		return raw
	}
	c.put(page)
	out := make([]byte, 0, len(other)+len(trimmed)+16)
	out = append(append(out, other...), "data: "...)
	out = append(out, bytes.ReplaceAll(trimmed, []byte{'\n'}, []byte("\ndata: "))...)
	return append(out, '\n', '\n')
}

// leanJoined is leanMessage over an answer held in chunks: it reads the
// answer into c and returns the chunks to hand on.
func leanJoined(chunks [][]byte, c *listCapture) [][]byte {
	trimmed, page, ok := leanMessage(wholePage(chunks), c)
	if !ok {
		return chunks
	}
	c.put(page)
	return [][]byte{trimmed}
}

// pageTools returns the full tools of the page the SDK returned as res for
// cursor: the page read on the lean path, or, when the SDK answered from
// its cache (2026-07-28 servers' ttlMs), the page read when it was cached,
// or else the SDK's own decoding.
func pageTools(cs *mcp.ClientSession, cursor string, res *mcp.ListToolsResult, lc *listCapture) ([]*mcp.Tool, error) {
	if page, ok := lc.take(); ok {
		full, ok := fullTools(res.Tools, page)
		if !ok {
			return nil, errors.New("the SDK's tools do not match the page read")
		}
		if newProtocol(cs) {
			rememberPage(cs, cursor, res, full)
		}
		return full, nil
	}
	if newProtocol(cs) {
		if full, ok := cachedPage(cs, cursor, res); ok {
			return full, nil
		}
	}
	return res.Tools, nil
}

func newProtocol(cs *mcp.ClientSession) bool {
	r := cs.InitializeResult()
	return r != nil && r.ProtocolVersion >= "2026-07-28"
}

// leanPages remembers, per SDK session of the 2026-07-28 era, the full
// tools of each page the SDK holds in its cache in trimmed form.
var leanPages sync.Map // *mcp.ClientSession -> *pageIndex

type pageIndex struct {
	mu    sync.Mutex
	pages map[string]cachedLean // by cursor
}

type cachedLean struct {
	res  *mcp.ListToolsResult // what the SDK returned and caches
	full []*mcp.Tool
}

func rememberPage(cs *mcp.ClientSession, cursor string, res *mcp.ListToolsResult, full []*mcp.Tool) {
	v, loaded := leanPages.LoadOrStore(cs, &pageIndex{pages: map[string]cachedLean{}})
	if !loaded {
		go func() {
			_ = cs.Wait()
			leanPages.Delete(cs)
		}()
	}
	idx := v.(*pageIndex)
	idx.mu.Lock()
	idx.pages[cursor] = cachedLean{res, full}
	idx.mu.Unlock()
}

func cachedPage(cs *mcp.ClientSession, cursor string, res *mcp.ListToolsResult) ([]*mcp.Tool, bool) {
	v, ok := leanPages.Load(cs)
	if !ok {
		return nil, false
	}
	idx := v.(*pageIndex)
	idx.mu.Lock()
	defer idx.mu.Unlock()
	c, ok := idx.pages[cursor]
	if !ok || c.res != res {
		return nil, false
	}
	return c.full, true
}
