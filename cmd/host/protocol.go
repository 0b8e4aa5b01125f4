package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/protocol/schema"
)

// runProtocol is "host protocol": the machine-readable description of the
// UI protocol (protocol/schema).
func runProtocol(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		printCommandHelp(stdout, "host protocol")
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	switch args[0] {
	case "schema":
		doc, err := schema.Generate()
		if err != nil {
			fmt.Fprintf(stderr, "host protocol schema: %v\n", err)
			return exitFailure
		}
		stdout.Write(doc)
		return exitOK
	case "generate":
		root := "."
		if len(args) > 1 {
			root = args[1]
		}
		if err := generateProtocol(root); err != nil {
			fmt.Fprintf(stderr, "host protocol generate: %v\n", err)
			return exitFailure
		}
		return exitOK
	default:
		return unknownCommand(stderr, "host protocol", args[0], []string{"schema", "generate"})
	}
}

// generateProtocol rewrites the committed schema, the TypeScript client
// and host web's protocol module of the repository at root.
func generateProtocol(root string) error {
	doc, err := schema.Generate()
	if err != nil {
		return err
	}
	js, dts, err := schema.TypeScript(doc)
	if err != nil {
		return err
	}
	page, err := schema.Page(doc)
	if err != nil {
		return err
	}
	for path, data := range map[string][]byte{
		"protocol/schema/schema.json":    doc,
		"clients/typescript/index.js":    js,
		"clients/typescript/index.d.ts":  dts,
		"clients/typescript/schema.json": doc,
		schema.PagePath:                  page,
	} {
		full := filepath.Join(root, filepath.FromSlash(path))
		if _, err := os.Stat(filepath.Dir(full)); err != nil {
			return fmt.Errorf("%s: run it at the root of the mcp-host repository", err)
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			return err
		}
	}
	// A new version's schema is kept as released, once (see schema.Breaking).
	kept := filepath.Join(root, filepath.FromSlash(schema.KeptPath(protocol.Version)))
	if _, err := os.Stat(kept); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(kept), 0o755); err != nil {
			return err
		}
		return os.WriteFile(kept, doc, 0o644)
	}
	return nil
}
