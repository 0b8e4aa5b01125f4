package testenv

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// RegistryModule is the MCP registry the registry e2e runs: the official
// server, built from its Go module. v1.8.9 needs huma v2.40.0, which the
// module proxy does not serve; v1.8.8 builds.
const RegistryModule = "github.com/modelcontextprotocol/registry@v1.8.8"

var registryBuild struct {
	once sync.Once
	path string
	err  error
}

// RegistryBinary returns the registry server: $MCP_REGISTRY_BIN, else one
// built once from RegistryModule into the user's cache directory (a cold
// build downloads its modules: minutes; later runs reuse the binary).
func RegistryBinary(t testing.TB) string {
	t.Helper()
	registryBuild.once.Do(func() { registryBuild.path, registryBuild.err = BuildRegistry() })
	Require(t, "the MCP registry server ("+RegistryModule+", built with go)", registryBuild.err)
	return registryBuild.path
}

// BuildRegistry returns the registry server's path: $MCP_REGISTRY_BIN, or
// the binary in the user's cache directory, built there from RegistryModule
// when it is missing. scripts/test.sh calls it (through
// e2e/internal/testenv/prebuild) while the Debian and npm packages install,
// so that the cold build, minutes of download and compile, overlaps them.
func BuildRegistry() (string, error) {
	if p := os.Getenv("MCP_REGISTRY_BIN"); p != "" {
		return p, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(cache, "mcp-host-e2e", strings.NewReplacer("/", "_", "@", "-").Replace(RegistryModule))
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	out, err := exec.Command("go", "mod", "download", "-json", RegistryModule).Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", RegistryModule, err)
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s %v", RegistryModule, mod.Error, err)
	}
	start := time.Now()
	// Without optimisation: a peer that answers a few requests, and its
	// cold build took 73 CPU-s instead of 87.
	build := exec.Command("go", "build", "-gcflags=all=-N -l -dwarf=false", "-o", bin+".tmp", "./cmd/registry")
	build.Dir = mod.Dir
	build.Env = append(os.Environ(), strings.TrimSpace("GOFLAGS=-mod=mod "+os.Getenv("GOFLAGS")))
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %w\n%s", RegistryModule, err, out)
	}
	fmt.Fprintf(os.Stderr, "testenv: built %s in %s\n", RegistryModule, time.Since(start).Round(time.Second))
	return bin, os.Rename(bin+".tmp", bin)
}

// pgBin finds a PostgreSQL program on PATH or in Debian's
// /usr/lib/postgresql/<version>/bin.
func pgBin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	if len(matches) == 0 {
		return "", fmt.Errorf("%s not found (Debian package postgresql)", name)
	}
	return matches[len(matches)-1], nil
}

// asPostgresUser prefixes argv so that it runs as the postgres user when
// the test runs as root (PostgreSQL refuses to run as root).
func asPostgresUser(argv []string, dir string) ([]string, error) {
	if os.Geteuid() != 0 {
		return argv, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root needs the postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chown(p, uid, gid)
	}); err != nil {
		return nil, err
	}
	return append([]string{"runuser", "-u", "postgres", "--"}, argv...), nil
}

// StartPostgres starts a throwaway PostgreSQL cluster in a temporary
// directory on a loopback port and returns its URL (database postgres,
// user reg, no password). It ends with the test.
func StartPostgres(t testing.TB) string {
	t.Helper()
	initdb, err := pgBin("initdb")
	Require(t, "PostgreSQL initdb", err)
	postgres, err := pgBin("postgres")
	Require(t, "PostgreSQL server", err)
	dir, err := os.MkdirTemp("", "e2e-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	argv, err := asPostgresUser([]string{initdb, "-D", data, "-U", "reg", "-A", "trust", "--no-sync"}, dir)
	Require(t, "PostgreSQL as a user other than root", err)
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	port := FreePort(t)
	argv, err = asPostgresUser([]string{postgres, "-D", data, "-k", dir, "-h", "127.0.0.1", "-p", strconv.Itoa(port),
		"-c", "fsync=off", "-c", "max_connections=40"}, dir)
	if err != nil {
		t.Fatal(err)
	}
	StartProcess(t, ProcessOptions{Argv: argv, ReadyPort: port, ReadyTimeout: 60 * time.Second})
	return fmt.Sprintf("postgres://reg@127.0.0.1:%d/postgres?sslmode=disable", port)
}

// Registry is a running MCP registry server.
type Registry struct {
	URL  string
	proc *Process
	db   string
	port int
}

// StartRegistry starts the registry server on database db (see
// StartPostgres), seeded from the server.json array in seedFile. Package
// validation against npm, PyPI and the other public registries is off:
// the test's traffic stays on loopback.
func StartRegistry(t testing.TB, db, seedFile string) *Registry {
	t.Helper()
	r := &Registry{db: db, port: FreePort(t)}
	r.URL = fmt.Sprintf("http://127.0.0.1:%d", r.port)
	r.start(t, RegistryBinary(t), seedFile)
	return r
}

// Reseed restarts the registry with more entries from seedFile (entries it
// has already stay; new versions of them become the latest).
func (r *Registry) Reseed(t testing.TB, seedFile string) {
	t.Helper()
	r.proc.Stop()
	r.start(t, RegistryBinary(t), seedFile)
}

func (r *Registry) start(t testing.TB, bin, seedFile string) {
	p, err := startProcess(t, ProcessOptions{
		Argv: []string{bin},
		Env: []string{
			"MCP_REGISTRY_DATABASE_URL=" + r.db,
			"MCP_REGISTRY_SERVER_ADDRESS=127.0.0.1:" + strconv.Itoa(r.port),
			"MCP_REGISTRY_SEED_FROM=" + seedFile,
			"MCP_REGISTRY_JWT_PRIVATE_KEY=" + strings.Repeat("0", 64),
			"MCP_REGISTRY_ENABLE_REGISTRY_VALIDATION=false",
			"MCP_REGISTRY_DATABASE_MIN_CONNECTIONS=1",
			"MCP_REGISTRY_DATABASE_MAX_CONNECTIONS=4",
		},
		ReadyPort:    r.port,
		ReadyTimeout: 90 * time.Second,
	})
	if err != nil {
		out := ""
		if p != nil {
			out = p.Output()
		}
		t.Fatalf("registry: %v\n%s", err, out)
	}
	r.proc = p
}
