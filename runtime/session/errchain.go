package session

import (
	"regexp"
	"sync"
)

// sdkLayers matches the layers the MCP SDK puts around a request that
// failed in the transport: `calling "initialize": sending "initialize":
// rejected by transport: ` (or the last two the other way round), which
// name one thing three times.
var sdkLayers = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`calling "([^"]+)": (?:(?:sending "[^"]+"|rejected by transport): )+`)
})

// tidied is an error whose message says each thing once; it unwraps to
// the error it tidies, so errors.Is and errors.As see the whole chain.
type tidied struct {
	msg string
	err error
}

func (t *tidied) Error() string { return t.msg }
func (t *tidied) Unwrap() error { return t.err }

// tidy folds the SDK's layers around a failed request into "method: ".
func tidy(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	short := sdkLayers().ReplaceAllString(msg, "$1: ")
	if short == msg {
		return err
	}
	return &tidied{msg: short, err: err}
}
