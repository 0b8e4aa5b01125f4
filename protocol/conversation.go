package protocol

import "context"

// MethodConversationEnd ends a conversation (ConversationParams): the
// runtime forgets its history, cancels its run in progress, and removes
// the tool results it kept whole for the model (mcp_result_read).
const MethodConversationEnd = "conversation.end"

// ConversationServer is what the runtime does with a UI's conversations
// beyond running turns. `host serve` implements it;
// [NewConversationCaller] implements it over a connection.
type ConversationServer interface {
	ConversationEnd(ctx context.Context, p *ConversationParams) (*Empty, error)
}

// ConversationParams name a conversation: the id run.start answered.
type ConversationParams struct {
	Conversation string `json:"conversation"`
}

func (p *ConversationParams) validate(m string) *Error {
	if p.Conversation == "" {
		return required(m, "conversation", "the conversation run.start answered")
	}
	return nil
}

// addConversationMethods adds conversation.end to t when s implements
// ConversationServer.
func addConversationMethods(t table, s Server) {
	if c, ok := s.(ConversationServer); ok {
		t[MethodConversationEnd] = strict(MethodConversationEnd, c.ConversationEnd)
	}
}

// conversationCaller implements ConversationServer over a Conn.
type conversationCaller struct{ c *Conn }

// NewConversationCaller returns a ConversationServer whose methods send
// conversation.* requests to the runtime over c.
func NewConversationCaller(c *Conn) ConversationServer { return conversationCaller{c} }

func (a conversationCaller) ConversationEnd(ctx context.Context, p *ConversationParams) (*Empty, error) {
	return call[Empty](ctx, a.c, MethodConversationEnd, p)
}
