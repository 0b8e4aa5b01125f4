package core

import (
	"fmt"
	"strings"
)

// RenderResult renders r as the text a text-only model receives: text blocks
// verbatim, embedded text resources with their URI, and a one-line
// placeholder for binary content and resource links. When r has no text
// content, its structured output is used. An error result starts with
// "Error: ". A nil result renders as "".
func RenderResult(r *Result) string {
	if r == nil {
		return ""
	}
	var parts []string
	for _, c := range r.Content {
		switch c.Type {
		case ContentText:
			parts = append(parts, c.Text)
		case ContentImage, ContentAudio:
			parts = append(parts, fmt.Sprintf("[%s: %s, %d bytes]", c.Type, orUnknown(c.MIMEType), len(c.Data)))
		case ContentLink:
			s := "[resource link: " + c.URI
			if label := firstNonEmpty(c.Title, c.Name); label != "" {
				s += " (" + label + ")"
			}
			parts = append(parts, s+"]")
		case ContentResource:
			if c.Data != nil && c.Text == "" {
				parts = append(parts, fmt.Sprintf("[resource %s: %s, %d bytes]", c.URI, orUnknown(c.MIMEType), len(c.Data)))
			} else {
				parts = append(parts, fmt.Sprintf("[resource %s]\n%s", c.URI, c.Text))
			}
		default:
			parts = append(parts, fmt.Sprintf("[%s content]", orUnknown(c.Type)))
		}
	}
	text := strings.Join(parts, "\n")
	if len(r.Content) == 0 && len(r.Structured) > 0 {
		text = string(r.Structured)
	}
	if r.IsError {
		return "Error: " + text
	}
	return text
}

// TextResult returns a result holding one text block.
func TextResult(text string) *Result {
	return &Result{Content: []Content{{Type: ContentText, Text: text}}}
}

// ErrorResult returns an error result holding one text block.
func ErrorResult(text string) *Result {
	return &Result{Content: []Content{{Type: ContentText, Text: text}}, IsError: true}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
