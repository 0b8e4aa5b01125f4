// Package redact masks secrets in text that is about to be logged: JSON
// messages, URLs and HTTP headers. It errs on the side of masking: a value
// under a key that names a secret, a query parameter that carries one, and
// the credentials of an Authorization-style value all become "***".
//
// Every layer uses it, so it must not import runtime or runtime/serve.
package redact

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Mask replaces a secret.
const Mask = "***"

// secretKeys are JSON keys, query parameters and header names (compared in
// lower case, with '-' read as '_') whose values are secrets.
var secretKeys = map[string]bool{
	"access_token": true, "refresh_token": true, "id_token": true, "token": true,
	"code": true, "code_verifier": true, "client_secret": true, "client_assertion": true,
	"assertion": true, "subject_token": true, "actor_token": true, "password": true,
	"secret": true, "api_key": true, "apikey": true, "authorization": true,
	"proxy_authorization": true, "cookie": true, "set_cookie": true, "dpop": true,
	"private_key": true, "private_key_pem": true, "dpop_key": true, "x_api_key": true,
}

// IsSecretKey reports whether a field, parameter or header of that name
// holds a secret.
func IsSecretKey(name string) bool {
	return secretKeys[strings.ReplaceAll(strings.ToLower(name), "-", "_")]
}

// schemeCredentials finds the credentials of Authorization-style values in
// free text: "Bearer abc", "DPoP abc", "Basic abc".
var schemeCredentials = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(bearer|dpop|basic)\s+[A-Za-z0-9\-._~+/]+=*`) })

// String masks the secrets [Register] knows, the credentials of
// Authorization-style values in s and the secret query parameters of any
// URL in it.
func String(s string) string {
	s = Registered(s)
	s = schemeCredentials().ReplaceAllString(s, "$1 "+Mask)
	if strings.Contains(s, "?") && strings.Contains(s, "=") {
		s = urlsIn().ReplaceAllStringFunc(s, URL)
	}
	return s
}

// queryEscape is url.QueryEscape, named for what Registered needs.
func queryEscape(s string) string { return url.QueryEscape(s) }

var urlsIn = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]+`) })

// URL masks the registered secrets (see [Register]) and the secret query
// parameters (code, state is kept) of a URL. A string that does not parse
// is returned with only the registered secrets masked.
func URL(raw string) string {
	raw = Registered(raw)
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery == "" {
		return raw
	}
	q := u.Query()
	changed := false
	for k := range q {
		if IsSecretKey(k) {
			q[k] = []string{Mask}
			changed = true
		}
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), Mask)
			changed = true
		}
	}
	if !changed {
		return raw
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// Header returns a copy of h with secret headers masked, and registered
// secrets (see [Register]) masked in the others.
func Header(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		if IsSecretKey(k) {
			masked := make([]string, len(vs))
			for i, v := range vs {
				if scheme, _, ok := strings.Cut(v, " "); ok && !IsSecretKey(scheme) {
					masked[i] = scheme + " " + Mask
				} else {
					masked[i] = Mask
				}
			}
			out[k] = masked
			continue
		}
		kept := make([]string, len(vs))
		for i, v := range vs {
			kept[i] = Registered(v)
		}
		out[k] = kept
	}
	return out
}

// JSON returns data with every value under a secret key masked and every
// string passed through String. Data that is not JSON is treated as text.
func JSON(data []byte) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return []byte(String(string(data)))
	}
	out, err := json.Marshal(walk(v))
	if err != nil {
		return []byte(String(string(data)))
	}
	return out
}

func walk(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if IsSecretKey(k) {
				if _, isObj := x.(map[string]any); !isObj {
					t[k] = Mask
					continue
				}
			}
			t[k] = walk(x)
		}
		return t
	case []any:
		for i, x := range t {
			t[i] = walk(x)
		}
		return t
	case string:
		return String(t)
	}
	return v
}
