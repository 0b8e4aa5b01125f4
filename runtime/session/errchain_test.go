package session

import (
	"errors"
	"fmt"
	"testing"
)

func TestTidySaysEachThingOnce(t *testing.T) {
	base := errors.New("boom")
	for _, tc := range []struct{ in, want string }{
		{`server "bad": connect: calling "initialize": sending "initialize": rejected by transport: %w`, `server "bad": connect: initialize: boom`},
		{`server "bad2": connect: calling "initialize": rejected by transport: sending "initialize": %w`, `server "bad2": connect: initialize: boom`},
		{`calling "tools/call": %w`, `calling "tools/call": boom`},
		{`server "x": connect: %w`, `server "x": connect: boom`},
	} {
		err := tidy(fmt.Errorf(tc.in, base))
		if err.Error() != tc.want || !errors.Is(err, base) {
			t.Errorf("tidy(%q) = %q (wraps the cause: %v), want %q", tc.in, err, errors.Is(err, base), tc.want)
		}
	}
	if tidy(nil) != nil {
		t.Error("tidy(nil) is not nil")
	}
}
