package displayurl_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/displayurl"
)

func TestParseShowsTheASCIIHost(t *testing.T) {
	cases := []struct {
		raw, host, unicode, display string
	}{
		// A Cyrillic "а" in a Latin name: mixed scripts, no Unicode form.
		{"https://\u0430pple.com/login?x=1", "xn--pple-43d.com", "", "https://xn--pple-43d.com/login?x=1"},
		// The same, sent already in punycode.
		{"https://xn--pple-43d.com/", "xn--pple-43d.com", "", "https://xn--pple-43d.com/"},
		// Percent-encoded in the host: the same host.
		{"https://%D0%B0pple.com/", "xn--pple-43d.com", "", "https://xn--pple-43d.com/"},
		// One script per label: the Unicode form goes beside it.
		{"https://b\u00fccher.example:8443/a", "xn--bcher-kva.example:8443", "b\u00fccher.example:8443", "https://xn--bcher-kva.example:8443/a"},
		{"https://\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444/", "xn--e1afmkfd.xn--p1ai", "\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444", "https://xn--e1afmkfd.xn--p1ai/"},
		// All Cyrillic letters that copy "apple", under a Latin TLD: two
		// scripts, no Unicode form.
		{"https://\u0430\u0440\u0440\u04cf\u0435.com/", "xn--80ak6aa92e.com", "", "https://xn--80ak6aa92e.com/"},
		// Case and full-width letters fold as a browser folds them.
		{"https://EXAMPLE.com/P", "example.com", "", "https://example.com/P"},
		{"https://\uff45xample.com/", "example.com", "", "https://example.com/"},
		{"http://127.0.0.1:8080/cb", "127.0.0.1:8080", "", "http://127.0.0.1:8080/cb"},
		{"http://[::1]:9/", "[::1]:9", "", "http://[::1]:9/"},
		{"https://my_host.internal/", "my_host.internal", "", "https://my_host.internal/"},
	}
	for _, c := range cases {
		u, err := displayurl.Parse(c.raw)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.raw, err)
			continue
		}
		if u.Host != c.host || u.Unicode != c.unicode || u.Display != c.display || u.Raw != c.raw {
			t.Errorf("Parse(%q) = host %q unicode %q display %q raw %q; want %q %q %q", c.raw, u.Host, u.Unicode, u.Display, u.Raw, c.host, c.unicode, c.display)
		}
	}
}

func TestHostText(t *testing.T) {
	u, err := displayurl.Parse("https://b\u00fccher.example/")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := u.HostText(), "xn--bcher-kva.example (b\u00fccher.example)"; got != want {
		t.Errorf("HostText = %q, want %q", got, want)
	}
	u, _ = displayurl.Parse("https://\u0430pple.com/")
	if got, want := u.HostText(), "xn--pple-43d.com"; got != want {
		t.Errorf("HostText = %q, want %q", got, want)
	}
}

func TestParseRefuses(t *testing.T) {
	cases := []struct {
		raw  string
		want error
	}{
		{"https://good.com@evil.com/", displayurl.ErrUserinfo},
		{"https://good.com:pw@evil.com/", displayurl.ErrUserinfo},
		{"https://apple.com\u202e/moc.live", displayurl.ErrHidden},
		{"https://app\u200ble.com/", displayurl.ErrHidden},
		{"https://apple.com/\u2066x", displayurl.ErrHidden},
		{"https://apple.com/ x", displayurl.ErrHidden},
		{"https://apple.com/\u00a0x", displayurl.ErrHidden},
		{"https://apple.com/\x1b[2J", displayurl.ErrHidden},
		{"https://apple.com/\xff", displayurl.ErrHidden},
		{"https://apple.com/a\ufe0f", displayurl.ErrHidden},
		// Hidden in the host by percent-encoding: the decoded name is
		// what a resolver and ToASCII see (FuzzParse found the first).
		{"https://b\u00fccher%80.example/", displayurl.ErrHidden},
		{"https://apple.com%E2%80%AE/moc.live", displayurl.ErrHidden},
		{"https://app%E2%80%8Ble.com/", displayurl.ErrHidden},
		{"https://good.com%40evil.com/", nil},
		{"https:///nohost", nil},
		{"https://-bad-.com/", nil},
		{"::not a url", nil},
	}
	for _, c := range cases {
		u, err := displayurl.Parse(c.raw)
		if err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", c.raw, u)
			continue
		}
		if c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("Parse(%q) error %v, want %v", c.raw, err, c.want)
		}
		for _, r := range err.Error() {
			if r < 0x20 || (r >= 0x200b && r <= 0x206f) || r == 0xfffd && strings.Contains(c.raw, "\ufffd") {
				t.Errorf("Parse(%q) error quotes a hidden character: %q", c.raw, err)
			}
		}
	}
}

func TestText(t *testing.T) {
	if got := displayurl.Text("https://\u0430pple.com/x"); got != "https://xn--pple-43d.com/x" {
		t.Errorf("Text = %q", got)
	}
	got := displayurl.Text("https://good.com@evil.com/")
	if !strings.Contains(got, "refused: it has userinfo") {
		t.Errorf("Text of a userinfo URL = %q, want it flagged", got)
	}
	got = displayurl.Text("https://user:s3cret@evil.com/")
	if strings.Contains(got, "s3cret") || !strings.Contains(got, "refused: it has userinfo") {
		t.Errorf("Text of a URL with a password = %q, want it flagged without the password", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"https://\u0430pple.com/", "https://good.com@evil.com", "http://[::1]:9/", "https://b\u00fccher.example"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := displayurl.Parse(raw)
		if err != nil {
			return
		}
		// What is shown parses to the same host, in ASCII, with no userinfo.
		again, err := displayurl.Parse(u.Display)
		if err != nil {
			t.Fatalf("Parse(%q) ok but its Display %q is refused: %v", raw, u.Display, err)
		}
		if again.Host != u.Host {
			t.Fatalf("Display %q reparses to host %q, want %q", u.Display, again.Host, u.Host)
		}
		for i := 0; i < len(u.Host); i++ {
			if u.Host[i] >= 0x80 {
				t.Fatalf("Host %q is not ASCII", u.Host)
			}
		}
	})
}
