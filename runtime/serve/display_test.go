package serve

import (
	"strings"
	"testing"
)

// The authorization server is named in a login's consent by its display
// form: a look-alike issuer reads as its punycode, one with userinfo is
// marked as refused and has no host.
func TestIssuerForms(t *testing.T) {
	shown, host := issuerForms("https://\u0430pple.com/oauth")
	if shown != "https://xn--pple-43d.com/oauth" || host != "xn--pple-43d.com" {
		t.Errorf("look-alike issuer shown as %q, host %q", shown, host)
	}
	shown, host = issuerForms("https://apple.com@127.0.0.1:9/")
	if !strings.Contains(shown, "refused: it has userinfo") || host != "" {
		t.Errorf("issuer with userinfo shown as %q, host %q", shown, host)
	}
	if shown, host := issuerForms(""); shown != "" || host != "" {
		t.Errorf("no issuer shown as %q, %q", shown, host)
	}
}

// displayForm gives the protocol's fields, and refuses what displayurl
// refuses.
func TestDisplayForm(t *testing.T) {
	d, err := displayForm("https://b\u00fccher.example/x")
	if err != nil || d.DisplayURL != "https://xn--bcher-kva.example/x" || d.DisplayHost != "xn--bcher-kva.example (b\u00fccher.example)" {
		t.Errorf("displayForm = %+v, %v", d, err)
	}
	if _, err := displayForm("https://good.example@evil.example/"); err == nil {
		t.Error("displayForm accepted a URL with userinfo")
	}
}
