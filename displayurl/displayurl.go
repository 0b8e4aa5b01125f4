// Package displayurl is the one display form of a URL or host that a person
// must judge: an elicitation's page, an MCP App's link, a login's
// authorization URL and authorization server, a server's URL in /mcp.
// Whatever shows such a URL (the CLI, host chat, host web, or the UI over
// the protocol, which receives the form beside the raw URL) shows this form
// and opens the raw URL, which [Parse] has checked against it.
//
// The form never shows a host under a false name:
//   - the host is shown in its ASCII form (IDNA, punycode: "аpple.com"
//     with a Cyrillic "а" is shown as "xn--pple-43d.com"), with its Unicode
//     form beside it only when the whole host is written in one script
//     ("xn--bcher-kva.example (bücher.example)"; "аррӏе.com", Cyrillic with
//     a Latin "com", gets none);
//   - a URL with userinfo ("https://good.com@evil.com") is refused: the
//     part before "@" reads as a host to a person and means nothing to
//     the browser's destination;
//   - a URL with an invisible, bidirectional, control or space character
//     anywhere, or invalid UTF-8, is refused: what is shown would differ
//     from what is opened.
//
// It names no scheme policy (which schemes may be opened is
// auth.CheckBrowserURL's job) and imports only termsafe of this module.
package displayurl

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-host/mcp-host/termsafe"
	"golang.org/x/net/idna"
)

// maxShown bounds the refused text an error quotes, in runes.
const maxShown = 80

// ErrUserinfo is returned (wrapped) for a URL with userinfo.
var ErrUserinfo = errors.New("the URL has a user name or password before its host (user@host), which would show a host it does not go to")

// ErrHidden is returned (wrapped) for a URL with an invisible,
// bidirectional, control or space character, or invalid UTF-8.
var ErrHidden = errors.New("the URL has invisible, bidirectional, control or space characters")

// URL is the display form of a URL that passed [Parse].
type URL struct {
	// Raw is the URL as given: the one to open.
	Raw string
	// Scheme is the URL's scheme, in lower case.
	Scheme string
	// Host is the host in its ASCII form, with the port when the URL has
	// one ("xn--pple-43d.com", "127.0.0.1:8080", "[::1]:9").
	Host string
	// Unicode is the host's Unicode form, with the port, when it differs
	// from Host and the whole host is written in one script; else "".
	Unicode string
	// Display is the URL with its host in the ASCII form: what to show.
	Display string
}

// HostText is the host to show: the ASCII form, followed by the Unicode
// form in parentheses when there is one.
func (u *URL) HostText() string {
	if u.Unicode == "" {
		return u.Host
	}
	return u.Host + " (" + u.Unicode + ")"
}

// String is [URL.Display].
func (u *URL) String() string { return u.Display }

// profile maps a host as browsers do (UTS #46, non-transitional, case
// folded) and checks its labels, but allows the underscore, which
// internal host names use.
var profile = idna.New(
	idna.MapForLookup(), idna.BidiRule(), idna.Transitional(false),
	idna.StrictDomainName(false), idna.CheckHyphens(true), idna.CheckJoiners(true),
)

// display converts host names back to Unicode, checking the labels.
var display = idna.New(idna.BidiRule(), idna.StrictDomainName(false), idna.CheckHyphens(true), idna.CheckJoiners(true))

// Parse checks raw and returns its display form. It refuses a URL that
// does not parse, has no host, has userinfo ([ErrUserinfo]), holds a
// hidden character ([ErrHidden]) or whose host is not a valid
// internationalized domain name or IP address; the error never quotes
// raw's path or query, which may hold secrets.
func Parse(raw string) (*URL, error) {
	if err := checkHidden(raw); err != nil {
		return nil, err
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("the URL does not parse")
	}
	if u.User != nil {
		return nil, ErrUserinfo
	}
	name := u.Hostname()
	if name == "" {
		return nil, errors.New("the URL has no host")
	}
	// The host as url.Parse decoded it: percent-encoding can hide in it
	// what checkHidden refuses in raw (invalid UTF-8, a zero-width space
	// that IDNA mapping would silently drop, a bidi control).
	if err := checkHidden(name); err != nil {
		return nil, err
	}
	ascii, uni, err := hostForms(name)
	if err != nil {
		return nil, err
	}
	host := ascii
	if strings.Contains(ascii, ":") {
		host = "[" + ascii + "]"
	}
	if port := u.Port(); port != "" {
		host += ":" + port
		if uni != "" {
			uni += ":" + port
		}
	}
	shown := *u
	shown.Host = host
	return &URL{Raw: raw, Scheme: strings.ToLower(u.Scheme), Host: host, Unicode: uni, Display: shown.String()}, nil
}

// Text returns the text to show for raw: its [URL.Display] form, or, when
// Parse refuses it, a sanitized, bounded quote of raw marked as refused. A
// configured URL whose host is a ${VAR} template (known only once
// expanded) is shown stripped, as written. Text is for places that show a
// URL a person does not open from there (a status line, a server's
// target); what is opened must pass Parse. A password in a refused URL's
// userinfo is shown as "xxxxx".
func Text(raw string) string {
	u, err := Parse(raw)
	if err != nil {
		if strings.Contains(raw, "${") && !errors.Is(err, ErrUserinfo) && !errors.Is(err, ErrHidden) {
			return termsafe.Strip(raw)
		}
		if u, perr := url.Parse(raw); perr == nil && u.User != nil {
			raw = u.Redacted() // never a password on the screen
		}
		return fmt.Sprintf("%q (refused: %v)", termsafe.LineMax(raw, maxShown), reason(err))
	}
	return u.Display
}

// reason is the part of a Parse error that says why.
func reason(err error) string {
	switch {
	case errors.Is(err, ErrUserinfo):
		return "it has userinfo"
	case errors.Is(err, ErrHidden):
		return "it has hidden characters"
	}
	return "it is not a valid URL"
}

// hostForms returns the ASCII and (single-script, differing) Unicode forms
// of a host name or IP address.
func hostForms(name string) (ascii, uni string, err error) {
	if ip := net.ParseIP(name); ip != nil {
		return ip.String(), "", nil
	}
	ascii, err = profile.ToASCII(name)
	if err != nil {
		return "", "", fmt.Errorf("its host %q is not a valid domain name", termsafe.LineMax(name, maxShown))
	}
	if !plainASCII(ascii) {
		return "", "", errors.New("its host has characters no domain name holds")
	}
	u, err := display.ToUnicode(ascii)
	if err != nil || u == ascii || !singleScript(u) {
		return ascii, "", nil
	}
	return ascii, u, nil
}

// plainASCII reports whether s holds only letters, digits, '-', '_' and
// '.', the characters of an ASCII host name.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// singleScript reports whether s is written in at most one script
// (Common and Inherited characters, such as digits, '-' and '.', belong to
// any). A label in one script beside a label in another (a Cyrillic name
// under a Latin TLD) is two scripts: such a host can copy a Latin one
// letter for letter.
func singleScript(s string) bool {
	script := ""
	for _, r := range s {
		sc := scriptOf(r)
		if sc == "" {
			continue
		}
		if script != "" && sc != script {
			return false
		}
		script = sc
	}
	return true
}

// scriptOf names r's script, or "" for Common, Inherited and unknown.
func scriptOf(r rune) string {
	if r < utf8.RuneSelf {
		if unicode.IsLetter(r) {
			return "Latin"
		}
		return ""
	}
	for name, table := range unicode.Scripts {
		if name == "Common" || name == "Inherited" {
			continue
		}
		if unicode.Is(table, r) {
			return name
		}
	}
	return ""
}

// checkHidden refuses invalid UTF-8 and any rune that is invisible,
// bidirectional, a control, a space or a variation selector.
func checkHidden(s string) error {
	if !utf8.ValidString(s) {
		return ErrHidden
	}
	for _, r := range s {
		if termsafe.IsUnsafe(r) || unicode.IsSpace(r) || unicode.Is(unicode.Variation_Selector, r) || !unicode.IsPrint(r) {
			return ErrHidden
		}
	}
	return nil
}
