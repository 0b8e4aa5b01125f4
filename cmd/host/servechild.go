package main

import (
	"os"
	"path/filepath"

	"github.com/mcp-host/mcp-host/runtime/config"
)

// serveChild returns the command line of the `host serve` child that a UI
// command (name: chat, web) drives, with the model and permission flags
// passed on, and the file its log goes to: logFile, or <name>.log next to
// the global config, whose directory is created.
func serveChild(name string, mf modelFlags, perms, logFile string) (argv []string, log string, err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	if logFile == "" {
		cwd, _ := os.Getwd()
		global, _ := config.DefaultPaths(cwd)
		logFile = filepath.Join(filepath.Dir(global), name+".log")
	}
	if err := os.MkdirAll(filepath.Dir(logFile), 0o700); err != nil {
		return nil, "", err
	}
	argv = []string{exe, "serve"}
	for flagName, v := range map[string]string{"--model": mf.model, "--base-url": mf.baseURL, "--api-key-env": mf.apiKeyEnv, "--script": mf.script, "--script-log": mf.scriptLog, "--permissions": perms} {
		if v != "" {
			argv = append(argv, flagName, v)
		}
	}
	return argv, logFile, nil
}
