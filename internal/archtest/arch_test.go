package archtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// module is the module path of mcp-host.
const module = "github.com/mcp-host/mcp-host"

// maxLines is the most lines a Go file that is not generated may have.
const maxLines = 500

// pkg is one entry of `go list -deps -test -json`: a package, a test
// variant of one ("p [p.test]", "p_test [p.test]") or a test main
// ("p.test").
type pkg struct {
	ImportPath string
	Standard   bool
	Deps       []string
	Imports    []string
}

// base is the package an entry belongs to: the import path without the
// test-variant suffixes.
func (p *pkg) base() string { return baseOf(p.ImportPath) }

// baseOf strips the test-variant suffixes from an import path as go list
// prints it.
func baseOf(path string) string {
	path, _, _ = strings.Cut(path, " ")
	path = strings.TrimSuffix(path, ".test")
	return strings.TrimSuffix(path, "_test")
}

// decodePackages reads the stream of JSON objects `go list -json` prints.
func decodePackages(r io.Reader) ([]pkg, error) {
	dec := json.NewDecoder(r)
	var out []pkg
	for {
		var p pkg
		err := dec.Decode(&p)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		out = append(out, p)
	}
}

// A rule forbids the packages under from (module-relative, "core" means
// core and core/...; only from itself when exact) to depend, directly or
// not, in code or in-package tests, on the packages forbidden matches.
type rule struct {
	from  string
	exact bool
	// why is said when the rule is broken.
	why string
	// forbidden reports whether importPath is a dependency from must not
	// have.
	forbidden func(importPath string) bool
}

// under reports whether path is the module's package rel or below it.
func under(path, rel string) bool {
	p := module + "/" + rel
	return path == p || strings.HasPrefix(path, p+"/")
}

// standard reports whether path is in the standard library: its first
// element has no dot, as no module path's does.
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// inModule reports whether path is a package of this module.
func inModule(path string) bool {
	return path == module || strings.HasPrefix(path, module+"/")
}

// rules are mcp-host's dependency rules.
var rules = []rule{
	{from: "core", why: "core is MCP-agnostic: it may import only the standard library and core/...",
		forbidden: func(dep string) bool { return !standard(dep) && !under(dep, "core") }},
	{from: "protocol", why: "the UI protocol's wire types know nothing of the runtime",
		forbidden: func(dep string) bool { return under(dep, "runtime") }},
	{from: "runtime/config", why: "configuration is a leaf: no MCP SDK, no runtime machinery",
		forbidden: func(dep string) bool {
			return strings.HasPrefix(dep, "github.com/modelcontextprotocol/") ||
				dep == module+"/runtime" || under(dep, "runtime/serve") || under(dep, "runtime/session") ||
				under(dep, "runtime/auth") || under(dep, "runtime/adapter") || under(dep, "runtime/permission")
		}},
	{from: "chat", why: "host chat is a UI: it reaches the runtime only through the protocol",
		forbidden: func(dep string) bool { return under(dep, "runtime") }},
	{from: "web", why: "host web is a UI: it reaches the runtime only through the protocol",
		forbidden: func(dep string) bool { return under(dep, "runtime") }},
	{from: "examples", why: "the Go client example is a UI: it reaches the runtime only through the protocol",
		forbidden: func(dep string) bool { return under(dep, "runtime") || under(dep, "chat") || under(dep, "web") }},
	{from: "demo/servers", why: "the demo's servers stand for the outside world and know nothing of the host",
		forbidden: func(dep string) bool { return inModule(dep) && !under(dep, "demo/servers") }},
	{from: "runtime/process", why: "starting local servers knows nothing of MCP: the session speaks it over the pipes",
		forbidden: func(dep string) bool {
			return strings.HasPrefix(dep, "github.com/modelcontextprotocol/") || under(dep, "runtime/session")
		}},
	{from: "runtime/policy", why: "the managed policy judges config entries: like config, no MCP SDK and no runtime machinery",
		forbidden: func(dep string) bool {
			return strings.HasPrefix(dep, "github.com/modelcontextprotocol/") ||
				dep == module+"/runtime" || under(dep, "runtime/serve") || under(dep, "runtime/session") ||
				under(dep, "runtime/auth") || under(dep, "runtime/adapter") || under(dep, "runtime/permission") ||
				under(dep, "runtime/process")
		}},
	{from: "runtime/sandbox", why: "the sandbox is a leaf: it judges paths and confines a process for any caller, and links nothing of the host (its tests may open a terminal with internal/ptytest, which links nothing either)",
		forbidden: func(dep string) bool {
			return inModule(dep) && !under(dep, "runtime/sandbox") && !under(dep, "internal/ptytest")
		}},
	{from: "runtime/netproxy", why: "the network proxy is a leaf: it judges host:port pairs on its own, for any caller",
		forbidden: func(dep string) bool { return inModule(dep) && !under(dep, "runtime/netproxy") }},
	{from: "internal/markdown", why: "the one Markdown parser is a leaf both reference UIs use",
		forbidden: func(dep string) bool { return inModule(dep) && !under(dep, "internal/markdown") }},
	{from: "internal/statefile", why: "reading back state files is a leaf every store can use",
		forbidden: func(dep string) bool { return inModule(dep) && !under(dep, "internal/statefile") }},
	{from: "runtime", exact: true, why: "the manager does not know the UI-protocol server that drives it",
		forbidden: func(dep string) bool { return under(dep, "runtime/serve") }},
	{from: "runtime", exact: true, why: "the manager does not know the agent runs over its servers",
		forbidden: func(dep string) bool { return under(dep, "runtime/agentrun") }},
	{from: "runtime/agentrun", why: "agent runs use the manager, not the UI-protocol server that starts them",
		forbidden: func(dep string) bool { return under(dep, "runtime/serve") }},
}

// Parts of the runtime below the manager: they must not import the manager
// (runtime) or the UI-protocol server (runtime/serve).
var runtimeParts = []string{"runtime/session", "runtime/process", "runtime/auth", "runtime/adapter", "runtime/permission", "runtime/config", "runtime/policy", "runtime/resources", "runtime/skills", "runtime/apps", "runtime/tracing", "runtime/listcache", "runtime/resultstore", "runtime/hostfetch", "runtime/registry", "tokenstore", "redact", "termsafe", "displayurl", "internal"}

// exporterFree are the libraries that must not link the OTLP exporter:
// package runtime/otlpexport, which only commands import, and what it
// brings (otlptracehttp, and gRPC through the OTLP protobuf package).
var exporterFree = append([]string{"runtime/serve", "runtime/agentrun", "chat", "web", "core", "protocol"}, runtimeParts...)

func init() {
	for _, part := range runtimeParts {
		rules = append(rules, rule{from: part, why: "the runtime's parts sit below the manager and the UI server",
			forbidden: func(dep string) bool { return dep == module+"/runtime" || under(dep, "runtime/serve") }})
	}
	exporter := func(dep string) bool {
		return under(dep, "runtime/otlpexport") || strings.HasPrefix(dep, "go.opentelemetry.io/otel/exporters/") || strings.HasPrefix(dep, "google.golang.org/grpc")
	}
	why := "only commands link the OTLP exporter (runtime/otlpexport) and the gRPC code it brings; libraries and their test binaries do without"
	for _, part := range exporterFree {
		rules = append(rules, rule{from: part, why: why, forbidden: exporter})
	}
	rules = append(rules, rule{from: "runtime", exact: true, why: why, forbidden: exporter})
}

// violations checks pkgs against rules and against the rule that nothing
// imports cmd/. It returns one line per broken rule and package, sorted.
func violations(pkgs []pkg, rules []rule) []string {
	seen := map[string]bool{}
	add := func(s string) { seen[s] = true }
	for i := range pkgs {
		p := &pkgs[i]
		base := p.base()
		if p.Standard || !inModule(base) {
			continue
		}
		for _, imp := range p.Imports {
			// A test main imports the package it tests.
			if imp := baseOf(imp); imp != base && under(imp, "cmd") {
				add(fmt.Sprintf("%s imports %s: nothing may import cmd/ (commands are wiring only)", base, imp))
			}
		}
		for _, r := range rules {
			if r.exact && base != module+"/"+r.from || !r.exact && !under(base, r.from) {
				continue
			}
			for _, dep := range p.Deps {
				if dep := baseOf(dep); dep != base && r.forbidden(dep) {
					add(fmt.Sprintf("%s depends on %s: %s", base, dep, r.why))
				}
			}
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// generated matches the line that marks a generated Go file
// (https://go.dev/s/generatedcode).
var generated = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

// longFiles walks root and returns the Go files (relative to root) over
// max lines, with their counts, skipping generated files, node_modules and
// directories whose name starts with a dot.
func longFiles(root string, max int) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n, gen := countLines(data)
		if n > max && !gen {
			rel, _ := filepath.Rel(root, path)
			out = append(out, fmt.Sprintf("%s: %d lines", filepath.ToSlash(rel), n))
		}
		return nil
	})
	return out, err
}

// countLines returns the number of lines of a Go file and whether it is
// generated (the marker line before the package clause).
func countLines(data []byte) (lines int, isGenerated bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), len(data)+1)
	inHeader := true
	for sc.Scan() {
		lines++
		line := sc.Text()
		if inHeader {
			if generated.MatchString(line) {
				isGenerated = true
			}
			if strings.HasPrefix(line, "package ") {
				inHeader = false
			}
		}
	}
	return lines, isGenerated
}

// goTool finds the go command: the one of the toolchain running the test
// ($GOROOT/bin/go, which go test sets), else the one on PATH.
func goTool(t *testing.T) string {
	t.Helper()
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to list packages with: %v", err)
	}
	return p
}

// repoRoot is the module's root directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !bytes.Contains(data, []byte("module "+module+"\n")) {
		t.Fatalf("%s is not the root of %s (go.mod: %v)", root, module, err)
	}
	return root
}

// The dependency rules of docs/ARCHITECTURE.md hold for every package of
// the module, its in-package tests and its external tests.
func TestDependencyRules(t *testing.T) {
	cmd := exec.Command(goTool(t), "list", "-e", "-deps", "-test", "-json=ImportPath,Standard,Deps,Imports", "./...")
	cmd.Dir = repoRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs, err := decodePackages(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	// The check must have something to check: every ruled package is listed.
	listed := map[string]bool{}
	for i := range pkgs {
		listed[pkgs[i].base()] = true
	}
	for _, must := range []string{"core", "protocol", "runtime", "runtime/config", "runtime/serve", "runtime/session", "runtime/auth", "cmd/host"} {
		if !listed[module+"/"+must] {
			t.Errorf("go list did not list %s; the rules would pass vacuously", must)
		}
	}
	for _, v := range violations(pkgs, rules) {
		t.Error(v)
	}
}

// The rule checker finds each kind of broken rule in a made-up module, and
// nothing in a clean one: TestDependencyRules can fail.
func TestViolationsFindsBrokenRules(t *testing.T) {
	m := func(rel string) string { return module + "/" + rel }
	broken := []pkg{
		{ImportPath: m("core"), Deps: []string{"context", "github.com/modelcontextprotocol/go-sdk/mcp"}},
		{ImportPath: m("core/openai") + " [" + m("core/openai") + ".test]", Deps: []string{m("runtime/adapter")}},
		{ImportPath: m("protocol"), Deps: []string{m("redact"), m("runtime/session")}},
		{ImportPath: m("runtime"), Deps: []string{m("runtime/serve")}},
		{ImportPath: m("runtime/session"), Deps: []string{m("runtime")}},
		{ImportPath: m("runtime/config"), Deps: []string{"github.com/modelcontextprotocol/go-sdk/jsonrpc"}},
		{ImportPath: m("demo/tour"), Imports: []string{m("cmd/host")}},
		{ImportPath: m("chat"), Deps: []string{m("protocol"), m("runtime/serve")}},
		{ImportPath: m("demo/servers"), Deps: []string{m("runtime/auth")}},
		{ImportPath: m("web"), Deps: []string{m("protocol"), m("runtime")}},
		{ImportPath: "fmt", Standard: true, Imports: []string{m("cmd/host")}},
	}
	got := violations(broken, rules)
	want := []string{
		m("core") + " depends on github.com/modelcontextprotocol/go-sdk/mcp",
		m("core/openai") + " depends on " + m("runtime/adapter"),
		m("chat") + " depends on " + m("runtime/serve"),
		m("demo/servers") + " depends on " + m("runtime/auth"),
		m("web") + " depends on " + m("runtime") + ":",
		m("demo/tour") + " imports " + m("cmd/host"),
		m("protocol") + " depends on " + m("runtime/session"),
		m("runtime") + " depends on " + m("runtime/serve"),
		m("runtime/config") + " depends on github.com/modelcontextprotocol/go-sdk/jsonrpc",
		m("runtime/session") + " depends on " + m("runtime") + ":",
	}
	if len(got) != len(want) {
		t.Errorf("got %d violations, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, w)
		}
		if !found {
			t.Errorf("no violation %q in:\n%s", w, strings.Join(got, "\n"))
		}
	}
	clean := []pkg{
		{ImportPath: m("core"), Deps: []string{"context"}},
		{ImportPath: m("protocol"), Deps: []string{m("redact"), "github.com/modelcontextprotocol/go-sdk/jsonrpc"}},
		{ImportPath: m("runtime"), Deps: []string{m("runtime/session"), m("runtime/config")}},
		{ImportPath: m("runtime/serve"), Deps: []string{m("runtime"), m("protocol")}},
		{ImportPath: m("cmd/host"), Imports: []string{m("runtime/serve")}},
		{ImportPath: m("chat"), Deps: []string{m("protocol"), m("termsafe")}},
	}
	if got := violations(clean, rules); len(got) != 0 {
		t.Errorf("violations in a clean module:\n%s", strings.Join(got, "\n"))
	}
}

// No Go file in the repository is over 500 lines, generated files aside.
func TestNoLongGoFiles(t *testing.T) {
	long, err := longFiles(repoRoot(t), maxLines)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range long {
		t.Errorf("%s (at most %d: split it by responsibility)", f, maxLines)
	}
}

// longFiles reports a long file, and skips a generated one, node_modules and
// hidden directories.
func TestLongFilesFindsLongOnes(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	body := strings.Repeat("// filler\n", 10)
	write("short.go", "package x\n"+body[:20])
	write("a/long.go", "package x\n"+body)
	write("a/gen.go", "// Code generated by stringer; DO NOT EDIT.\n\npackage x\n"+body)
	write("node_modules/m/long.go", "package x\n"+body)
	write(".hidden/long.go", "package x\n"+body)
	write("a/notes.txt", body)
	got, err := longFiles(dir, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "a/long.go: 11 lines" {
		t.Errorf("longFiles = %q, want only a/long.go: 11 lines", got)
	}
}
