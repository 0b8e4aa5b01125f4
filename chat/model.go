package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/mcp-host/mcp-host/protocol"
)

var (
	styleDim    = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
	styleUser   = lipgloss.NewStyle().Bold(true)
	styleTool   = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	styleErr    = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	styleWarn   = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	styleBox    = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1)
	styleHeader = lipgloss.NewStyle().Bold(true)
)

// callTimeout bounds the runtime requests the chat makes (logins excepted).
const callTimeout = 30 * time.Second

// Model is the chat screen.
type Model struct {
	rt    protocol.Server
	model string

	input   textinput.Model
	spin    spinner.Model
	width   int
	height  int
	out     []string  // lines to print above the screen on the next update
	stream  string    // the answer being streamed
	early   []tea.Msg // run messages that came before run.start's answer
	servers map[string]protocol.ServerStatus
	showMCP bool
	detail  string // rendered /mcp <id> or /tools, shown until the next command

	run      string // run in progress
	conv     string
	waiting  map[string]string // operations in progress: key -> label
	ask      *askMsg
	askStage string // "", "reason", "prompt", "elicit"
	elicit   *elicitForm
	ctrlC    int
	quitting bool
}

// elicitForm asks the fields of a flat elicitation schema one by one.
type elicitForm struct {
	fields []elicitField
	i      int
	values map[string]any
}

type elicitField struct{ name, typ, desc string }

// NewModel returns the chat model talking to rt.
func NewModel(rt protocol.Server, init *protocol.InitializeResult) *Model {
	in := textinput.New()
	in.Placeholder = "Ask something, or /help"
	in.Prompt = "> "
	in.CharLimit = 8000
	in.Focus()
	sp := spinner.New()
	sp.Spinner = spinner.MiniDot
	m := &Model{rt: rt, input: in, spin: sp, servers: map[string]protocol.ServerStatus{}, waiting: map[string]string{}, width: 100, height: 30}
	if init != nil {
		m.model = init.Capabilities.Model
		for _, st := range init.Servers {
			m.servers[st.ID] = st
		}
		for _, p := range init.Problems {
			m.addLine(styleWarn.Render("config: " + p))
		}
		if !init.Capabilities.Runs {
			m.addLine(styleWarn.Render("No model is configured: prompts will fail. Start with --model NAME (OpenAI-compatible) or --script FILE."))
		}
	}
	m.addLine(styleDim.Render("Type a prompt, or /help for commands. /mcp shows the servers."))
	return m
}

// Init starts the spinner.
func (m *Model) Init() tea.Cmd { return tea.Batch(textinput.Blink, m.spin.Tick) }

// addLine queues s for the transcript, which is printed above the screen
// into the terminal's scrollback (so long lines wrap and can be copied).
func (m *Model) addLine(s string) {
	m.flushStream()
	m.out = append(m.out, s)
}

// flushStream moves a streamed answer into the transcript.
func (m *Model) flushStream() {
	if m.stream != "" {
		m.out = append(m.out, m.stream)
		m.stream = ""
	}
}

// results of runtime calls, delivered as messages.
type (
	callDoneMsg struct {
		key  string
		text string
		err  error
	}
	runStartedMsg struct {
		res *protocol.RunStartResult
		err error
	}
)

func (m *Model) call(key, label string, timeout time.Duration, fn func(ctx context.Context) (string, error)) tea.Cmd {
	if label != "" {
		m.waiting[key] = label
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		text, err := fn(ctx)
		return callDoneMsg{key: key, text: text, err: err}
	}
}

// Update handles keys, window changes and the runtime's messages, then
// prints what the transcript gained.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	model, cmd := m.update(msg)
	if len(m.out) > 0 {
		text := strings.Join(m.out, "\n")
		m.out = nil
		cmd = tea.Sequence(tea.Println(text), cmd)
	}
	return model, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.input.Width = msg.Width - 4
		return m, nil
	case spinner.TickMsg:
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case tea.KeyMsg:
		return m.key(msg)
	case statusMsg:
		if msg.p.Removed {
			delete(m.servers, msg.p.Server.ID)
			m.addLine(styleDim.Render("server " + msg.p.Server.ID + " removed from the configuration"))
		} else {
			old, had := m.servers[msg.p.Server.ID]
			m.servers[msg.p.Server.ID] = msg.p.Server
			if st := msg.p.Server; (!had || old.State != st.State) && (st.State == protocol.StateError || st.State == protocol.StateAuthRequired) {
				line := fmt.Sprintf("%s: %s", st.ID, st.State)
				if st.LastError != "" {
					line += " — " + st.LastError
				}
				if st.State == protocol.StateAuthRequired {
					line += "  (/login " + st.ID + ")"
				}
				m.addLine(styleWarn.Render(line))
			}
		}
		return m, nil
	case eventMsg:
		if m.holdEarly(msg.p.RunID, msg) {
			return m, nil
		}
		m.event(msg.p)
		return m, nil
	case runMsg:
		if m.holdEarly(msg.p.RunID, msg) {
			return m, nil
		}
		if msg.p.RunID != m.run {
			return m, nil
		}
		if msg.p.Status != protocol.RunRunning {
			m.flushStream()
			m.run = ""
			delete(m.waiting, "run")
			switch msg.p.Status {
			case protocol.RunCompleted:
			case protocol.RunCancelled:
				m.addLine(styleWarn.Render("run cancelled"))
			default:
				m.addLine(styleErr.Render(fmt.Sprintf("run %s: %s", msg.p.Status, msg.p.Error)))
			}
		}
		return m, nil
	case logMsg:
		if msg.p.Level == "warn" || msg.p.Level == "error" {
			m.addLine(styleWarn.Render(msg.p.Level + ": " + msg.p.Message))
		}
		return m, nil
	case askMsg:
		m.openAsk(msg)
		return m, nil
	case cancelAskMsg:
		if m.ask != nil {
			m.addLine(styleDim.Render("(the question timed out: treated as no)"))
		}
		m.closeAsk()
		return m, nil
	case runStartedMsg:
		delete(m.waiting, "start")
		if msg.err != nil {
			m.early = nil
			m.addLine(styleErr.Render(describeErr(msg.err)))
			return m, nil
		}
		m.run, m.conv = msg.res.RunID, msg.res.Conversation
		m.waiting["run"] = "thinking"
		// The runtime writes the answer before the run's first event, but
		// the answer reaches Update through a command goroutine and may come
		// second: replay what arrived early.
		early := m.early
		m.early = nil
		var cmds []tea.Cmd
		for _, e := range early {
			_, cmd := m.update(e)
			cmds = append(cmds, cmd)
		}
		return m, tea.Batch(cmds...)
	case callDoneMsg:
		delete(m.waiting, msg.key)
		if msg.err != nil {
			m.addLine(styleErr.Render(describeErr(msg.err)))
		} else if msg.text != "" {
			if strings.HasPrefix(msg.key, "detail") {
				m.detail = msg.text
			} else {
				m.addLine(msg.text)
			}
		}
		return m, nil
	case quitMsg:
		m.quitting = true
		return m, tea.Quit
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

type quitMsg struct{}

// holdEarly keeps a run's message that arrives while run.start is still
// being answered, for runStartedMsg to replay; it reports whether it did.
func (m *Model) holdEarly(runID string, msg tea.Msg) bool {
	if _, starting := m.waiting["start"]; !starting || m.run != "" || runID == "" {
		return false
	}
	m.early = append(m.early, msg)
	return true
}

func (m *Model) event(e protocol.AgentEventParams) {
	if e.RunID != m.run {
		return
	}
	switch e.Type {
	case protocol.EventTextDelta:
		m.stream += e.Text
	case protocol.EventToolCall:
		m.addLine(styleTool.Render(fmt.Sprintf("→ %s %s", origin(e.Call), compact(e.Call.Arguments))))
	case protocol.EventToolResult:
		if e.Result != nil {
			text := resultText(*e.Result)
			style := styleDim
			if e.Result.IsError {
				style = styleErr
			}
			m.addLine(style.Render(fmt.Sprintf("← %s: %s", origin(e.Call), truncate(text, 300))))
		}
	case protocol.EventPermission:
		if e.Phase == "decided" && e.Decision != "allow" {
			line := fmt.Sprintf("✗ %s %s", origin(e.Call), e.Decision)
			if e.Reason != "" {
				line += ": " + e.Reason
			}
			m.addLine(styleWarn.Render(line))
		}
	case protocol.EventError:
		m.addLine(styleErr.Render("error: " + e.Error))
	}
}

func origin(c *protocol.ToolCallInfo) string {
	if c == nil {
		return "?"
	}
	if c.Server != "" {
		return c.Server + "/" + c.Tool
	}
	return c.PublicName
}

func compact(raw json.RawMessage) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	return truncate(s, 200)
}

func truncate(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > n {
		return s[:n-1] + "…"
	}
	return s
}

func resultText(r protocol.ToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		} else {
			parts = append(parts, "["+c.Type+"]")
		}
	}
	return strings.Join(parts, " ")
}

// describeErr names a protocol error's code.
func describeErr(err error) string {
	var perr *protocol.Error
	if e, ok := err.(*protocol.Error); ok {
		perr = e
	}
	if perr == nil {
		return "error: " + err.Error()
	}
	names := map[int64]string{
		protocol.CodeUnknownServer: "unknown server", protocol.CodeNotReady: "not ready", protocol.CodeDenied: "denied",
		protocol.CodeNoModel: "no model", protocol.CodeCancelled: "cancelled", protocol.CodeInvalidParams: "invalid",
		protocol.CodeUnknownRun: "no such run", protocol.CodeFailed: "failed",
	}
	name := names[perr.Code]
	if name == "" {
		name = "error " + strconv.FormatInt(perr.Code, 10)
	}
	return name + ": " + perr.Message
}

func (m *Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if k.Type != tea.KeyCtrlC {
		m.ctrlC = 0
	}
	if m.ask != nil && m.askStage == "" {
		return m, m.answerKey(k)
	}
	switch k.Type {
	case tea.KeyCtrlC:
		m.ctrlC++
		if m.run != "" && m.ctrlC == 1 {
			return m, m.cancelRun()
		}
		if m.ctrlC >= 2 || m.run == "" {
			return m, m.quit()
		}
		return m, nil
	case tea.KeyEsc:
		if m.askStage != "" {
			return m, m.submitStage("", true)
		}
		if m.run != "" {
			return m, m.cancelRun()
		}
		m.showMCP, m.detail = false, ""
		return m, nil
	case tea.KeyEnter:
		text := strings.TrimSpace(m.input.Value())
		m.input.SetValue("")
		if m.askStage != "" {
			return m, m.submitStage(text, false)
		}
		if text == "" {
			return m, nil
		}
		return m, m.submit(text)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return m, cmd
}

func (m *Model) cancelRun() tea.Cmd {
	id := m.run
	return m.call("cancel", "", callTimeout, func(ctx context.Context) (string, error) {
		_, err := m.rt.RunCancel(ctx, &protocol.RunCancelParams{RunID: id})
		return "", err
	})
}

func (m *Model) quit() tea.Cmd {
	m.addLine(styleDim.Render("shutting down the runtime…"))
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, _ = m.rt.Shutdown(ctx, &protocol.Empty{})
		return quitMsg{}
	}
}

const help = `Commands:
  /mcp              servers: id, transport, source, enabled, state, tools, auth (live)
  /mcp <id>         one server: last error, last connected, protocol, token, stderr tail
  /tools [<id>]     the tools the model sees
  /login <id>       log in to an OAuth server (asks first; browser or pasted redirect)
  /logout <id>      forget a server's tokens
  /reconnect <id>   reconnect a server
  /enable <id>, /disable <id>
  /new              start a new conversation
  /quit             shut the runtime down and leave
Keys: Enter sends; Esc cancels a running answer or closes a view; Ctrl+C twice quits.`

func (m *Model) submit(text string) tea.Cmd {
	m.detail = ""
	if !strings.HasPrefix(text, "/") {
		m.showMCP = false
		m.addLine(styleUser.Render("> " + text))
		if m.run != "" {
			m.addLine(styleWarn.Render("a run is in progress; Esc cancels it"))
			return nil
		}
		conv := m.conv
		m.waiting["start"] = "starting"
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			res, err := m.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: text, Conversation: conv})
			return runStartedMsg{res: res, err: err}
		}
	}
	fields := strings.Fields(text)
	cmd, arg := fields[0], ""
	if len(fields) > 1 {
		arg = fields[1]
	}
	needID := func() bool {
		if arg == "" {
			m.addLine(styleErr.Render(cmd + " needs a server id"))
			return false
		}
		return true
	}
	switch cmd {
	case "/help":
		m.addLine(help)
	case "/quit", "/exit":
		return m.quit()
	case "/new":
		m.conv = ""
		m.addLine(styleDim.Render("new conversation"))
	case "/mcp":
		if arg == "" {
			m.showMCP = true
			return nil
		}
		m.showMCP = false
		return m.call("detail-mcp", "reading "+arg, callTimeout, func(ctx context.Context) (string, error) {
			g, err := m.rt.MCPGet(ctx, &protocol.ServerParams{ID: arg})
			if err != nil {
				return "", err
			}
			return renderDetail(g.Server), nil
		})
	case "/tools":
		return m.call("detail-tools", "listing tools", callTimeout, func(ctx context.Context) (string, error) {
			l, err := m.rt.ToolsList(ctx, &protocol.ToolsListParams{Server: arg})
			if err != nil {
				return "", err
			}
			return renderTools(l), nil
		})
	case "/login":
		if !needID() {
			return nil
		}
		m.addLine(styleDim.Render("logging in to " + arg + "…"))
		return m.call("login-"+arg, "waiting for the login to "+arg, 6*time.Minute, func(ctx context.Context) (string, error) {
			r, err := m.rt.MCPLogin(ctx, &protocol.LoginParams{ID: arg})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s: logged in (%s)", arg, authText(r.Server)), nil
		})
	case "/logout":
		if !needID() {
			return nil
		}
		return m.call("logout-"+arg, "", callTimeout, func(ctx context.Context) (string, error) {
			_, err := m.rt.MCPLogout(ctx, &protocol.LogoutParams{ID: arg})
			return arg + ": logged out", err
		})
	case "/reconnect", "/enable", "/disable":
		if !needID() {
			return nil
		}
		return m.call(cmd+arg, "", callTimeout, func(ctx context.Context) (string, error) {
			p := &protocol.ServerParams{ID: arg}
			var err error
			switch cmd {
			case "/reconnect":
				_, err = m.rt.MCPReconnect(ctx, p)
			case "/enable":
				_, err = m.rt.MCPEnable(ctx, p)
			default:
				_, err = m.rt.MCPDisable(ctx, p)
			}
			return fmt.Sprintf("%s: %s", arg, strings.TrimPrefix(cmd, "/")), err
		})
	default:
		m.addLine(styleErr.Render("unknown command " + cmd + " (try /help)"))
	}
	return nil
}

func authText(st protocol.ServerStatus) string {
	if st.Auth == nil {
		return "-"
	}
	s := st.Auth.Detail
	if s == "" && st.Auth.LoggedIn {
		s = "logged in"
	}
	return s
}

func renderDetail(d protocol.ServerDetail) string {
	var b strings.Builder
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%-18s %s\n", k+":", v)
		}
	}
	row("server", d.ID)
	row("state", d.State)
	row("transport", d.Transport)
	row("source", d.Source)
	row("target", d.URL+d.Command)
	if d.ServerName != "" {
		row("implementation", d.ServerName+" "+d.ServerVersion)
	}
	row("protocol", d.ProtocolVersion)
	row("session", d.SessionID)
	row("tools", strconv.Itoa(d.Tools))
	if !d.LastConnectedAt.IsZero() {
		row("last connected", d.LastConnectedAt.Local().Format(time.RFC3339))
	}
	row("last error", d.LastError)
	if d.Auth != nil {
		row("auth", authText(d.ServerStatus))
		if !d.Auth.ValidUntil.IsZero() {
			row("token valid until", d.Auth.ValidUntil.Local().Format(time.RFC3339))
		}
		row("tokens kept in", d.Auth.Storage)
	}
	if d.Stderr != "" {
		lines := strings.Split(strings.TrimRight(d.Stderr, "\n"), "\n")
		if len(lines) > 8 {
			lines = lines[len(lines)-8:]
		}
		b.WriteString("stderr (tail):\n  " + strings.Join(lines, "\n  ") + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func renderTools(l *protocol.ToolsListResult) string {
	var b strings.Builder
	for _, t := range l.Tools {
		o := t.Server + "/" + t.Tool
		if t.Server == "" {
			o = "(local)"
		}
		fmt.Fprintf(&b, "%-40s %-28s %s\n", t.PublicName, o, truncate(t.Description, 60))
	}
	if len(l.Tools) == 0 {
		b.WriteString("no tools (are the servers ready? /mcp)\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// mcpTable renders the live /mcp view.
func (m *Model) mcpTable() string {
	ids := make([]string, 0, len(m.servers))
	for id := range m.servers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s %-10s %-8s %-8s %-14s %-6s %s\n", "ID", "TRANSPORT", "SOURCE", "ENABLED", "STATE", "TOOLS", "AUTH")
	for _, id := range ids {
		st := m.servers[id]
		state := st.State
		if state == protocol.StateConnecting {
			state = m.spin.View() + " " + state
		}
		fmt.Fprintf(&b, "%-16s %-10s %-8s %-8v %-14s %-6d %s\n", truncate(id, 16), st.Transport, st.Source, st.Enabled, state, st.Tools, truncate(authText(st), 40))
	}
	return styleBox.Render(strings.TrimRight(b.String(), "\n"))
}

// View draws the screen.
func (m *Model) View() string {
	if m.quitting {
		return ""
	}
	var footer []string
	if m.showMCP {
		footer = append(footer, m.mcpTable())
	}
	if m.detail != "" {
		footer = append(footer, styleBox.Render(clip(m.detail, m.width-4)))
	}
	if m.ask != nil {
		footer = append(footer, clip(m.askView(), m.width))
	}
	footer = append(footer, m.statusLine(), m.input.View())
	foot := strings.Join(footer, "\n")
	if m.stream == "" {
		return foot
	}
	// The answer in progress: its last lines, above the footer.
	lines := strings.Split(m.stream, "\n")
	if room := m.height/2 - 1; room > 0 && len(lines) > room {
		lines = lines[len(lines)-room:]
	}
	return clip(strings.Join(lines, "\n"), m.width) + "\n" + foot
}

// clip cuts every line of s to width characters.
func clip(s string, width int) string {
	if width < 10 {
		width = 10
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if r := []rune(l); len(r) > width {
			lines[i] = string(r[:width-1]) + "…"
		}
	}
	return strings.Join(lines, "\n")
}

func (m *Model) statusLine() string {
	counts := map[string]int{}
	var connecting []string
	for id, st := range m.servers {
		counts[st.State]++
		if st.State == protocol.StateConnecting {
			connecting = append(connecting, id)
		}
	}
	sort.Strings(connecting)
	parts := []string{fmt.Sprintf("%d ready", counts[protocol.StateReady])}
	for _, s := range []string{protocol.StateAuthRequired, protocol.StateError, protocol.StateDisabled} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	line := "servers: " + strings.Join(parts, ", ")
	var busy []string
	if len(connecting) > 0 {
		busy = append(busy, "connecting "+strings.Join(connecting, ", "))
	}
	keys := make([]string, 0, len(m.waiting))
	for k := range m.waiting {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		busy = append(busy, m.waiting[k])
	}
	if len(busy) > 0 {
		line += "  " + m.spin.View() + " " + strings.Join(busy, "; ")
	}
	if m.model != "" {
		line += "  · model " + m.model
	}
	return styleDim.Render(line)
}
