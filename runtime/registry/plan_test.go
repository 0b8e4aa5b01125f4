package registry

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/config"
)

func lookOnly(progs ...string) func(string) (string, error) {
	return func(p string) (string, error) {
		for _, x := range progs {
			if p == x {
				return "/usr/bin/" + p, nil
			}
		}
		return "", exec.ErrNotFound
	}
}

func TestBuildPackages(t *testing.T) {
	e := Entry{Registry: "https://r.example", Server: Server{Name: "io.github.t/s", Version: "2.0.0", Packages: []Package{
		{RegistryType: "npm", Identifier: "@t/s", Version: "2.0.0", Transport: Transport{Type: "stdio"},
			Environment: []KeyValue{
				{Name: "API_KEY", Input: Input{IsRequired: true, IsSecret: true, Description: "the key"}},
				{Name: "REGION", Input: Input{IsRequired: true}},
				{Name: "LOG", Input: Input{Default: "info"}},
			},
			PackageArguments: []Argument{{Type: "positional", ValueHint: "root", Input: Input{IsRequired: true}}, {Type: "named", Name: "--port", Input: Input{Value: "{p}", Variables: map[string]Input{"p": {Default: "8080"}}}}},
		},
	}}}
	pl, err := Build(e, Options{LookPath: lookOnly("npx")})
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Missing) != 2 || pl.Missing[0].Key != "REGION" || pl.Missing[1].Key != "root" {
		t.Fatalf("missing %+v", pl.Missing)
	}
	pl, err = Build(e, Options{LookPath: lookOnly("npx"), Values: map[string]string{"REGION": "eu", "root": "/data", "API_KEY": "must-not-appear"}})
	if err != nil || len(pl.Missing) != 0 {
		t.Fatalf("%v %+v", err, pl.Missing)
	}
	c := pl.Config
	if got := CommandLine(c); got != "API_KEY='${API_KEY}' LOG=info REGION=eu npx -y @t/s@2.0.0 /data --port 8080" {
		t.Fatalf("command line %q", got)
	}
	if c.Env["API_KEY"] != "${API_KEY}" || c.Env["REGION"] != "eu" || c.Env["LOG"] != "info" {
		t.Fatalf("env %v", c.Env)
	}
	if len(pl.Secrets) != 1 || pl.Secrets[0].Key != "API_KEY" {
		t.Fatalf("secrets %+v", pl.Secrets)
	}
	if r := c.Registry; r == nil || r.Name != "io.github.t/s" || r.Version != "2.0.0" || r.URL != "https://r.example" || r.Package != "npm" {
		t.Fatalf("registry %+v", c.Registry)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}

	// Without npx, and nothing else to offer, it says so before anything.
	if _, err := Build(e, Options{LookPath: lookOnly()}); !errors.Is(err, ErrCannotRun) || !strings.Contains(err.Error(), "needs npx") {
		t.Fatalf("no npx: %v", err)
	}
}

func TestBuildOtherTypes(t *testing.T) {
	env := []KeyValue{{Name: "TOKEN", Input: Input{IsSecret: true}}, {Name: "MODE", Input: Input{Value: "ro"}}}
	e := Entry{Server: Server{Name: "io.github.t/s", Version: "1.0.0", Packages: []Package{
		{RegistryType: "pypi", Identifier: "mcp-s", Version: "1.0.0", Transport: Transport{Type: "stdio"}},
		{RegistryType: "oci", Identifier: "docker.io/t/s", Version: "1.0.0", Transport: Transport{Type: "stdio"}, Environment: env},
		{RegistryType: "mcpb", Identifier: "https://x/b.mcpb", Transport: Transport{Type: "stdio"}},
	}, Remotes: []Remote{{Transport: Transport{Type: "streamable-http", URL: "https://{tenant}.example/mcp",
		Headers: []KeyValue{{Name: "Authorization", Input: Input{Value: "Bearer {token}", Variables: map[string]Input{"token": {IsSecret: true}}}}}},
		Variables: map[string]Input{"tenant": {IsRequired: true}}}}}}
	pl, err := Build(e, Options{LookPath: lookOnly("uvx")})
	if err != nil || CommandLine(pl.Config) != "uvx mcp-s==1.0.0" {
		t.Fatalf("pypi: %v %q", err, CommandLine(pl.Config))
	}
	pl, err = Build(e, Options{Use: "oci", LookPath: lookOnly("docker")})
	if err != nil || CommandLine(pl.Config) != "MODE=ro TOKEN='${TOKEN}' docker run -i --rm -e MODE -e TOKEN docker.io/t/s:1.0.0" || pl.Config.Env["TOKEN"] != "${TOKEN}" {
		t.Fatalf("oci: %v %q %v", err, CommandLine(pl.Config), pl.Config.Env)
	}
	if _, err := Build(e, Options{Use: "oci", LookPath: lookOnly("uvx")}); !errors.Is(err, ErrCannotRun) || !strings.Contains(err.Error(), "needs docker") {
		t.Fatalf("oci without docker: %v", err)
	}
	// mcpb without a hash is refused.
	if _, err := Build(e, Options{Use: "mcpb"}); err == nil || !strings.Contains(err.Error(), "fileSha256") {
		t.Fatalf("mcpb without hash: %v", err)
	}
	pl, err = Build(e, Options{Use: KindRemote, Values: map[string]string{"tenant": "acme"}})
	if err != nil {
		t.Fatal(err)
	}
	c := pl.Config
	if c.TransportName() != "http" || c.URL != "https://acme.example/mcp" || c.Headers["Authorization"] != "Bearer ${TOKEN}" || pl.Secrets[0].Key != "TOKEN" {
		t.Fatalf("remote: %+v secrets %+v", c, pl.Secrets)
	}
	if pl, _ := Build(e, Options{Use: KindRemote}); len(pl.Missing) != 1 || pl.Missing[0].Key != "tenant" {
		t.Fatalf("remote without tenant: %+v", pl.Missing)
	}
	// With nothing to run packages, the remote is the choice.
	pl, err = Build(e, Options{LookPath: lookOnly()})
	if err != nil || pl.Kind != KindRemote {
		t.Fatalf("nothing runnable: %v", err)
	}
}

func configWithArgs(args ...string) config.ServerConfig {
	return config.ServerConfig{Args: args}
}
