//go:build windows

package process

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// command returns the process for o's command as Windows users write it:
// a bare name is looked up in the PATH the server will run with (its env's
// PATH when it sets one) with PATHEXT's extensions, so "npx" finds
// npx.cmd; a batch file runs through cmd.exe with a command line quoted
// for cmd.exe (see batchCommandLine), or is refused with the argument
// named.
func command(o *Options) (*exec.Cmd, error) {
	path, ok := envValue(o.Env, "PATH")
	if !ok {
		path = os.Getenv("PATH")
	}
	pathext, ok := envValue(o.Env, "PATHEXT")
	if !ok {
		pathext = os.Getenv("PATHEXT")
	}
	exe := o.Command
	if !isWindowsPath(exe) {
		p, err := lookPathWindows(exe, path, pathext, isRegularFile)
		if err != nil {
			return nil, err
		}
		exe = p
	} else if !hasExt(exe, pathExts(pathext)) {
		// A path without an extension: the file it stands for, if one of
		// PATHEXT's is there; else os/exec says what is missing.
		base := exe
		if !filepath.IsAbs(base) && o.Dir != "" {
			base = filepath.Join(o.Dir, base)
		}
		for _, f := range withExts(base, pathExts(pathext)) {
			if isRegularFile(f) {
				exe = f
				break
			}
		}
	}
	if !isBatchFile(exe) {
		return exec.Command(exe, o.Args...), nil
	}
	comspec, ok := envValue(o.Env, "ComSpec")
	if !ok {
		comspec = os.Getenv("ComSpec")
	}
	if comspec == "" {
		comspec = filepath.Join(os.Getenv("SystemRoot"), "System32", "cmd.exe")
	}
	line, err := batchCommandLine(comspec, exe, o.Args)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(comspec)
	cmd.Args = append([]string{exe}, o.Args...) // for String; CmdLine is what runs
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: line}
	return cmd, nil
}

// isRegularFile reports whether path names an existing file.
func isRegularFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// isWindowsPath reports whether a command names a path (has a directory
// part or a drive) rather than a program for PATH to find.
func isWindowsPath(name string) bool { return strings.ContainsAny(name, `\/:`) }
