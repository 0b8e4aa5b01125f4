// Package openai is a [core.Provider] for the OpenAI chat completions API
// (POST {base}/chat/completions) and the servers that speak its wire format:
// OpenAI, Ollama, vLLM, LM Studio, llama.cpp and others. It streams with
// server-sent events, assembles streamed tool calls, and falls back to a
// plain JSON answer when a server does not stream.
//
// The API key is read from an environment variable named in [Options]; it is
// sent only in the Authorization header of requests to the configured base
// URL and never appears in errors or in the provider's printed form.
//
// Like all of core, it must not import anything but the standard library
// and core's own packages (core/...).
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/mcp-host/mcp-host/core"
)

// DefaultBaseURL is the OpenAI API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Options configure a [Provider].
type Options struct {
	// BaseURL is the API root that /chat/completions is appended to, for
	// example "http://127.0.0.1:11434/v1" for Ollama. Empty means
	// DefaultBaseURL.
	BaseURL string
	// Model is the model name sent with every request. Required.
	Model string
	// APIKeyEnv names the environment variable that holds the API key,
	// such as "OPENAI_API_KEY". Empty sends no Authorization header (local
	// servers); a name whose variable is unset or empty is an error.
	APIKeyEnv string
	// Headers are extra request headers (OpenAI-Organization, for instance).
	Headers map[string]string
	// Temperature, if set, is sent as "temperature".
	Temperature *float64
	// DisableStreaming sends "stream": false and reads one JSON answer.
	DisableStreaming bool
	// HTTPClient sends the requests; nil uses a client without an overall
	// timeout, since a streamed answer may take long: bound calls with the
	// context instead.
	HTTPClient *http.Client
}

// Provider talks to one chat completions endpoint with one model. It is safe
// for concurrent use.
type Provider struct {
	endpoint string // {base}/chat/completions
	shown    string // endpoint without user info, for errors
	model    string
	key      string
	headers  map[string]string
	temp     *float64
	noStream bool
	client   *http.Client
}

// New returns a provider for opts. It reads the API key from the environment
// now.
func New(opts Options) (*Provider, error) {
	if opts.Model == "" {
		return nil, errors.New("openai: no model configured")
	}
	base := opts.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(strings.TrimRight(base, "/") + "/chat/completions")
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai: base URL %q: want an absolute http or https URL", redactURL(base))
	}
	p := &Provider{
		endpoint: u.String(),
		shown:    u.Redacted(),
		model:    opts.Model,
		headers:  opts.Headers,
		temp:     opts.Temperature,
		noStream: opts.DisableStreaming,
		client:   opts.HTTPClient,
	}
	if p.client == nil {
		p.client = &http.Client{}
	}
	if opts.APIKeyEnv != "" {
		p.key = os.Getenv(opts.APIKeyEnv)
		if p.key == "" {
			return nil, fmt.Errorf("openai: API key environment variable %s is not set", opts.APIKeyEnv)
		}
	}
	return p, nil
}

// String describes the provider without its API key.
func (p *Provider) String() string {
	return fmt.Sprintf("openai provider (model %s at %s)", p.model, p.shown)
}

// Format prints p as [Provider.String] for every verb, so that no format
// verb can print the API key.
func (p *Provider) Format(f fmt.State, verb rune) { io.WriteString(f, p.String()) }

// Stream sends req and streams the answer; see [core.Provider].
func (p *Provider) Stream(ctx context.Context, req core.Request, onDelta func(core.Delta)) (*core.Response, error) {
	body, err := json.Marshal(p.wireRequest(req))
	if err != nil {
		return nil, fmt.Errorf("openai: encode request: %w", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("openai: POST %s: %w", p.shown, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if p.noStream {
		hreq.Header.Set("Accept", "application/json")
	} else {
		hreq.Header.Set("Accept", "text/event-stream")
	}
	for k, v := range p.headers {
		hreq.Header.Set(k, v)
	}
	if p.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+p.key)
	}
	resp, err := p.client.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("openai: POST %s: %w", p.shown, p.scrub(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, p.httpError(resp)
	}
	var out *core.Response
	if strings.Contains(resp.Header.Get("Content-Type"), "application/json") {
		out, err = p.readJSON(resp.Body, onDelta)
	} else {
		out, err = p.readStream(resp.Body, onDelta)
	}
	if err != nil {
		return nil, fmt.Errorf("openai: POST %s: %w", p.shown, p.scrub(err))
	}
	return out, nil
}

// scrub removes the API key from err's message, in case a server or a
// transport echoed it.
func (p *Provider) scrub(err error) error {
	if p.key == "" || !strings.Contains(err.Error(), p.key) {
		return err
	}
	return &scrubbedError{msg: p.redact(err.Error()), cause: err}
}

// scrubbedError carries a redacted message. It matches its cause with
// errors.Is (context.Canceled, for instance) but does not unwrap to it, so
// the unredacted message cannot be printed by accident.
type scrubbedError struct {
	msg   string
	cause error
}

func (e *scrubbedError) Error() string        { return e.msg }
func (e *scrubbedError) Is(target error) bool { return errors.Is(e.cause, target) }

func (p *Provider) redact(s string) string {
	if p.key == "" {
		return s
	}
	return strings.ReplaceAll(s, p.key, "[redacted]")
}

func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return s
}
