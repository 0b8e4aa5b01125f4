package adapter

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-host/mcp-host/core"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResultReadTool is the name of the host tool that reads a kept result
// (see [Keeper]); the note of a result cut at the output budget names it.
const ResultReadTool = "mcp_result_read"

// A Keeper keeps whole the results that are cut at the output budget, so
// that the model can read the rest through [ResultReadTool]. Keep calls
// write with the file to write the result's text to and answers what it
// kept.
type Keeper interface {
	Keep(server, tool string, write func(io.Writer) error) (Kept, error)
}

// Kept describes a result kept whole.
type Kept struct {
	// ID names it for [ResultReadTool].
	ID string
	// Bytes and Lines are its size.
	Bytes int64
	Lines int
}

type keeperKey struct{}

// WithKeeper returns ctx with k: the adapters' calls under it keep whole
// the results they cut.
func WithKeeper(ctx context.Context, k Keeper) context.Context {
	return context.WithValue(ctx, keeperKey{}, k)
}

func keeperFrom(ctx context.Context) Keeper {
	k, _ := ctx.Value(keeperKey{}).(Keeper)
	return k
}

// truncatedPrefix starts the note of a cut result.
const truncatedPrefix = "[output truncated: "

// convertKeeping is [ConvertResult] that, when the result is cut, hands
// the whole of it as text to k and tells the model in the note how to
// read the rest.
func convertKeeping(res *mcp.CallToolResult, maxOut int, k Keeper, server, tool string) *core.Result {
	out, cut := convert(res, maxOut)
	if !cut {
		return out
	}
	note := -1
	for i := len(out.Content) - 1; i >= 0; i-- {
		if c := out.Content[i]; c.Type == core.ContentText && strings.HasPrefix(c.Text, truncatedPrefix) {
			note = i
			break
		}
	}
	if note < 0 {
		return out // cannot happen: convert adds the note when it cuts
	}
	kept, err := k.Keep(server, tool, func(w io.Writer) error { return writeWhole(w, res) })
	if err != nil {
		out.Content[note].Text += fmt.Sprintf(" [the whole result could not be kept: %v]", err)
		return out
	}
	shown := 0
	for i, c := range out.Content[:note] {
		if i > 0 {
			shown++
		}
		shown += len(render(c))
	}
	out.Content[note].Text = fmt.Sprintf("[output truncated at the output budget: shown are the first %d of %d bytes (%d lines). "+
		"The whole result is kept for this conversation as id %q: read the rest with the tool %s, "+
		`e.g. {"id": %q, "offset": %d, "length": %d}, or {"id": %q, "lines": "1-200"}, or {"id": %q, "search": "a term"}]`,
		shown, kept.Bytes, kept.Lines, kept.ID, ResultReadTool, kept.ID, shown, maxOut, kept.ID, kept.ID)
	return out
}

// writeWhole writes the result as text: its blocks one after another
// (separated by a newline), then its structured content as JSON.
func writeWhole(w io.Writer, res *mcp.CallToolResult) error {
	for i, c := range res.Content {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if _, err := io.WriteString(w, render(convertContent(c))); err != nil {
			return err
		}
	}
	if s, _ := encodeStructured(res.StructuredContent); len(s) > 0 {
		if _, err := io.WriteString(w, "\n[structured content]\n"); err != nil {
			return err
		}
		if _, err := w.Write(s); err != nil {
			return err
		}
	}
	return nil
}

// render is a block as the kept text shows it: text as it is, other
// blocks as a bracketed line (binary data is not kept).
func render(c core.Content) string {
	switch {
	case c.Data != nil:
		return fmt.Sprintf("[%s %s: %d bytes of data, not kept]", c.Type, c.MIMEType, len(c.Data))
	case c.Type == core.ContentLink:
		return fmt.Sprintf("[link %s %s] %s", c.URI, c.Name, c.Text)
	}
	return c.Text
}
