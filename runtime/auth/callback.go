package auth

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcp-host/mcp-host/displayurl"
)

// CheckBrowserURL returns an error unless raw may be opened in a browser: an
// https URL with a host, or an http URL on a loopback host, that
// displayurl.Parse accepts (no userinfo, no hidden characters, a valid
// host name). Every
// authorization URL the handler hands to a [LoginPrompter] passes it; a
// prompter that opens URLs it did not get from the handler should check
// them too. The error names the scheme and host, never the query.
func CheckBrowserURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("refusing to open an authorization URL that does not parse")
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme == "https" && u.Hostname() != "", scheme == "http" && isLoopbackHost(u.Hostname()):
		// What a person is shown of it must be where it goes.
		if _, err := displayurl.Parse(raw); err != nil {
			return fmt.Errorf("refusing to open a URL on host %q in a browser: %w", clean(u.Hostname(), maxShownCode), err)
		}
		return nil
	}
	return fmt.Errorf("refusing to open a %q URL on host %q in a browser: only https URLs, and http URLs on loopback, are opened", clean(scheme, 16), clean(u.Hostname(), maxShownCode))
}

// ParseCallback reads the parameters of an authorization response.
func ParseCallback(q url.Values) *CallbackResult {
	return &CallbackResult{
		Code:             q.Get("code"),
		State:            q.Get("state"),
		Iss:              q.Get("iss"),
		Error:            q.Get("error"),
		ErrorDescription: q.Get("error_description"),
	}
}

// ParsePastedRedirect reads the redirect URL a user pasted back after a
// login on another machine (headless or SSH sessions), or just its query
// string. redirectURI, if set, must match the pasted URL's scheme, host and
// path.
func ParsePastedRedirect(pasted, redirectURI string) (*CallbackResult, error) {
	s := strings.TrimSpace(pasted)
	if s == "" {
		return nil, errors.New("nothing pasted")
	}
	var q url.Values
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("pasted text is not a URL: %w", err)
		}
		if redirectURI != "" {
			want, err := url.Parse(redirectURI)
			if err == nil && (!strings.EqualFold(u.Scheme, want.Scheme) || !strings.EqualFold(u.Host, want.Host) || strings.TrimSuffix(u.Path, "/") != strings.TrimSuffix(want.Path, "/")) {
				return nil, fmt.Errorf("pasted URL does not start with the redirect URI %s", redirectURI)
			}
		}
		q = u.Query()
	} else {
		var err error
		if q, err = url.ParseQuery(strings.TrimPrefix(s, "?")); err != nil {
			return nil, fmt.Errorf("pasted text is not a query string: %w", err)
		}
	}
	res := ParseCallback(q)
	if res.Code == "" && res.Error == "" {
		return nil, errors.New("pasted URL has neither code nor error")
	}
	return res, nil
}
