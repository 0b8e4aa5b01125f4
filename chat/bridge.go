// Package chat is `host chat`, the reference terminal UI. It runs `host
// serve` as a child process and speaks exactly the UI protocol to it (see
// protocol/PROTOCOL.md): prompts become run.start, the runtime's
// agent.event, mcp.status and run.status notifications update the screen,
// and its ui.confirm / ui.prompt / ui.elicit requests become questions the
// person answers. The screen is a bubbletea program.
//
// It must not import the runtime: it speaks only the protocol, as any UI
// does.
package chat

import (
	"context"
	"errors"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mcp-host/mcp-host/protocol"
)

// bridge is the protocol.Client of the chat: notifications become tea
// messages; requests become questions and block until the person answers
// (or the runtime gives up).
type bridge struct {
	send func(tea.Msg)
}

// Messages the bridge sends to the model.
type (
	statusMsg struct{ p protocol.MCPStatusParams }
	runMsg    struct{ p protocol.RunStatusParams }
	eventMsg  struct{ p protocol.AgentEventParams }
	logMsg    struct{ p protocol.LogParams }

	// askMsg is a question from the runtime; the model answers on reply.
	askMsg struct {
		confirm *protocol.ConfirmParams
		prompt  *protocol.PromptParams
		elicit  *protocol.ElicitParams
		reply   chan answer
	}
)

type answer struct {
	confirm *protocol.ConfirmResult
	prompt  *protocol.PromptResult
	elicit  *protocol.ElicitResult
}

var errNoAnswer = errors.New("no answer")

func (b *bridge) ask(ctx context.Context, m askMsg) (answer, error) {
	m.reply = make(chan answer, 1)
	b.send(m)
	select {
	case a := <-m.reply:
		return a, nil
	case <-ctx.Done():
		b.send(cancelAskMsg{})
		return answer{}, ctx.Err()
	}
}

// cancelAskMsg withdraws the open question (the runtime stopped waiting).
type cancelAskMsg struct{}

func (b *bridge) Confirm(ctx context.Context, p *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
	a, err := b.ask(ctx, askMsg{confirm: p})
	if err != nil || a.confirm == nil {
		return nil, errors.Join(errNoAnswer, err)
	}
	return a.confirm, nil
}

func (b *bridge) Prompt(ctx context.Context, p *protocol.PromptParams) (*protocol.PromptResult, error) {
	a, err := b.ask(ctx, askMsg{prompt: p})
	if err != nil || a.prompt == nil {
		return nil, errors.Join(errNoAnswer, err)
	}
	return a.prompt, nil
}

// OpenURL is never asked: chat does not declare open_url, so the runtime
// opens the system browser itself or asks for the pasted redirect.
func (b *bridge) OpenURL(context.Context, *protocol.OpenURLParams) (*protocol.OpenURLResult, error) {
	return &protocol.OpenURLResult{Opened: false}, nil
}

func (b *bridge) Elicit(ctx context.Context, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	a, err := b.ask(ctx, askMsg{elicit: p})
	if err != nil || a.elicit == nil {
		return &protocol.ElicitResult{Action: "decline"}, nil
	}
	return a.elicit, nil
}

func (b *bridge) MCPStatus(_ context.Context, p *protocol.MCPStatusParams) error {
	b.send(statusMsg{*p})
	return nil
}

func (b *bridge) RunStatus(_ context.Context, p *protocol.RunStatusParams) error {
	b.send(runMsg{*p})
	return nil
}

func (b *bridge) AgentEvent(_ context.Context, p *protocol.AgentEventParams) error {
	b.send(eventMsg{*p})
	return nil
}

func (b *bridge) Log(_ context.Context, p *protocol.LogParams) error {
	b.send(logMsg{*p})
	return nil
}
