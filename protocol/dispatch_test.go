package protocol_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
)

// stubServer answers every request with a zero result.
type stubServer struct{}

func (stubServer) Initialize(context.Context, *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	return &protocol.InitializeResult{}, nil
}
func (stubServer) MCPList(context.Context, *protocol.Empty) (*protocol.MCPListResult, error) {
	return &protocol.MCPListResult{}, nil
}
func (stubServer) MCPGet(context.Context, *protocol.ServerParams) (*protocol.MCPGetResult, error) {
	return &protocol.MCPGetResult{}, nil
}
func (stubServer) MCPReconnect(context.Context, *protocol.ServerParams) (*protocol.ServerResult, error) {
	return &protocol.ServerResult{}, nil
}
func (stubServer) MCPEnable(context.Context, *protocol.ServerParams) (*protocol.ServerResult, error) {
	return &protocol.ServerResult{}, nil
}
func (stubServer) MCPDisable(context.Context, *protocol.ServerParams) (*protocol.ServerResult, error) {
	return &protocol.ServerResult{}, nil
}
func (stubServer) MCPLogin(context.Context, *protocol.LoginParams) (*protocol.ServerResult, error) {
	return &protocol.ServerResult{}, nil
}
func (stubServer) MCPLogout(context.Context, *protocol.LogoutParams) (*protocol.ServerResult, error) {
	return &protocol.ServerResult{}, nil
}
func (stubServer) MCPApprove(context.Context, *protocol.ApproveParams) (*protocol.ServerResult, error) {
	return &protocol.ServerResult{}, nil
}
func (stubServer) ToolsList(context.Context, *protocol.ToolsListParams) (*protocol.ToolsListResult, error) {
	return &protocol.ToolsListResult{}, nil
}
func (stubServer) ToolCall(context.Context, *protocol.ToolCallParams) (*protocol.ToolCallResult, error) {
	return &protocol.ToolCallResult{}, nil
}
func (stubServer) RunStart(context.Context, *protocol.RunStartParams) (*protocol.RunStartResult, error) {
	return &protocol.RunStartResult{}, nil
}
func (stubServer) RunCancel(context.Context, *protocol.RunCancelParams) (*protocol.Empty, error) {
	return &protocol.Empty{}, nil
}
func (stubServer) ConversationEnd(context.Context, *protocol.ConversationParams) (*protocol.Empty, error) {
	return &protocol.Empty{}, nil
}
func (stubServer) Shutdown(context.Context, *protocol.Empty) (*protocol.Empty, error) {
	return &protocol.Empty{}, nil
}
func (stubServer) AppReadResource(context.Context, *protocol.AppReadResourceParams) (*protocol.AppReadResourceResult, error) {
	return &protocol.AppReadResourceResult{}, nil
}
func (stubServer) AppCallTool(context.Context, *protocol.AppCallToolParams) (*protocol.ToolCallResult, error) {
	return &protocol.ToolCallResult{}, nil
}
func (stubServer) AppMessage(context.Context, *protocol.AppMessageParams) (*protocol.RunStartResult, error) {
	return &protocol.RunStartResult{}, nil
}
func (stubServer) AppOpenLink(context.Context, *protocol.AppOpenLinkParams) (*protocol.AppOpenLinkResult, error) {
	return &protocol.AppOpenLinkResult{}, nil
}
func (stubServer) AppClose(context.Context, *protocol.AppCloseParams) (*protocol.Empty, error) {
	return &protocol.Empty{}, nil
}

// stubClient answers every request of the runtime with a zero result.
type stubClient struct{}

func (stubClient) Confirm(context.Context, *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
	return &protocol.ConfirmResult{}, nil
}
func (stubClient) Prompt(context.Context, *protocol.PromptParams) (*protocol.PromptResult, error) {
	return &protocol.PromptResult{}, nil
}
func (stubClient) OpenURL(context.Context, *protocol.OpenURLParams) (*protocol.OpenURLResult, error) {
	return &protocol.OpenURLResult{}, nil
}
func (stubClient) Elicit(context.Context, *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	return &protocol.ElicitResult{}, nil
}
func (stubClient) MCPStatus(context.Context, *protocol.MCPStatusParams) error   { return nil }
func (stubClient) RunStatus(context.Context, *protocol.RunStatusParams) error   { return nil }
func (stubClient) AgentEvent(context.Context, *protocol.AgentEventParams) error { return nil }
func (stubClient) Log(context.Context, *protocol.LogParams) error               { return nil }

// The method table and the dispatch tables agree: ServerHandler has every
// method the UI sends, ClientHandler every method the runtime sends.
func TestHandlersDispatchEveryMethodOfTheTable(t *testing.T) {
	server, client := protocol.ServerHandler(stubServer{}), protocol.ClientHandler(stubClient{})
	for _, m := range protocol.Methods {
		var handlers []protocol.Handler
		switch m.Direction {
		case protocol.UIToRuntime:
			handlers = []protocol.Handler{server}
		case protocol.RuntimeToUI, protocol.BothWays: // the runtime's Conn takes a UI's ui.request.cancelled itself
			handlers = []protocol.Handler{client}
		}
		for _, h := range handlers {
			_, err := h(context.Background(), m.Name, nil)
			var perr *protocol.Error
			if errors.As(err, &perr) && perr.Code == protocol.CodeMethodNotFound {
				t.Errorf("%s (%s) is in protocol.Methods but its handler does not dispatch it", m.Name, m.Direction)
			}
		}
	}
}

func (stubServer) PromptsList(context.Context, *protocol.ListParams) (*protocol.PromptsListResult, error) {
	return &protocol.PromptsListResult{}, nil
}
func (stubServer) PromptsGet(context.Context, *protocol.PromptsGetParams) (*protocol.PromptsGetResult, error) {
	return &protocol.PromptsGetResult{}, nil
}
func (stubServer) PromptsComplete(context.Context, *protocol.CompleteParams) (*protocol.CompleteResult, error) {
	return &protocol.CompleteResult{}, nil
}
func (stubServer) ResourcesList(context.Context, *protocol.ListParams) (*protocol.ResourcesListResult, error) {
	return &protocol.ResourcesListResult{}, nil
}
func (stubServer) ResourcesTemplatesList(context.Context, *protocol.ListParams) (*protocol.ResourceTemplatesListResult, error) {
	return &protocol.ResourceTemplatesListResult{}, nil
}
func (stubServer) ResourcesRead(context.Context, *protocol.ResourceParams) (*protocol.ResourcesReadResult, error) {
	return &protocol.ResourcesReadResult{}, nil
}
func (stubServer) ResourcesComplete(context.Context, *protocol.CompleteParams) (*protocol.CompleteResult, error) {
	return &protocol.CompleteResult{}, nil
}
func (stubServer) ResourcesSubscribe(context.Context, *protocol.ResourceParams) (*protocol.Empty, error) {
	return &protocol.Empty{}, nil
}
func (stubServer) ResourcesUnsubscribe(context.Context, *protocol.ResourceParams) (*protocol.Empty, error) {
	return &protocol.Empty{}, nil
}
func (stubServer) RegistrySearch(context.Context, *protocol.RegistrySearchParams) (*protocol.RegistrySearchResult, error) {
	return &protocol.RegistrySearchResult{}, nil
}
func (stubServer) RegistryGet(context.Context, *protocol.RegistryGetParams) (*protocol.RegistryGetResult, error) {
	return &protocol.RegistryGetResult{}, nil
}
func (stubServer) RegistryAdd(context.Context, *protocol.RegistryAddParams) (*protocol.RegistryAddResult, error) {
	return &protocol.RegistryAddResult{}, nil
}

var (
	_ protocol.AppServer        = stubServer{}
	_ protocol.PrimitivesServer = stubServer{}
	_ protocol.RegistryService  = stubServer{}
)

func (stubServer) MCPPermissionsList(context.Context, *protocol.PermissionsListParams) (*protocol.PermissionsListResult, error) {
	return &protocol.PermissionsListResult{}, nil
}
func (stubServer) MCPPermissionsRevoke(context.Context, *protocol.PermissionsRevokeParams) (*protocol.PermissionsRevokeResult, error) {
	return &protocol.PermissionsRevokeResult{}, nil
}
