package chat

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/mcp-host/mcp-host/protocol"
)

// Update handles keys, window changes and the runtime's messages, then
// prints what the transcript gained, in order (print.go).
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(printedMsg); ok {
		m.printer.inFlight = false
	}
	model, cmd := m.update(msg)
	if m.candidates != nil && m.candidates.input != m.input.Value() {
		m.candidates = nil // Tab's list is gone once the input changed or was sent
	}
	return model, m.print(cmd) // print.go
}

// printable takes what the transcript gained, wrapped at word boundaries
// to the terminal's width.
func (m *Model) printable() string {
	text := wrapWords(strings.Join(m.out, "\n"), m.width)
	m.out = nil
	return eraseAfterLong(text, m.width+1)
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := clean(msg).(type) {
	case tea.WindowSizeMsg:
		// One column is left free: a line that fills the last one leaves
		// the cursor in the terminal's pending-wrap state, which terminals
		// (and tmux's joining of wrapped lines) treat differently.
		m.width, m.height = max(msg.Width-1, minWidth), msg.Height
		m.input.Width = m.width - 4
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
			m.forgetRepeats(msg.p.Server.ID)
			m.addLine(styleDim.Render("server " + msg.p.Server.ID + " removed from the configuration"))
		} else {
			old, had := m.servers[msg.p.Server.ID]
			m.servers[msg.p.Server.ID] = msg.p.Server
			if msg.p.Server.Status == protocol.StateReady {
				m.forgetRepeats(msg.p.Server.ID)
			}
			if st := msg.p.Server; !had || old.Status != st.Status {
				m.serverProblem(st)
			}
		}
		m.nextApproval()
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
		m.noteToolSearch(msg.p)
		if msg.p.Status != protocol.RunRunning {
			m.flushStream()
			m.run = ""
			m.calls = nil
			delete(m.waiting, "run")
			printed := m.outcome.printed(msg.p.Error)
			m.outcome = runOutcome{}
			switch msg.p.Status {
			case protocol.RunCompleted:
			case protocol.RunCancelled:
				m.addLine(styleWarn.Render("run cancelled"))
			default:
				if !printed {
					m.addLine(styleErr.Render(fmt.Sprintf("run %s: %s", msg.p.Status, msg.p.Error)))
				}
			}
		}
		return m, nil
	case logMsg:
		if msg.p.Level == "warn" || msg.p.Level == "error" {
			text := msg.p.Level + ": " + msg.p.Message
			if msg.p.Server == "" {
				m.addLine(styleWarn.Render(text))
			} else {
				m.once(msg.p.Server, "log", text, func(s string) { m.addLine(styleWarn.Render(s)) })
			}
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
			if e, ok := msg.err.(*protocol.Error); ok && e.Code == protocol.CodeNoModel {
				m.addLine(styleErr.Render("no model: " + noModel))
				return m, nil
			}
			m.addLine(styleErr.Render(describeErr(msg.err)))
			return m, nil
		}
		if msg.from != "" {
			m.showPromptMessages(msg.from, msg.messages) // primitives.go
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
		m.approvalDone(msg.key, msg.err)
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
	case resourceUpdatedMsg:
		m.resourceChanged(msg.p) // primitives.go
		return m, nil
	case completeMsg:
		m.applyCompletion(msg) // primitives.go
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
		if e.Call != nil {
			if m.calls == nil {
				m.calls = map[string]runningCall{}
			}
			m.calls[e.Call.ID] = runningCall{origin: origin(e.Call), start: m.now()}
		}
		m.addLine(styleLines(styleTool, wrapBreak(fmt.Sprintf("→ %s %s", origin(e.Call), compact(e.Call.Arguments)), m.width)))
		m.appHint(e.Call) // apps.go
	case protocol.EventToolResult:
		if e.Call != nil {
			delete(m.calls, e.Call.ID)
		}
		m.toolResult(e)
	case protocol.EventProgress, protocol.EventTask:
		m.progress(e) // progress.go
	case protocol.EventPermission:
		if e.Phase == "decided" && e.Decision != "allow" {
			m.decidedDeny(e)
		}
	case protocol.EventError:
		m.outcome.error(e.Error)
		m.addLine(styleErr.Render("error: " + e.Error))
	}
}

func (m *Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if k.Type == tea.KeyCtrlC {
		return m, m.ctrlCKey()
	}
	m.ctrlCAt = time.Time{}
	if m.ask != nil && m.askStage == "" {
		return m, m.answerKey(k)
	}
	if m.ask == nil && m.approving != "" {
		return m, m.approvalKey(k)
	}
	switch k.Type {
	case tea.KeyEsc:
		if m.ask != nil {
			m.cancelAsk("Esc")
			return m, nil
		}
		if m.run != "" {
			return m, m.cancelRun()
		}
		m.showMCP, m.detail = false, ""
		return m, nil
	case tea.KeyTab:
		if m.askStage == "" {
			return m, m.complete() // primitives.go
		}
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
	m.outcome.cancelling = true
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
