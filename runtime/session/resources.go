package session

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxListPages bounds the pages followed by the resource and prompt lists.
const MaxListPages = 100

// ReadResource reads one resource, with the session's timeout.
func (s *Session) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	var res *mcp.ReadResourceResult
	err := s.do(ctx, "resources/read", uri, func(ctx context.Context, cs *mcp.ClientSession) error {
		var err error
		res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		return err
	})
	return res, err
}

// paged follows cursors with a page cap and a cycle guard.
func paged[T any](s *Session, ctx context.Context, method string, page func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]T, string, error)) ([]T, error) {
	var out []T
	seen := map[string]bool{}
	cursor := ""
	for range MaxListPages {
		var items []T
		var next string
		err := s.do(ctx, method, "", func(ctx context.Context, cs *mcp.ClientSession) error {
			var err error
			items, next, err = page(ctx, cs, cursor)
			return err
		})
		if err != nil {
			return out, err
		}
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		if seen[next] {
			return out, fmt.Errorf("server %q: %s: cursor %q repeated (cycle); stopped", s.opts.ID, method, next)
		}
		seen[next] = true
		cursor = next
	}
	return out, fmt.Errorf("server %q: %s: more than %d pages (page cap); stopped", s.opts.ID, method, MaxListPages)
}

// ListResources lists every resource, following cursors.
func (s *Session) ListResources(ctx context.Context) ([]*mcp.Resource, error) {
	return paged(s, ctx, "resources/list", func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]*mcp.Resource, string, error) {
		r, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	})
}

// ListResourceTemplates lists every resource template, following cursors.
func (s *Session) ListResourceTemplates(ctx context.Context) ([]*mcp.ResourceTemplate, error) {
	return paged(s, ctx, "resources/templates/list", func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]*mcp.ResourceTemplate, string, error) {
		r, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.ResourceTemplates, r.NextCursor, nil
	})
}

// ListPrompts lists every prompt, following cursors.
func (s *Session) ListPrompts(ctx context.Context) ([]*mcp.Prompt, error) {
	return paged(s, ctx, "prompts/list", func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]*mcp.Prompt, string, error) {
		r, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	})
}

// GetPrompt renders one prompt with its arguments.
func (s *Session) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	var res *mcp.GetPromptResult
	err := s.do(ctx, "prompts/get", name, func(ctx context.Context, cs *mcp.ClientSession) error {
		var err error
		res, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		return err
	})
	return res, err
}

// Complete asks the server for completions of one argument of a prompt
// (ref/prompt) or resource template (ref/resource): completion/complete.
// A server that did not declare the completions capability is not asked:
// the error says so.
func (s *Session) Complete(ctx context.Context, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	if caps := s.Info().Capabilities; caps == nil || caps.Completions == nil {
		return nil, fmt.Errorf("server %q does not offer completions", s.opts.ID)
	}
	var res *mcp.CompleteResult
	err := s.do(ctx, "completion/complete", params.Argument.Name, func(ctx context.Context, cs *mcp.ClientSession) error {
		var err error
		res, err = cs.Complete(ctx, params)
		return err
	})
	return res, err
}

// Subscribe asks the server to report changes of the resource uri
// (resources/subscribe); they arrive at Options.OnResourceUpdated. A server
// that did not declare resources.subscribe is not asked.
func (s *Session) Subscribe(ctx context.Context, uri string) error {
	if caps := s.Info().Capabilities; caps == nil || caps.Resources == nil || !caps.Resources.Subscribe {
		return fmt.Errorf("server %q does not offer resource subscriptions", s.opts.ID)
	}
	return s.do(ctx, "resources/subscribe", uri, func(ctx context.Context, cs *mcp.ClientSession) error {
		return cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	})
}

// Unsubscribe ends a subscription Subscribe made (resources/unsubscribe).
func (s *Session) Unsubscribe(ctx context.Context, uri string) error {
	return s.do(ctx, "resources/unsubscribe", uri, func(ctx context.Context, cs *mcp.ClientSession) error {
		return cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	})
}

// resourceUpdated passes a server's notifications/resources/updated on.
func (s *Session) resourceUpdated(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
	if s.opts.OnResourceUpdated == nil || req == nil || req.Params == nil {
		return
	}
	s.opts.OnResourceUpdated(req.Params.URI)
}
