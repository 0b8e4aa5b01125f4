package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mcp-host/mcp-host/runtime/otlpexport"
)

// traced runs a command with tracing set up from the standard
// OpenTelemetry variables (OTEL_EXPORTER_OTLP_ENDPOINT and friends; see
// package otlpexport): off unless an endpoint is set. The spans still queued
// are flushed when the command ends, for at most 5 seconds.
func traced(stderr io.Writer, command func() int) int {
	cfg, err := otlpexport.FromEnv(nil)
	if err == nil {
		var shutdown func(context.Context) error
		if shutdown, err = otlpexport.Setup(cfg); err == nil {
			defer func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				if err := shutdown(ctx); err != nil {
					fmt.Fprintf(stderr, "host: %v\n", err)
				}
			}()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "host: tracing is off: %v\n", err)
	}
	return command()
}
