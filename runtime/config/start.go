package config

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Start modes of a server ("start").
const (
	// StartEager connects when the host starts, as every server did
	// before start modes.
	StartEager = "eager"
	// StartLazy offers the server's kept catalog at once and starts the
	// server when one of its tools is called or a UI asks for it; with no
	// kept catalog it starts at once, to list its tools.
	StartLazy = "lazy"
)

// DefaultIdleTimeout is how long a lazy server may go unused before it is
// stopped, when "idle_timeout_ms" is not set.
const DefaultIdleTimeout = 10 * time.Minute

// StartMode is the server's start mode: "start" when set, else lazy for
// stdio and eager for http and sse (a remote session costs the host next
// to nothing while it waits).
func (c *ServerConfig) StartMode() string {
	if c.Start != "" {
		return c.Start
	}
	if c.TransportName() == "stdio" {
		return StartLazy
	}
	return StartEager
}

// IdleTimeout is how long a lazy server may be unused before it stops; 0
// means never.
func (c *ServerConfig) IdleTimeout() time.Duration {
	if c.IdleTimeoutMS == nil {
		return DefaultIdleTimeout
	}
	return time.Duration(*c.IdleTimeoutMS) * time.Millisecond
}

// validateStart checks "start" and "idle_timeout_ms".
func (c *ServerConfig) validateStart() error {
	switch c.Start {
	case "", StartEager, StartLazy:
	default:
		return &FieldError{Field: "start", Problem: fmt.Sprintf("must be %q or %q, got %q", StartEager, StartLazy, c.Start)}
	}
	if c.IdleTimeoutMS != nil && *c.IdleTimeoutMS < 0 {
		return &FieldError{Field: "idle_timeout_ms", Problem: "must not be negative (0 never stops the server)"}
	}
	return nil
}

// checkEnvName reports why name cannot be an environment variable's name
// in env_vars: empty, "=" (which ends a name), or a space or control
// character (not a name any shell or program writes), or ${...} (names are
// passed as written, never expanded).
func checkEnvName(name string) error {
	switch {
	case name == "":
		return errors.New("empty variable name")
	case len(name) > 256:
		return fmt.Errorf("variable name %.32q… is longer than 256 bytes", name)
	case strings.Contains(name, "="):
		// The part after "=" may be a secret pasted by mistake: not shown.
		before, _, _ := strings.Cut(name, "=")
		return fmt.Errorf("invalid variable name %q followed by '=': list names only; a value goes in \"env\"", before)
	case strings.Contains(name, "$"):
		return fmt.Errorf("invalid variable name %q: list names as they are, not ${VAR}", name)
	}
	for _, r := range name {
		if r <= ' ' || r == 0x7f || r > '~' {
			return fmt.Errorf("invalid variable name %q: use printable ASCII without spaces", name)
		}
	}
	return nil
}
