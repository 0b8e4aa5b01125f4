package tokenstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/zalando/go-keyring"
)

const secret = "at-very-secret-value"

func record(n int) *auth.Record {
	return &auth.Record{
		Issuer: "https://as.example", Resource: "https://mcp.example/mcp",
		Token:  &auth.Token{AccessToken: secret + strconv.Itoa(n), RefreshToken: "rt-" + strconv.Itoa(n), ExpiresAt: time.Unix(1_900_000_000, 0).UTC()},
		Client: &auth.Client{Kind: auth.ClientDynamic, Issuer: "https://as.example", ClientID: "c1"},
		Scopes: []string{"a", "b"},
	}
}

func TestAccount(t *testing.T) {
	a := Account(auth.Key{ServerID: "notes", URL: "https://mcp.example/mcp"})
	b := Account(auth.Key{ServerID: "notes", URL: "https://other.example/mcp"})
	if !strings.HasPrefix(a, "notes|") || len(a) != len("notes|")+16 || a == b {
		t.Errorf("accounts %q %q", a, b)
	}
}

func TestFileBackend(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(Options{Backend: BackendFile, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	key := auth.Key{ServerID: "notes", URL: "https://mcp.example/mcp"}
	if rec, err := s.Load(ctx, key); rec != nil || err != nil {
		t.Fatalf("empty store: %v %v", rec, err)
	}
	if err := s.Save(ctx, key, record(1)); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, FileName))
	// Windows has no mode bits: the file is private by its place under
	// the user's profile (%AppData%), and Go reports 0666.
	if err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode: %v %v", fi, err)
	}
	got, err := s.Load(ctx, key)
	if err != nil || got.Token.AccessToken != secret+"1" || got.Scopes[1] != "b" {
		t.Fatalf("load: %+v %v", got, err)
	}
	// Another URL is another account.
	if rec, _ := s.Load(ctx, auth.Key{ServerID: "notes", URL: "https://changed.example/mcp"}); rec != nil {
		t.Error("a changed URL reused the tokens")
	}
	if err := s.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if rec, _ := s.Load(ctx, key); rec != nil {
		t.Error("deleted record still there")
	}
	if err := s.Delete(ctx, key); err != nil {
		t.Errorf("deleting a missing record: %v", err)
	}
	if s.Backend() != BackendFile || !strings.Contains(s.Describe(), dir) {
		t.Errorf("describe: %s", s.Describe())
	}
}

func TestFileCorruptIsNeverOverwritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	os.WriteFile(path, []byte("{not json"), 0o600)
	s, _ := Open(Options{Backend: BackendFile, Dir: dir})
	key := auth.Key{ServerID: "x", URL: "https://x"}
	err := s.Save(context.Background(), key, record(1))
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("save over a corrupt file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{not json" {
		t.Errorf("corrupt file was rewritten: %q", b)
	}
	if strings.Contains(err.Error(), secret) {
		t.Error("error shows a token")
	}
}

// Writers in goroutines and in other processes never lose each other's
// records.
func TestFileConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	if os.Getenv("TOKENSTORE_CHILD_DIR") != "" {
		t.Skip("child")
	}
	const procs, perProc = 2, 20
	var cmds []*exec.Cmd
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFileWriterChild$")
		cmd.Env = append(os.Environ(), "TOKENSTORE_CHILD_DIR="+dir, "TOKENSTORE_CHILD_ID=p"+strconv.Itoa(p), "TOKENSTORE_CHILD_N="+strconv.Itoa(perProc))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	s, _ := Open(Options{Backend: BackendFile, Dir: dir})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perProc {
				key := auth.Key{ServerID: fmt.Sprintf("g%d-%d", g, i), URL: "https://x"}
				if err := s.Save(context.Background(), key, record(i)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("child: %v", err)
		}
	}
	doc, err := (&fileBackend{path: filepath.Join(dir, FileName)}).read()
	if err != nil {
		t.Fatal(err)
	}
	if want := 4*perProc + procs*perProc; len(doc.Accounts) != want {
		t.Fatalf("%d records, want %d: writes were lost", len(doc.Accounts), want)
	}
}

func TestFileWriterChild(t *testing.T) {
	dir := os.Getenv("TOKENSTORE_CHILD_DIR")
	if dir == "" {
		t.Skip("run by TestFileConcurrentWriters as a child process")
	}
	n, _ := strconv.Atoi(os.Getenv("TOKENSTORE_CHILD_N"))
	s, _ := Open(Options{Backend: BackendFile, Dir: dir})
	for i := range n {
		key := auth.Key{ServerID: fmt.Sprintf("%s-%d", os.Getenv("TOKENSTORE_CHILD_ID"), i), URL: "https://x"}
		if err := s.Save(context.Background(), key, record(i)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLockExcludesAndHonorsContext(t *testing.T) {
	s, _ := Open(Options{Backend: BackendFile, Dir: t.TempDir()})
	key := auth.Key{ServerID: "a", URL: "https://x"}
	unlock, err := s.Lock(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := s.Lock(ctx, key); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second lock while held: %v", err)
	}
	// Another key is independent.
	u2, err := s.Lock(context.Background(), auth.Key{ServerID: "b", URL: "https://x"})
	if err != nil {
		t.Fatal(err)
	}
	u2()
	unlock()
	u3, err := s.Lock(context.Background(), key)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	u3()
}

func TestKeyringChunksLargeRecords(t *testing.T) {
	keyring.MockInit()
	s, err := Open(Options{Backend: BackendKeyring, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	key := auth.Key{ServerID: "big", URL: "https://x"}
	big := record(1)
	big.Token.AccessToken = strings.Repeat("A", 5000)
	if err := s.Save(ctx, key, big); err != nil {
		t.Fatal(err)
	}
	head, _ := keyring.Get(Service, Account(key))
	if !strings.HasPrefix(head, chunkPrefix) {
		t.Fatalf("a 5 KB record was stored in one item")
	}
	got, err := s.Load(ctx, key)
	if err != nil || got.Token.AccessToken != big.Token.AccessToken {
		t.Fatalf("chunked round trip: %v", err)
	}
	// A smaller record replaces it and leaves no parts behind.
	if err := s.Save(ctx, key, record(2)); err != nil {
		t.Fatal(err)
	}
	if _, err := keyring.Get(Service, Account(key)+"#2"); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("old part left behind: %v", err)
	}
	if err := s.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if rec, _ := s.Load(ctx, key); rec != nil {
		t.Error("deleted")
	}
}

func TestAutoFallsBackToFileAndSaysSo(t *testing.T) {
	keyring.MockInitWithError(errors.New("org.freedesktop.secrets was not provided by any service"))
	dir := t.TempDir()
	s, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if s.Backend() != BackendFile || !strings.Contains(s.Warning(), "keyring unavailable") || !strings.Contains(s.Warning(), dir) {
		t.Errorf("backend %s, warning %q", s.Backend(), s.Warning())
	}
	keyring.MockInit()
	s, _ = Open(Options{Dir: t.TempDir()})
	if s.Backend() != BackendKeyring || s.Warning() != "" {
		t.Errorf("with a working keyring: %s %q", s.Backend(), s.Warning())
	}
}

type hangingKeyring struct{}

func (hangingKeyring) Get(string, string) (string, error) { select {} }
func (hangingKeyring) Set(string, string, string) error   { select {} }
func (hangingKeyring) Delete(string, string) error        { select {} }

func TestKeyringCallsAreBounded(t *testing.T) {
	old := kr
	kr = hangingKeyring{}
	defer func() { kr = old }()
	start := time.Now()
	s, err := Open(Options{Dir: t.TempDir(), Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if s.Backend() != BackendFile || !strings.Contains(s.Warning(), "no answer within") {
		t.Errorf("auto with a hung keyring: %s %q", s.Backend(), s.Warning())
	}
	s, _ = Open(Options{Backend: BackendKeyring, Dir: t.TempDir(), Timeout: 200 * time.Millisecond})
	_, err = s.Load(context.Background(), auth.Key{ServerID: "x", URL: "https://x"})
	if err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("load from a hung keyring: %v after %v", err, time.Since(start))
	}
}
