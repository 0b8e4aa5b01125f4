package redact

import (
	"net/http"
	"strings"
	"testing"
)

func TestJSONMasksSecretsAndKeepsTheRest(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":3,"result":{"value":"http://127.0.0.1:5000/callback?code=abc123&state=s1&iss=x","access_token":"tok-1","nested":{"Refresh-Token":"rt-9","n":1.50},"list":["Bearer eyJhbGciOi.x.y",{"client_secret":"cs"}],"token":{"kept":"structure"}}}`
	out := string(JSON([]byte(in)))
	for _, secret := range []string{"abc123", "tok-1", "rt-9", "eyJhbGciOi", `"cs"`} {
		if strings.Contains(out, secret) {
			t.Errorf("%q survived: %s", secret, out)
		}
	}
	for _, kept := range []string{"state=s1", `"id":3`, `"n":1.50`, "Bearer ***", `"kept":"structure"`, "127.0.0.1:5000/callback"} {
		if !strings.Contains(out, kept) {
			t.Errorf("%q lost: %s", kept, out)
		}
	}
}

func TestNotJSONIsMaskedAsText(t *testing.T) {
	out := string(JSON([]byte(`oops Authorization: DPoP abc.def and https://x.example/cb?code=zz`)))
	if strings.Contains(out, "abc.def") || strings.Contains(out, "zz") {
		t.Errorf("text not masked: %s", out)
	}
}

func TestHeaderAndURL(t *testing.T) {
	h := Header(http.Header{"Authorization": {"Bearer t0k"}, "Dpop": {"proof"}, "Mcp-Session-Id": {"s"}, "Cookie": {"a=b"}})
	if h.Get("Authorization") != "Bearer ***" || h.Get("Dpop") != Mask || h.Get("Cookie") != Mask || h.Get("Mcp-Session-Id") != "s" {
		t.Errorf("headers: %v", h)
	}
	if got := URL("https://u:pw@x.example/p?client_secret=s&x=1"); strings.Contains(got, "pw") || strings.Contains(got, "=s&") || !strings.Contains(got, "x=1") {
		t.Errorf("URL: %s", got)
	}
	if got := URL("https://x.example/p?x=1"); got != "https://x.example/p?x=1" {
		t.Errorf("a URL without secrets changed: %s", got)
	}
}
