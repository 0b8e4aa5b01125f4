package apps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/mcp-host/mcp-host/runtime/hostfetch"
	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxBytes bounds a UI resource's HTML.
const DefaultMaxBytes = 2 << 20

// Errors a refused UI resource matches (errors.Is), inside a
// *ResourceError that names the server, tool and URI.
var (
	ErrWrongMIME = errors.New("wrong MIME type")
	ErrTooLarge  = errors.New("too large")
	ErrNotUI     = errors.New("not a ui:// resource")
	ErrNoContent = errors.New("no content")
)

// Ref names a UI resource: the server that serves it, the tool that names
// it and its URI.
type Ref struct {
	Server string
	Tool   string
	URI    string
}

func (r Ref) String() string {
	return fmt.Sprintf("server %q tool %q: UI resource %q", r.Server, termsafe.Line(r.Tool), termsafe.Line(r.URI))
}

// ResourceError is a UI resource that could not be read or was refused.
type ResourceError struct {
	Ref Ref
	// Err matches one of ErrWrongMIME, ErrTooLarge, ErrNotUI, ErrNoContent,
	// or is the read's own error.
	Err error
	// Detail says what was wrong, in words.
	Detail string
}

func (e *ResourceError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("%s: %v", e.Ref, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Ref, e.Detail)
}

func (e *ResourceError) Unwrap() error { return e.Err }

// UIMeta is a UI resource's _meta.ui, as the spec spells it.
type UIMeta struct {
	CSP *struct {
		ConnectDomains  []string `json:"connectDomains,omitempty"`
		ResourceDomains []string `json:"resourceDomains,omitempty"`
		FrameDomains    []string `json:"frameDomains,omitempty"`
		BaseURIDomains  []string `json:"baseUriDomains,omitempty"`
	} `json:"csp,omitempty"`
	Permissions *struct {
		Camera         *struct{} `json:"camera,omitempty"`
		Microphone     *struct{} `json:"microphone,omitempty"`
		Geolocation    *struct{} `json:"geolocation,omitempty"`
		ClipboardWrite *struct{} `json:"clipboardWrite,omitempty"`
	} `json:"permissions,omitempty"`
	Domain        string `json:"domain,omitempty"`
	PrefersBorder *bool  `json:"prefersBorder,omitempty"`
}

// Resource is a checked UI resource.
type Resource struct {
	Ref Ref
	// MIMEType is the server's MIME type (equivalent to [MIMEType]).
	MIMEType string
	// HTML is the document, decoded from a blob when the server sent one.
	HTML string
	// UI is the content's _meta.ui; nil when there is none. A _meta.ui the
	// host cannot read is an error: a frame must never get a looser policy
	// than the app declared.
	UI *UIMeta
}

// A Reader reads resources of one server (a *session.Session does).
type Reader interface {
	ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error)
}

// Fetch reads the UI resource ref.URI with r and checks it: a ui:// URI,
// one content of MIME type text/html;profile=mcp-app, at most max bytes
// of HTML (max <= 0 means DefaultMaxBytes), valid UTF-8. The read is
// bounded while it is read (hostfetch.Read); a Cache's reads are also
// shared and their refusals remembered.
func Fetch(ctx context.Context, r Reader, ref Ref, max int) (*Resource, error) {
	return fetch(ctx, nil, r, ref, max)
}

// fetch is Fetch, reading through f when it is not nil.
func fetch(ctx context.Context, f *hostfetch.Fetcher, r Reader, ref Ref, max int) (*Resource, error) {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	fail := func(err error, format string, args ...any) error {
		return &ResourceError{Ref: ref, Err: err, Detail: fmt.Sprintf(format, args...)}
	}
	if !IsUIURI(ref.URI) {
		return nil, fail(ErrNotUI, "the URI is not a ui:// URI; refused")
	}
	var res *mcp.ReadResourceResult
	var err error
	if f != nil {
		res, err = f.Read(ctx, ref.Server, r, ref.URI, max)
	} else {
		res, err = hostfetch.Read(ctx, r, ref.URI, max)
	}
	if errors.Is(err, hostfetch.ErrTooLarge) {
		detail := err.Error()
		if tl := (*hostfetch.TooLargeError)(nil); errors.As(err, &tl) {
			detail = tl.Summary() // the Ref names server and URI
		}
		return nil, &ResourceError{Ref: ref, Err: errors.Join(ErrTooLarge, err), Detail: detail}
	}
	if err != nil {
		return nil, &ResourceError{Ref: ref, Err: err, Detail: "read failed: " + err.Error()}
	}
	var c *mcp.ResourceContents
	for _, rc := range res.Contents {
		if rc == nil {
			continue
		}
		if c == nil || (rc.URI == ref.URI && c.URI != ref.URI) {
			c = rc
		}
	}
	if c == nil {
		return nil, fail(ErrNoContent, "the server returned no content for it")
	}
	if !IsAppMIME(c.MIMEType) {
		return nil, fail(ErrWrongMIME, "MIME type %q, want %q; refused", termsafe.Line(c.MIMEType), MIMEType)
	}
	html := c.Text
	if html == "" && c.Blob != nil {
		if len(c.Blob) > max {
			return nil, fail(ErrTooLarge, "%d bytes, over the bound of %d bytes; refused", len(c.Blob), max)
		}
		html = string(c.Blob)
	}
	switch {
	case len(html) > max:
		return nil, fail(ErrTooLarge, "%d bytes, over the bound of %d bytes; refused", len(html), max)
	case html == "":
		return nil, fail(ErrNoContent, "the content is empty")
	case !utf8.ValidString(html):
		return nil, fail(ErrNoContent, "the HTML is not valid UTF-8; refused")
	}
	out := &Resource{Ref: ref, MIMEType: c.MIMEType, HTML: html}
	ui, ok := c.Meta["ui"]
	if !ok || ui == nil {
		// The resource's entry in resources/list may carry it instead
		// (the SDK's registerAppResource puts it there); the content's
		// own _meta.ui takes precedence.
		ui = listedUI(ctx, r, ref.URI)
	}
	if ui != nil {
		raw, err := json.Marshal(ui)
		if err == nil {
			out.UI = new(UIMeta)
			err = json.Unmarshal(raw, out.UI)
		}
		if err != nil {
			return nil, fail(ErrNoContent, "its _meta.ui cannot be read (%v); refused", err)
		}
	}
	return out, nil
}

// A Lister lists a server's resources (a *session.Session does).
type Lister interface {
	ListResources(ctx context.Context) ([]*mcp.Resource, error)
}

// listedUI returns the _meta.ui of uri's entry in the server's resource
// list, or nil: when r cannot list, the list fails, or the entry has none.
func listedUI(ctx context.Context, r Reader, uri string) any {
	l, ok := r.(Lister)
	if !ok {
		return nil
	}
	list, err := l.ListResources(ctx)
	if err != nil {
		return nil
	}
	for _, res := range list {
		if res != nil && res.URI == uri {
			return res.Meta["ui"]
		}
	}
	return nil
}

// IsUIURI reports whether uri uses the ui:// scheme.
func IsUIURI(uri string) bool {
	return len(uri) > len("ui://") && strings.EqualFold(uri[:len("ui://")], "ui://")
}

// IsAppMIME reports whether mt is text/html with profile mcp-app (case and
// spaces aside).
func IsAppMIME(mt string) bool {
	typ, params, err := mime.ParseMediaType(mt)
	return err == nil && typ == "text/html" && strings.EqualFold(params["profile"], "mcp-app")
}
