package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwk"
)

// Token endpoint auth methods.
const (
	AuthMethodBasic = "client_secret_basic"
	AuthMethodPost  = "client_secret_post"
	AuthMethodNone  = "none"
)

const maxTokenResponseBytes = 1 << 20

// tokenResponse is a successful token endpoint answer.
type tokenResponse struct {
	token  Token
	scopes []string // nil when the server did not say
	// issuedType is RFC 8693's issued_token_type, for token exchanges.
	issuedType string
}

// tokenRequest posts form to the token endpoint with the client's
// authentication and returns the token. With dp set the request carries a
// DPoP proof signed with dp's key (generated into dp the first time), is
// retried once with the server's nonce when it asks for one, and may return a
// DPoP-bound token. Errors never contain the form, the response body or any
// secret.
func (h *Handler) tokenRequest(ctx context.Context, endpoint string, cl *Client, form url.Values, dp *Record) (*tokenResponse, error) {
	form = cloneValues(form)
	basic, err := h.authenticate(cl, form)
	if err != nil {
		return nil, err
	}
	secrets := formSecrets(form, cl, basic)
	var key jwk.Key
	if dp != nil {
		var err error
		if key, err = h.dpopKey(dp); err != nil {
			return nil, err
		}
	}
	body := form.Encode()
	var (
		resp *http.Response
		data []byte
	)
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("token endpoint %s: %w", showURL(endpoint), err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		if basic != "" {
			req.Header.Set("Authorization", "Basic "+basic)
		}
		if key != nil {
			proof, err := h.dpopProof(key, http.MethodPost, endpoint, "", h.nonce(endpoint))
			if err != nil {
				return nil, err
			}
			req.Header.Set("DPoP", proof)
		}
		resp, err = h.noRedirect.Do(req)
		if err != nil {
			return nil, &OAuthError{Endpoint: "token", Description: redactURLError(err)}
		}
		data, err = io.ReadAll(io.LimitReader(resp.Body, maxTokenResponseBytes))
		resp.Body.Close()
		if err != nil {
			return nil, &OAuthError{Endpoint: "token", StatusCode: resp.StatusCode, Description: "reading response: " + clean(err.Error(), maxShownText)}
		}
		fresh := key != nil && h.noteNonce(endpoint, resp.Header)
		if resp.StatusCode == http.StatusOK {
			break
		}
		oe := oauthErrorFrom("token", resp.StatusCode, data, secrets...)
		oe.RetryAfter = retryAfter(resp.Header, h.now())
		if attempt == 0 && fresh && oe.Code == dpopNonceError {
			continue // RFC 9449 section 8: retry with the server's nonce
		}
		return nil, oe
	}
	var raw struct {
		AccessToken  string          `json:"access_token"`
		TokenType    string          `json:"token_type"`
		ExpiresIn    json.RawMessage `json:"expires_in"`
		RefreshToken string          `json:"refresh_token"`
		Scope        *string         `json:"scope"`
		IssuedType   string          `json:"issued_token_type"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, &OAuthError{Endpoint: "token", StatusCode: resp.StatusCode, Description: "response is not a JSON token object", Excerpt: clean(string(data), 0, secrets...)}
	}
	if raw.AccessToken == "" {
		return nil, &OAuthError{Endpoint: "token", StatusCode: resp.StatusCode, Description: "response has no access_token", Excerpt: clean(string(data), 0, secrets...)}
	}
	tokenType := "Bearer"
	switch {
	case raw.TokenType == "" || strings.EqualFold(raw.TokenType, "bearer"):
	case key != nil && strings.EqualFold(raw.TokenType, tokenTypeDPoP):
		tokenType = tokenTypeDPoP
	case form.Get("grant_type") == tokenExchangeGrant && strings.EqualFold(raw.TokenType, "N_A"):
		tokenType = "N_A" // RFC 8693: the issued token is not an access token
	default:
		return nil, &OAuthError{Endpoint: "token", StatusCode: resp.StatusCode, Description: fmt.Sprintf("unsupported token_type %q", clean(raw.TokenType, maxShownCode, secrets...))}
	}
	tr := &tokenResponse{token: Token{
		AccessToken:  raw.AccessToken,
		TokenType:    tokenType,
		RefreshToken: raw.RefreshToken,
	}}
	// Wall clock only (Round(0) drops the monotonic reading): the
	// authorization server judges expiry by its own wall clock, and a
	// monotonic reading, which stands still while the machine sleeps,
	// would keep a token that died overnight looking alive in this
	// process. A stored token has no monotonic reading either, so a token
	// is judged the same before and after a restart.
	tr.token.IssuedAt = h.now().Round(0)
	if secs := parseExpiresIn(raw.ExpiresIn); secs > 0 {
		tr.token.ExpiresAt = tr.token.IssuedAt.Add(time.Duration(secs) * time.Second)
	}
	tr.issuedType = raw.IssuedType
	if raw.Scope != nil {
		tr.scopes = strings.Fields(*raw.Scope)
	}
	return tr, nil
}

// authenticate adds the client's authentication for its token endpoint
// auth method to form, and returns the credentials for an "Authorization:
// Basic" header when the method takes one.
func (h *Handler) authenticate(cl *Client, form url.Values) (basic string, err error) {
	switch cl.AuthMethod {
	case AuthMethodBasic:
		return base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(cl.ClientID) + ":" + url.QueryEscape(cl.ClientSecret))), nil
	case AuthMethodPost:
		form.Set("client_id", cl.ClientID)
		form.Set("client_secret", cl.ClientSecret)
	case AuthMethodPrivateKeyJWT:
		assertion, err := h.clientAssertion(cl)
		if err != nil {
			return "", err
		}
		form.Set("client_id", cl.ClientID)
		form.Set("client_assertion_type", clientAssertionType)
		form.Set("client_assertion", assertion)
	default:
		form.Set("client_id", cl.ClientID)
	}
	return "", nil
}

func parseExpiresIn(raw json.RawMessage) int64 {
	if len(raw) == 0 {
		return 0
	}
	s := strings.Trim(string(raw), `"`)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return int64(f)
	}
	return 0
}

// oauthErrorFrom builds an OAuthError from an error response body, keeping
// only the standard error and error_description fields, or an excerpt of a
// body that has neither; secrets (those of the request) are masked.
func oauthErrorFrom(endpoint string, status int, body []byte, secrets ...string) *OAuthError {
	e := &OAuthError{Endpoint: endpoint, StatusCode: status}
	var v struct {
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
	}
	if json.Unmarshal(body, &v) == nil && v.Error != "" {
		e.Code = clean(v.Error, maxShownCode, secrets...)
		e.Description = clean(v.ErrorDescription, maxShownText, secrets...)
		return e
	}
	e.Excerpt = clean(string(body), 0, secrets...)
	return e
}

// redactURLError describes a transport error with the URL shortened and
// without its query, where a secret could be.
func redactURLError(err error) string {
	if ue, ok := err.(*url.Error); ok {
		u, perr := url.Parse(ue.URL)
		if perr == nil {
			u.RawQuery, u.User = "", nil
			return fmt.Sprintf("%s %s: %v", ue.Op, showURL(u.String()), ue.Err)
		}
		return fmt.Sprintf("%s: %v", ue.Op, ue.Err)
	}
	return err.Error()
}

func cloneValues(v url.Values) url.Values {
	c := make(url.Values, len(v)+2)
	for k, vs := range v {
		c[k] = append([]string(nil), vs...)
	}
	return c
}
