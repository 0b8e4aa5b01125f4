package process

import (
	"fmt"
	"strings"

	"github.com/mcp-host/mcp-host/redact"
)

// This file holds the Windows rules for starting a stdio server's command
// as pure functions, so that they are tested on every platform;
// command_windows.go applies them.
//
// Windows users write commands as they type them at a prompt: "npx", which
// the shell finds as npx.cmd through PATHEXT. A .cmd or .bat file is run by
// cmd.exe, which parses its command line by its own rules, not the
// CommandLineToArgvW rules os/exec quotes for (see the os/exec doc of
// Command and golang.org/issue/27199): an unquoted & in an argument starts a
// second command, and % expands variables even inside quotes. Go leaves
// quoting for cmd.exe to the caller (SysProcAttr.CmdLine), so the runtime
// builds that command line itself, quoting what cmd.exe would interpret and
// refusing, with the argument named, what it cannot pass unchanged.

// defaultPathExt is Windows' PATHEXT when the environment has none.
const defaultPathExt = ".COM;.EXE;.BAT;.CMD"

// envValue returns the value of key in env, matching names without regard
// to case as Windows does ("Path" is PATH).
func envValue(env map[string]string, key string) (string, bool) {
	for k, v := range env {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return "", false
}

// pathExts splits a PATHEXT value into lower-case extensions with their dot.
func pathExts(pathext string) []string {
	if strings.TrimSpace(pathext) == "" {
		pathext = defaultPathExt
	}
	var exts []string
	for _, e := range strings.Split(strings.ToLower(pathext), ";") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		if !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		exts = append(exts, e)
	}
	return exts
}

// winAbs reports whether dir is an absolute Windows path (C:\x, \\host\x).
func winAbs(dir string) bool {
	return strings.HasPrefix(dir, `\\`) || len(dir) >= 3 && dir[1] == ':' && (dir[2] == '\\' || dir[2] == '/')
}

// hasExt reports whether name ends in one of exts.
func hasExt(name string, exts []string) bool {
	lower := strings.ToLower(name)
	for _, e := range exts {
		if strings.HasSuffix(lower, e) {
			return true
		}
	}
	return false
}

// withExts returns the files that name stands for, in the order Windows
// tries them: name itself when it already has an extension of PATHEXT, then
// name with each extension. An extensionless file (such as the sh script
// npm installs next to npx.cmd) is never one of them.
func withExts(name string, exts []string) []string {
	var out []string
	if hasExt(name, exts) {
		out = append(out, name)
	}
	for _, e := range exts {
		out = append(out, name+e)
	}
	return out
}

// lookPathWindows finds the program name stands for in the directories of
// path (a PATH value), trying the extensions of pathext. Only absolute
// directories are searched: the current directory is never searched
// implicitly (as os/exec's ErrDot rule). isFile reports whether a path is
// an existing regular file.
func lookPathWindows(name, path, pathext string, isFile func(string) bool) (string, error) {
	exts := pathExts(pathext)
	for _, dir := range strings.Split(path, ";") {
		dir = strings.Trim(strings.TrimSpace(dir), `"`)
		if dir == "" || !winAbs(dir) {
			continue
		}
		dir = strings.TrimRight(dir, `\/`) + `\`
		for _, f := range withExts(name, exts) {
			if isFile(dir + f) {
				return dir + f, nil
			}
		}
	}
	return "", fmt.Errorf("command %q: not found in PATH (tried the extensions %s in each directory)", name, strings.ToUpper(strings.Join(exts, ";")))
}

// isBatchFile reports whether path is run by cmd.exe.
func isBatchFile(path string) bool {
	lower := strings.ToLower(path)
	return strings.HasSuffix(lower, ".cmd") || strings.HasSuffix(lower, ".bat")
}

// cmdSafe reports whether c needs no quoting on a cmd.exe command line.
func cmdSafe(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.ContainsRune(`-_./\:@+~#$`, c)
}

// batchArgProblem returns why s cannot be passed through cmd.exe
// unchanged, or "".
func batchArgProblem(s string) string {
	switch {
	case strings.Contains(s, "%"):
		return "contains %, which cmd.exe expands even inside quotes"
	case strings.Contains(s, `"`):
		return `contains ", which cmd.exe and the program it starts do not unquote alike`
	case strings.ContainsAny(s, "\r\n\x00"):
		return "contains a line break or NUL, which ends a cmd.exe command line"
	}
	return ""
}

// quoteBatchArg quotes s for a cmd.exe command line when it holds anything
// cmd.exe would interpret (& | < > ^ ( ) spaces, = , ;): inside double
// quotes those are literal. Backslashes before the closing quote are
// doubled, so the program the batch file starts (which parses with
// CommandLineToArgvW) does not read \" as an escaped quote.
func quoteBatchArg(s string) string {
	if s != "" && strings.IndexFunc(s, func(c rune) bool { return !cmdSafe(c) }) < 0 {
		return s
	}
	trail := len(s) - len(strings.TrimRight(s, `\`))
	return `"` + s + strings.Repeat(`\`, trail) + `"`
}

// batchCommandLine returns the command line that runs the batch file
// script with args through comspec (cmd.exe): /d skips AutoRun commands,
// /v:off keeps ! literal, /s /c "..." runs exactly what is between the
// outer quotes. An argument cmd.exe cannot pass unchanged is an error that
// names it (by position, and its value with known secrets masked).
func batchCommandLine(comspec, script string, args []string) (string, error) {
	if p := batchArgProblem(script); p != "" {
		return "", fmt.Errorf("batch file %s %s", script, p)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `"%s" /d /v:off /s /c ""%s"`, comspec, script)
	for i, a := range args {
		if p := batchArgProblem(a); p != "" {
			return "", fmt.Errorf("%s is a batch file that Windows runs through cmd.exe, and argument %d (%q) %s; "+
				"run the program it starts directly, or pass the value in env", script, i+1, redact.String(a), p)
		}
		b.WriteByte(' ')
		b.WriteString(quoteBatchArg(a))
	}
	b.WriteByte('"')
	return b.String(), nil
}
