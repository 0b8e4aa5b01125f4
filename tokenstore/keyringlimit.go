package tokenstore

import (
	"regexp"
	"runtime"
	"strings"
	"sync"
)

// Each OS keyring bounds the value of one item, and go-keyring refuses a
// larger one with keyring.ErrSetDataTooBig. The keyring backend splits a
// record over numbered items (see keyringBackend.set) of at most
// keyringItemLimit bytes each, for the system it runs on.

const (
	// winCredMaxBlob is go-keyring's bound on a Windows Credential Manager
	// value (CRED_MAX_CREDENTIAL_BLOB_SIZE is 5*512 bytes).
	winCredMaxBlob = 2560

	// darwinMaxCommand is go-keyring's bound on the command it writes to
	// `security -i` to store a macOS Keychain item: the secret travels on
	// that command line, base64-encoded behind darwinValuePrefix.
	darwinMaxCommand  = 4096
	darwinValuePrefix = "go-keyring-base64:"

	// otherMaxValue is the item size elsewhere (Secret Service, which sets
	// no small bound of its own): small items, as the store always wrote.
	otherMaxValue = 1000
)

// keyringItemLimit returns the most bytes of value that go-keyring stores
// in one item of service and user on goos.
func keyringItemLimit(goos, service, user string) int {
	switch goos {
	case "windows":
		return winCredMaxBlob
	case "darwin":
		// go-keyring writes "add-generic-password -U -s S -a U -w P\n",
		// S, U and P quoted for a shell, P the prefixed base64 of the
		// value (its alphabet needs no quoting).
		fixed := len("add-generic-password -U -s ") + len(keychainQuote(service)) +
			len(" -a ") + len(keychainQuote(user)) + len(" -w ") + len(darwinValuePrefix) + len("\n")
		room := darwinMaxCommand - fixed
		if room < 4 {
			return 0
		}
		return room / 4 * 3 // base64 turns 3 bytes into 4
	default:
		return otherMaxValue
	}
}

// systemItemLimit is keyringItemLimit for the running system.
func systemItemLimit(service, user string) int { return keyringItemLimit(runtime.GOOS, service, user) }

// keychainUnsafe matches what go-keyring's darwin backend quotes (its
// internal shellescape package).
var keychainUnsafe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^\w@%+=:,./-]`) })

// keychainQuote quotes s as go-keyring's darwin backend does before it
// writes s on the `security` command line.
func keychainQuote(s string) string {
	if s == "" {
		return "''"
	}
	if keychainUnsafe().MatchString(s) {
		return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
	}
	return s
}
