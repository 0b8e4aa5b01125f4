package e2e_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
)

// floodPeer is e2e/internal/floodpeer (a go-sdk server over HTTP that
// floods on request) in a process of its own: built without -race, so that
// its work is a server's, not the race-built test binary's, and shares the
// machine with the host as a real server would.
type floodPeer struct {
	url   string
	admin string
}

const stormCount = 10000 // as floodpeer sends

// newFloodPeers builds floodpeer once and starts n of them.
func newFloodPeers(t *testing.T, n int) []*floodPeer {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "floodpeer")
	cmd := exec.Command("go", "build", "-o", bin, "./e2e/internal/floodpeer")
	cmd.Dir = testenv.RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./e2e/internal/floodpeer: %v\n%s", err, out)
	}
	var peers []*floodPeer
	for range n {
		port := testenv.FreePort(t)
		addr := "127.0.0.1:" + strconv.Itoa(port)
		testenv.StartProcess(t, testenv.ProcessOptions{Argv: []string{bin, "-addr", addr}, ReadyPort: port})
		peers = append(peers, &floodPeer{url: "http://" + addr + "/mcp", admin: "http://" + addr + "/lists"})
	}
	return peers
}

// lists is how many tools/list requests the peer got.
func (p *floodPeer) lists(t *testing.T) int64 {
	t.Helper()
	resp, err := http.Get(p.admin)
	if err != nil {
		t.Fatalf("flood peer's count: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatalf("flood peer's count %q: %v", b, err)
	}
	return n
}

// TestNotificationFlood: a server that sends 10,000 resources/updated and
// 2,000 tools/list_changed in a second, then a list_changed every
// 20 ms for two seconds. The host's memory stays bounded (its RSS grows
// by less than 64 MiB over the storm), it lists the server's tools at
// most four times a second however many list_changed come, every
// resources/updated
// reaches the UI either as a notification or counted in one's
// `coalesced` (none invented; see below for the few the server's stream
// loses), and another server's calls made
// during the storm all succeed, their median latency within 3x of a quiet
// run's. The host reads the flooding server at its own pace (pace.go),
// which the time it took to read the storm shows.
func TestNotificationFlood(t *testing.T) {
	measuresMemory(t)
	peers := newFloodPeers(t, 2)
	a, b := peers[0], peers[1]
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"a": map[string]any{"transport": "http", "url": a.url, "request_timeout_ms": 120000},
		"b": map[string]any{"transport": "http", "url": b.url},
	}}})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file", "HOME=" + dir},
		"--permissions", filepath.Join(dir, "permissions.json"), "--allow", "a/*", "--allow", "b/*")
	ctx := ctxT(t, 3*time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e-flood"}}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		waitFor(t, 30*time.Second, id+" ready", func() bool {
			st, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: id})
			return err == nil && st.Server.State == protocol.StateReady
		})
	}
	if _, err := protocol.NewPrimitivesCaller(h.conn).ResourcesSubscribe(ctx, &protocol.ResourceParams{Server: "a", URI: "mem://watched"}); err != nil {
		t.Fatalf("resources.subscribe: %v", err)
	}
	echo := func() time.Duration {
		start := time.Now()
		if _, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "b", Tool: "echo"}); err != nil {
			t.Fatalf("b/echo: %v", err)
		}
		return time.Since(start)
	}
	quiet := make([]time.Duration, 0, 50)
	for range 50 {
		quiet = append(quiet, echo())
	}
	before, listsBefore := rssKB(h.cmd.Process.Pid), a.lists(t)
	cpuBefore := procCPU(h.cmd.Process.Pid)

	done := make(chan error, 1)
	began := time.Now()
	go func() {
		_, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "a", Tool: "storm"})
		done <- err
	}()
	var stormy []time.Duration
	for stormOn := true; stormOn; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("a/storm: %v", err)
			}
			stormOn = false
		default:
			stormy = append(stormy, echo())
		}
	}
	storm := time.Since(began)
	hostCPU := procCPU(h.cmd.Process.Pid) - cpuBefore
	// The host reads a flooding server at its own pace (maxMessageRate in
	// runtime/session/pace.go): the storm's notifications keep arriving
	// after the storm's answer. Count until none came for a second.
	var notes, folded int
	// b's calls go on meanwhile: they count as calls during the storm.
	// Only the calls made before the last notification was read count.
	var settling []time.Duration
	readIn := time.Duration(0) // when the last of the storm was read
	for last, quietSince := -1, time.Now(); time.Since(quietSince) < time.Second; {
		for tick := time.Now(); time.Since(tick) < 100*time.Millisecond; {
			settling = append(settling, echo())
		}
		notes, folded = h.resourceUpdates("a")
		if notes+folded != last {
			last, quietSince = notes+folded, time.Now()
			readIn = time.Since(began)
			stormy, settling = append(stormy, settling...), settling[:0]
		}
	}
	settled := time.Since(began)
	after, lists := rssKB(h.cmd.Process.Pid), a.lists(t)-listsBefore

	if max := int64(settled/(250*time.Millisecond)) + 3; lists > max {
		t.Errorf("the host listed a's tools %d times during a %v storm of list_changed; want at most %d (four a second)", lists, settled, max)
	}
	if runtime.GOOS == "linux" && after-before > 64<<10 {
		t.Errorf("host serve grew by %d KiB over the storm", after-before)
	}
	// None invented, and most delivered: the go-sdk server sends these on
	// its subscription stream, which does not promise every one under a
	// flood (seen: 9,197 of 10,000 reached the UI once, 10,000 another
	// time); what the host got, it passes on or counts.
	if notes+folded > stormCount || notes+folded < stormCount*9/10 || notes >= stormCount {
		t.Errorf("resources.updated: %d notifications + %d coalesced = %d, want at most the %d the server sent, at least 90 %% of them, and fewer notifications than that",
			notes, folded, notes+folded, stormCount)
	}
	// A hundred list_changed over two seconds: at most four lists a second.
	listsBefore = a.lists(t)
	began = time.Now()
	if _, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "a", Tool: "blinker"}); err != nil {
		t.Fatalf("a/blinker: %v", err)
	}
	time.Sleep(500 * time.Millisecond)
	blink, blinkLists := time.Since(began), a.lists(t)-listsBefore
	if max := int64(blink/(250*time.Millisecond)) + 3; blinkLists > max {
		t.Errorf("the host listed a's tools %d times for 100 list_changed over %v; want at most %d (four a second)", blinkLists, blink, max)
	}
	t.Logf("100 list_changed over %v: %d tools/list", blink.Round(time.Millisecond), blinkLists)
	med := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	// The host read the storm at its pace (2,000 a second after a burst of
	// 1,000: runtime/session/pace.go), not as fast as the server sent it
	// (about 2 s when it did); a loaded machine only makes it slower.
	if min := time.Duration(stormCount-1000) * time.Second / 2000 * 9 / 10; readIn < min {
		t.Errorf("the host read the storm's %d notifications in %v, faster than its pace allows (at least %v)", stormCount, readIn, min)
	}
	// The other server's calls: within 2x of the quiet run is the goal
	// (1.03-1.11x measured, 1.5-1.7x without the pace); 3x leaves room for
	// a shared machine.
	if ratio := float64(med(stormy)) / float64(med(quiet)); ratio > 3 {
		t.Errorf("b/echo's median latency during the storm is %.1fx the quiet run's (%v against %v); want at most 3x", ratio, med(stormy), med(quiet))
	}
	t.Logf("storm of %d in %v (all read in %v): host CPU %v in the storm, %d tools/list, RSS %d -> %d KiB, resources.updated %d notifications (+%d coalesced); b/echo median %v quiet, %v in the storm (%.2fx, %d calls)",
		stormCount, storm.Round(time.Millisecond), readIn.Round(time.Millisecond), hostCPU, lists, before, after, notes, folded, med(quiet), med(stormy), float64(med(stormy))/float64(med(quiet)), len(stormy))
}

// procCPU is the user and system CPU time process pid has used (Linux;
// 0 elsewhere), in clock ticks of 10 ms.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0
	}
	user, _ := strconv.Atoi(f[11])
	sys, _ := strconv.Atoi(f[12])
	return time.Duration(user+sys) * 10 * time.Millisecond
}

// resourceUpdates counts the resources.updated the UI got for server and
// the notifications their coalesced fields say were folded into them.
func (h *servedHost) resourceUpdates(server string) (notes, folded int) {
	h.out.mu.Lock()
	out := append([]byte(nil), h.out.w.(*bytes.Buffer).Bytes()...)
	h.out.mu.Unlock()
	for _, line := range bytes.Split(out, []byte("\n")) {
		var m struct {
			Method string                         `json:"method"`
			Params protocol.ResourceUpdatedParams `json:"params"`
		}
		if json.Unmarshal(line, &m) == nil && m.Method == protocol.MethodResourcesUpdated && m.Params.Server == server {
			notes++
			folded += m.Params.Coalesced
		}
	}
	return notes, folded
}
