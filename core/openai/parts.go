package openai

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/mcp-host/mcp-host/core"
)

// A user message whose parts (core.Message.Result) hold images or audio
// goes to the model as content parts: its text first (which names every
// part, see core.RenderResult), then each image as an image_url data URL
// and each audio clip as input_audio. Only the formats the chat
// completions API accepts are sent; any other binary part stays named in
// the text. The runtime bounds the parts before they reach a message.

// wirePart is one content part of a user message.
type wirePart struct {
	Type       string        `json:"type"`
	Text       string        `json:"text,omitempty"`
	ImageURL   *wireImageURL `json:"image_url,omitempty"`
	InputAudio *wireAudio    `json:"input_audio,omitempty"`
}

type wireImageURL struct {
	URL string `json:"url"`
}

type wireAudio struct {
	Data   string `json:"data"`
	Format string `json:"format"`
}

// imageTypes are the image MIME types the API takes as data URLs.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// audioFormats maps the audio MIME types the API takes to its format names.
var audioFormats = map[string]string{"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}

// mediaType is the MIME type without parameters, lower case.
func mediaType(m string) string {
	m, _, _ = strings.Cut(m, ";")
	return strings.ToLower(strings.TrimSpace(m))
}

// userParts returns the content parts of a user message with text, or
// nil when it has no image or audio the API takes (it is sent as text).
func userParts(m core.Message, text string) []wirePart {
	if m.Role != core.RoleUser || m.Result == nil {
		return nil
	}
	var media []wirePart
	for _, c := range m.Result.Content {
		if len(c.Data) == 0 || (c.Type != core.ContentImage && c.Type != core.ContentAudio && c.Type != core.ContentResource) {
			continue
		}
		mt := mediaType(c.MIMEType)
		switch {
		case imageTypes[mt]:
			media = append(media, wirePart{Type: "image_url", ImageURL: &wireImageURL{URL: "data:" + mt + ";base64," + base64.StdEncoding.EncodeToString(c.Data)}})
		case audioFormats[mt] != "":
			media = append(media, wirePart{Type: "input_audio", InputAudio: &wireAudio{Data: base64.StdEncoding.EncodeToString(c.Data), Format: audioFormats[mt]}})
		}
	}
	if media == nil {
		return nil
	}
	return append([]wirePart{{Type: "text", Text: text}}, media...)
}

// MarshalJSON sends Parts, when there are any, as the message's content.
func (m wireMessage) MarshalJSON() ([]byte, error) {
	type plain wireMessage
	if len(m.Parts) == 0 {
		return json.Marshal(plain(m))
	}
	return json.Marshal(struct {
		plain
		Content []wirePart `json:"content"`
	}{plain(m), m.Parts})
}
