package protocol_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
)

// appServer answers app.call_tool; the other app methods are not needed.
type appServer struct {
	fakeServer
	protocol.AppServer
}

func (s *appServer) AppCallTool(_ context.Context, p *protocol.AppCallToolParams) (*protocol.ToolCallResult, error) {
	if p.AppID != "app1" {
		return nil, protocol.NewError(protocol.CodeUnknownApp, protocol.ErrorData{AppID: p.AppID}, "no app instance %q", p.AppID)
	}
	return &protocol.ToolCallResult{DecidedBy: "user", App: &protocol.AppInstance{ID: p.AppID, Server: "s", Tool: p.Tool}}, nil
}

// The app.* methods reach a Server that implements AppServer, and are
// unknown methods for one that does not.
func TestAppMethodsDispatch(t *testing.T) {
	ctx := context.Background()
	ui, _ := pair(t, nil, protocol.ServerHandler(&appServer{}), protocol.ConnOptions{})
	apps := protocol.NewAppCaller(ui)
	got, err := apps.AppCallTool(ctx, &protocol.AppCallToolParams{AppID: "app1", Tool: "refresh"})
	if err != nil || got.App == nil || got.App.Tool != "refresh" {
		t.Fatalf("AppCallTool = %+v, %v", got, err)
	}
	_, err = apps.AppCallTool(ctx, &protocol.AppCallToolParams{AppID: "nope", Tool: "refresh"})
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.CodeUnknownApp || protocol.DataOf(err).Kind != protocol.KindUnknownApp || protocol.DataOf(err).AppID != "nope" {
		t.Errorf("unknown app: err = %v, data %+v", err, protocol.DataOf(err))
	}
	_, err = apps.AppCallTool(ctx, &protocol.AppCallToolParams{Tool: "refresh"})
	if !errors.As(err, &perr) || perr.Code != protocol.CodeInvalidParams || protocol.DataOf(err).Field != "app_id" {
		t.Errorf("missing app_id: err = %v", err)
	}
	_, err = apps.AppOpenLink(ctx, &protocol.AppOpenLinkParams{AppID: "app1"})
	if !errors.As(err, &perr) || perr.Code != protocol.CodeInvalidParams || protocol.DataOf(err).Field != "url" {
		t.Errorf("missing url: err = %v", err)
	}

	plain, _ := pair(t, nil, protocol.ServerHandler(&fakeServer{}), protocol.ConnOptions{})
	_, err = protocol.NewAppCaller(plain).AppCallTool(ctx, &protocol.AppCallToolParams{AppID: "app1", Tool: "refresh"})
	if !errors.As(err, &perr) || perr.Code != protocol.CodeMethodNotFound {
		t.Errorf("server without apps: err = %v", err)
	}
}
