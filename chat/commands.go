package chat

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mcp-host/mcp-host/protocol"
)

const help = `Commands:
  /mcp              servers: id, transport, source, enabled, state, tools, auth (live)
  /mcp <id>         one server: last error, last connected, protocol, token, approval, warnings, stderr tail,
                    its instructions to the model
  /tools [<id>]     the tools the model sees
  /login <id>       log in to an OAuth server (asks first; browser or pasted redirect)
  /logout <id>      forget a server's tokens
  /approve <id>, /deny <id>
                    let a server a project file defines (or the policy forces) start, or keep it off
  /reconnect <id>   reconnect a server
  /enable <id>, /disable <id>
  /new              start a new conversation (the old one ends: its kept results go)
  /quit             shut the runtime down and leave
  /<server>:<prompt> [arg=value …]
                    run a server's prompt as your message (quote values with spaces: arg="a b")
  @<server>:<uri>   in a message: attach that resource of the server (its contents go with your message)
  /watch @<server>:<uri>, /unwatch @<server>:<uri>
                    show (or stop showing) when the server says that resource changed
Keys: Tab completes commands, prompts, their arguments and values, and @ resources; Enter sends; Esc cancels a running answer or a question (a deny) or closes a view;
Ctrl+C clears the line or cancels a question or a running answer; twice quits.`

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
		attach := m.attachments(text) // primitives.go
		for _, a := range attach {
			m.addLine(styleDim.Render("attached " + line(a.Server) + ":" + line(a.URI)))
		}
		m.waiting["start"] = "starting"
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			res, err := m.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: text, Conversation: conv, Attach: attach})
			return runStartedMsg{res: res, err: err}
		}
	}
	fields := strings.Fields(text)
	cmd, arg := fields[0], ""
	if isPromptCommand(cmd) {
		return m.runPrompt(text) // primitives.go
	}
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
		m.addLine(wrapHelp(help, m.width))
	case "/quit", "/exit":
		return m.quit()
	case "/new":
		old := m.conv
		m.conv = ""
		m.addLine(styleDim.Render("new conversation"))
		if old != "" && m.ends != nil {
			// The runtime forgets the old one and removes the results
			// it kept for it; an older runtime without
			// conversation.end keeps them until it exits.
			ends := m.ends
			return func() tea.Msg {
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				_, _ = ends.ConversationEnd(ctx, &protocol.ConversationParams{Conversation: old})
				return nil
			}
		}
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
			cleanDetail(&g.Server)
			return renderDetail(g.Server), nil
		})
	case "/tools":
		width := m.width - 4
		return m.call("detail-tools", "listing tools", callTimeout, func(ctx context.Context) (string, error) {
			l, err := m.rt.ToolsList(ctx, &protocol.ToolsListParams{Server: arg})
			if err != nil {
				return "", err
			}
			for i := range l.Tools {
				cleanTool(&l.Tools[i])
			}
			return renderTools(l, width), nil
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
			cleanStatus(&r.Server)
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
	case "/watch", "/unwatch":
		return m.watch(arg, cmd == "/watch") // primitives.go
	case "/approve", "/deny":
		if !needID() {
			return nil
		}
		return m.sendApproval(arg, cmd == "/approve")
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
	row("state", d.Status)
	row("transport", d.Transport)
	row("source", d.Source)
	target := d.URL
	if d.DisplayURL != "" {
		target = d.DisplayURL
	}
	row("target", target+d.Command)
	if n := d.Environment; n != nil {
		// Which variables a stdio server gets, by name: never values.
		row("env (base)", strings.Join(n.Base, ", "))
		row("env", strings.Join(n.Env, ", "))
		row("env_vars", strings.Join(n.EnvVars, ", "))
		row("env_vars unset", strings.Join(n.Unset, ", "))
	}
	if sb := d.Sandbox; sb != nil {
		row("sandbox", sandboxText(*sb)+"; "+sb.Summary)
		for _, p := range sb.Protections {
			row("protection", p)
		}
	}
	if d.ServerName != "" {
		row("implementation", d.ServerName+" "+d.ServerVersion)
	}
	row("protocol", d.ProtocolVersion)
	row("session", d.SessionID)
	row("tools", strconv.Itoa(d.Tools))
	if !d.LastConnectedAt.IsZero() {
		row("last connected", d.LastConnectedAt.Local().Format(time.RFC3339))
	}
	if p := d.Policy; p != nil {
		row("policy file", p.File)
		row("policy rule", p.Rule)
		row("policy reason", p.Reason)
	}
	row("last error", d.LastError)
	if d.Auth != nil {
		row("auth", authText(d.ServerStatus))
		if !d.Auth.ValidUntil.IsZero() {
			row("token valid until", d.Auth.ValidUntil.Local().Format(time.RFC3339))
		}
		row("tokens kept in", d.Auth.Storage)
	}
	renderApproval(&b, d.ServerStatus)
	if d.Stderr != "" {
		lines := strings.Split(strings.TrimRight(d.Stderr, "\n"), "\n")
		if len(lines) > 8 {
			lines = lines[len(lines)-8:]
		}
		b.WriteString("stderr (tail):\n  " + strings.Join(lines, "\n  ") + "\n")
	}
	if d.ServerLog != "" {
		lines := strings.Split(strings.TrimRight(d.ServerLog, "\n"), "\n")
		if len(lines) > 8 {
			lines = lines[len(lines)-8:]
		}
		b.WriteString("server log (tail):\n  " + strings.Join(lines, "\n  ") + "\n")
	}
	if d.Instructions != "" {
		head := "instructions (the server's text, given to the model):"
		if d.InstructionsOff {
			head = "instructions (the server's text; left out of the model's context by \"instructions\": false):"
		}
		b.WriteString(head + "\n  " + strings.Join(strings.Split(d.Instructions, "\n"), "\n  ") + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// renderTools lays the tools out in a table of at most width cells.
func renderTools(l *protocol.ToolsListResult, width int) string {
	if len(l.Tools) == 0 {
		return "no tools (are the servers ready? /mcp)"
	}
	// The tool first, as a person names it; the name the model sees (long,
	// hashed) last, and the first to go when the width is short.
	cols := []column{{head: "SERVER/TOOL", min: 12}, {head: "DESCRIPTION", min: 10}, {head: "MODEL SEES", min: 12, drop: 1}}
	for _, t := range l.Tools {
		o := t.Server + "/" + t.Tool
		if t.Server == "" {
			o = "(local)"
		}
		// A very long name leaves room for what the tool does.
		for i, v := range []string{truncate(o, max(12, width/2)), truncate(t.Description, 60), t.PublicName} {
			cols[i].cells = append(cols[i].cells, v)
		}
	}
	// The count after the rows: a long list scrolls its top away.
	return renderTable(cols, width) + fmt.Sprintf("\n%d tools (/tools SERVER lists one server's)", len(l.Tools))
}

// sandboxText is a sandbox's state line: "active (Landlock ABI 7)".
func sandboxText(sb protocol.SandboxStatus) string {
	if sb.Detail == "" {
		return sb.Status
	}
	return sb.Status + " (" + sb.Detail + ")"
}
