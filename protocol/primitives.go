package protocol

import "context"

// MCP gives each primitive to the party that controls it: prompts are the
// user's to pick, resources the application's to attach. These methods
// hand servers' prompts and resources to the UI (the model keeps its own
// tools for them, see UICapabilities.MCPPrompts). Each names its server;
// the lists without a server cover every ready server that offers them.
const (
	// MethodPromptsList lists servers' prompts (ListParams).
	MethodPromptsList = "prompts.list"
	// MethodPromptsGet renders one prompt with its arguments
	// (PromptsGetParams); run.start takes its messages.
	MethodPromptsGet = "prompts.get"
	// MethodPromptsComplete completes an argument of a prompt as the user
	// types (CompleteParams with Prompt): MCP completion/complete.
	MethodPromptsComplete = "prompts.complete"
	// MethodResourcesList lists servers' resources (ListParams).
	MethodResourcesList = "resources.list"
	// MethodResourcesTemplatesList lists servers' resource templates.
	MethodResourcesTemplatesList = "resources.templates.list"
	// MethodResourcesRead reads one resource, bounded (ResourceParams).
	MethodResourcesRead = "resources.read"
	// MethodResourcesComplete completes a variable of a resource template
	// (CompleteParams with URITemplate).
	MethodResourcesComplete = "resources.complete"
	// MethodResourcesSubscribe asks a server to report changes of a
	// resource: they arrive as resources.updated notifications.
	MethodResourcesSubscribe = "resources.subscribe"
	// MethodResourcesUnsubscribe ends a subscription.
	MethodResourcesUnsubscribe = "resources.unsubscribe"
	// MethodResourcesUpdated is the notification that a subscribed
	// resource changed (ResourceUpdatedParams); read it again to see how.
	MethodResourcesUpdated = "resources.updated"
)

// PrimitivesServer is what the runtime does with servers' prompts and
// resources for a UI. `host serve` implements it; [NewPrimitivesCaller]
// implements it over a connection.
type PrimitivesServer interface {
	PromptsList(ctx context.Context, p *ListParams) (*PromptsListResult, error)
	PromptsGet(ctx context.Context, p *PromptsGetParams) (*PromptsGetResult, error)
	PromptsComplete(ctx context.Context, p *CompleteParams) (*CompleteResult, error)
	ResourcesList(ctx context.Context, p *ListParams) (*ResourcesListResult, error)
	ResourcesTemplatesList(ctx context.Context, p *ListParams) (*ResourceTemplatesListResult, error)
	ResourcesRead(ctx context.Context, p *ResourceParams) (*ResourcesReadResult, error)
	ResourcesComplete(ctx context.Context, p *CompleteParams) (*CompleteResult, error)
	ResourcesSubscribe(ctx context.Context, p *ResourceParams) (*Empty, error)
	ResourcesUnsubscribe(ctx context.Context, p *ResourceParams) (*Empty, error)
}

// ListParams choose the server of a list; empty lists every ready server
// that offers the primitive.
type ListParams struct {
	Server string `json:"server,omitempty"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PromptInfo is one prompt of a server. Text is stripped of controls.
type PromptInfo struct {
	Server      string           `json:"server"`
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptsListResult answers prompts.list. Problems name the servers whose
// list failed; the others are listed.
type PromptsListResult struct {
	Prompts  []PromptInfo `json:"prompts"`
	Problems []string     `json:"problems,omitempty"`
}

// PromptsGetParams name a prompt and its arguments.
type PromptsGetParams struct {
	Server    string            `json:"server"`
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
}

// PromptMessage is one message a prompt returns: role "user" or
// "assistant" and one content block (text, image, audio, resource,
// resource_link).
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// PromptsGetResult answers prompts.get. Pass Messages to run.start to run
// the prompt as the user's turn.
type PromptsGetResult struct {
	Server      string          `json:"server"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

// CompleteParams ask for completions of one argument: of prompt Prompt
// (prompts.complete) or of resource template URITemplate
// (resources.complete). Arguments are the values already chosen, which
// the server may use to narrow the answer.
type CompleteParams struct {
	Server      string            `json:"server"`
	Prompt      string            `json:"prompt,omitempty"`
	URITemplate string            `json:"uri_template,omitempty"`
	Argument    string            `json:"argument"`
	Value       string            `json:"value"`
	Arguments   map[string]string `json:"arguments,omitempty"`
}

// CompleteResult answers prompts.complete and resources.complete: at most
// 100 values, Total and HasMore as the server said. A server without the
// completions capability answers no values.
type CompleteResult struct {
	Values  []string `json:"values"`
	Total   int      `json:"total,omitempty"`
	HasMore bool     `json:"has_more,omitempty"`
}

// ResourceInfo is one resource of a server.
type ResourceInfo struct {
	Server      string `json:"server"`
	URI         string `json:"uri"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mime_type,omitempty"`
	Size        int64  `json:"size,omitempty"`
}

// ResourcesListResult answers resources.list.
type ResourcesListResult struct {
	Resources []ResourceInfo `json:"resources"`
	Problems  []string       `json:"problems,omitempty"`
}

// ResourceTemplateInfo is one resource template (RFC 6570) of a server.
type ResourceTemplateInfo struct {
	Server      string `json:"server"`
	URITemplate string `json:"uri_template"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mime_type,omitempty"`
}

// ResourceTemplatesListResult answers resources.templates.list.
type ResourceTemplatesListResult struct {
	Templates []ResourceTemplateInfo `json:"templates"`
	Problems  []string               `json:"problems,omitempty"`
}

// ResourceParams name one resource of a server: resources.read,
// resources.subscribe, resources.unsubscribe and RunStartParams.Attach.
type ResourceParams struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
}

// ResourcesReadResult answers resources.read: the contents, each a
// Content of type "resource" with uri, mime_type and text or data.
type ResourcesReadResult struct {
	Contents []Content `json:"contents"`
}

// ResourceUpdatedParams are the resources.updated notification.
type ResourceUpdatedParams struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
	// Coalesced counts the updates of the same resource the runtime
	// folded into this one while the UI had not read it yet.
	Coalesced int `json:"coalesced,omitempty"`
}

// ResourceUpdatedHandler is implemented by a [Client] that wants
// resources.updated notifications.
type ResourceUpdatedHandler interface {
	ResourceUpdated(ctx context.Context, p *ResourceUpdatedParams) error
}

func resourceUpdated(c Client) func(context.Context, *ResourceUpdatedParams) error {
	return func(ctx context.Context, p *ResourceUpdatedParams) error {
		if h, ok := c.(ResourceUpdatedHandler); ok {
			return h.ResourceUpdated(ctx, p)
		}
		return nil
	}
}

// addPrimitiveMethods adds the prompts.* and resources.* methods to t
// when s implements PrimitivesServer.
func addPrimitiveMethods(t table, s Server) {
	p, ok := s.(PrimitivesServer)
	if !ok {
		return
	}
	t[MethodPromptsList] = strict(MethodPromptsList, p.PromptsList)
	t[MethodPromptsGet] = strict(MethodPromptsGet, p.PromptsGet)
	t[MethodPromptsComplete] = strict(MethodPromptsComplete, p.PromptsComplete)
	t[MethodResourcesList] = strict(MethodResourcesList, p.ResourcesList)
	t[MethodResourcesTemplatesList] = strict(MethodResourcesTemplatesList, p.ResourcesTemplatesList)
	t[MethodResourcesRead] = strict(MethodResourcesRead, p.ResourcesRead)
	t[MethodResourcesComplete] = strict(MethodResourcesComplete, p.ResourcesComplete)
	t[MethodResourcesSubscribe] = strict(MethodResourcesSubscribe, p.ResourcesSubscribe)
	t[MethodResourcesUnsubscribe] = strict(MethodResourcesUnsubscribe, p.ResourcesUnsubscribe)
}

// primitivesCaller implements PrimitivesServer over a Conn.
type primitivesCaller struct{ c *Conn }

// NewPrimitivesCaller returns a PrimitivesServer whose methods send
// prompts.* and resources.* requests to the runtime over c.
func NewPrimitivesCaller(c *Conn) PrimitivesServer { return primitivesCaller{c} }

func (a primitivesCaller) PromptsList(ctx context.Context, p *ListParams) (*PromptsListResult, error) {
	return call[PromptsListResult](ctx, a.c, MethodPromptsList, p)
}
func (a primitivesCaller) PromptsGet(ctx context.Context, p *PromptsGetParams) (*PromptsGetResult, error) {
	return call[PromptsGetResult](ctx, a.c, MethodPromptsGet, p)
}
func (a primitivesCaller) PromptsComplete(ctx context.Context, p *CompleteParams) (*CompleteResult, error) {
	return call[CompleteResult](ctx, a.c, MethodPromptsComplete, p)
}
func (a primitivesCaller) ResourcesList(ctx context.Context, p *ListParams) (*ResourcesListResult, error) {
	return call[ResourcesListResult](ctx, a.c, MethodResourcesList, p)
}
func (a primitivesCaller) ResourcesTemplatesList(ctx context.Context, p *ListParams) (*ResourceTemplatesListResult, error) {
	return call[ResourceTemplatesListResult](ctx, a.c, MethodResourcesTemplatesList, p)
}
func (a primitivesCaller) ResourcesRead(ctx context.Context, p *ResourceParams) (*ResourcesReadResult, error) {
	return call[ResourcesReadResult](ctx, a.c, MethodResourcesRead, p)
}
func (a primitivesCaller) ResourcesComplete(ctx context.Context, p *CompleteParams) (*CompleteResult, error) {
	return call[CompleteResult](ctx, a.c, MethodResourcesComplete, p)
}
func (a primitivesCaller) ResourcesSubscribe(ctx context.Context, p *ResourceParams) (*Empty, error) {
	return call[Empty](ctx, a.c, MethodResourcesSubscribe, p)
}
func (a primitivesCaller) ResourcesUnsubscribe(ctx context.Context, p *ResourceParams) (*Empty, error) {
	return call[Empty](ctx, a.c, MethodResourcesUnsubscribe, p)
}

func (p *PromptsGetParams) validate(m string) *Error {
	if p.Server == "" {
		return required(m, "server", "the id of a configured server")
	}
	if p.Name == "" {
		return required(m, "name", "the prompt's name (prompts.list)")
	}
	return nil
}

func (p *ResourceParams) validate(m string) *Error {
	if p.Server == "" {
		return required(m, "server", "the id of a configured server")
	}
	if p.URI == "" {
		return required(m, "uri", "the resource's URI (resources.list)")
	}
	return nil
}

func (p *CompleteParams) validate(m string) *Error {
	if p.Server == "" {
		return required(m, "server", "the id of a configured server")
	}
	if m == MethodPromptsComplete && p.Prompt == "" {
		return required(m, "prompt", "the prompt's name (prompts.list)")
	}
	if m == MethodResourcesComplete && p.URITemplate == "" {
		return required(m, "uri_template", "the resource template (resources.templates.list)")
	}
	if p.Argument == "" {
		return required(m, "argument", "the name of the argument to complete")
	}
	return nil
}
