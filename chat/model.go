package chat

import (
	"context"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/termsafe"
)

var (
	styleDim  = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
	styleUser = lipgloss.NewStyle().Bold(true)
	styleTool = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	styleErr  = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	styleWarn = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	styleBox  = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1)
)

// callTimeout bounds the runtime requests the chat makes (logins excepted).
const callTimeout = 30 * time.Second

// Model is the chat screen.
type Model struct {
	rt protocol.Server
	// prim reaches servers' prompts and resources (primitives.go); nil
	// when the runtime does not offer them.
	prim protocol.PrimitivesServer
	// ends ends a conversation at /new (its kept results are removed);
	// nil when the runtime does not offer conversation.end.
	ends  protocol.ConversationServer
	model string

	input   textinput.Model
	spin    spinner.Model
	width   int
	height  int
	out     []string  // lines to print above the screen on the next update
	printer printer   // the print in flight (print.go)
	stream  string    // the answer being streamed
	early   []tea.Msg // run messages that came before run.start's answer
	servers map[string]protocol.ServerStatus
	showMCP bool
	detail  string // rendered /mcp <id> or /tools, shown until the next command
	// candidates are the completions Tab listed, shown under the input
	// until it changes (primitives.go).
	candidates *candidateList

	run      string // run in progress
	conv     string
	waiting  map[string]string // operations in progress: key -> label
	ask      *askMsg
	askStage string // "", "reason", "prompt", "elicit"
	askDraft string // the input line when the question opened (typedDuringAsk)
	elicit   *elicitForm
	quitting bool
	repeats  map[string]map[string]*repeat // server -> source -> last line (repeat.go)
	calls    map[string]runningCall        // tool calls of the run in progress, by call id
	// outcome of the run's calls, so that each says what happened once
	// (results.go).
	outcome runOutcome
	md      markdown // renders finished answers (markdown.go)

	// now is the clock (tests replace it); ctrlCAt is when Ctrl+C was
	// last pressed without quitting: another one within quitWindow quits.
	now     func() time.Time
	ctrlCAt time.Time

	// approving is the project server the approval question is about;
	// approvalLater and approvalAnswered map servers to the definition
	// digest the person said "later" to, or answered (see approval.go).
	approving        string
	approvalLater    map[string]string
	approvalAnswered map[string]string

	// toolSearch is the last run's search mode, nil when the model was
	// offered every tool (toolsearch.go).
	toolSearch *protocol.ToolSearchInfo
}

// runningCall is a tool call between its tool_call and tool_result.
type runningCall struct {
	origin string
	start  time.Time
	// progress is the server's latest progress report, task the state of
	// the task the server made of the call (progress.go).
	progress *protocol.Progress
	task     *protocol.TaskState
}

// elicitForm asks the fields of a flat elicitation schema one by one.
type elicitForm struct {
	fields []elicitField
	i      int
	values map[string]any
}

// elicitField is one property of an elicitation schema: name is the key
// of the answer, as the server sent it; label and desc are for the screen.
type elicitField struct{ name, label, typ, desc string }

// NewModel returns the chat model talking to rt.
func NewModel(rt protocol.Server, init *protocol.InitializeResult) *Model {
	in := textinput.New()
	in.Placeholder = "Ask something, or /help"
	in.Prompt = "> "
	in.CharLimit = 8000
	in.Focus()
	sp := spinner.New()
	sp.Spinner = spinner.MiniDot
	m := &Model{rt: rt, input: in, spin: sp, servers: map[string]protocol.ServerStatus{}, waiting: map[string]string{}, width: 100, height: 30, now: time.Now,
		approvalLater: map[string]string{}, approvalAnswered: map[string]string{}}
	if init != nil {
		m.model = line(init.Capabilities.Model)
		for _, st := range init.Servers {
			cleanStatus(&st)
			m.servers[st.ID] = st
			m.serverProblem(st)
		}
		for _, p := range init.Problems {
			m.addLine(styleWarn.Render("config: " + line(p)))
		}
		if !init.Capabilities.Runs {
			m.addLine(styleWarn.Render(noModel))
		}
	}
	m.addLine(styleDim.Render("Type a prompt, or /help for commands. /mcp shows the servers."))
	m.nextApproval()
	return m
}

// noModel is what host chat says about prompts without a model: the flags
// of host chat, the command the person ran.
const noModel = "No model is configured: prompts will fail. Quit (/quit, or Ctrl+C twice) and start host chat --model NAME (OpenAI-compatible) or host chat --script FILE."

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
		m.out = append(m.out, m.md.render(m.streamText(), m.width))
		m.stream = ""
	}
}

// streamText is the answer streamed so far, safe to show. It is cleaned
// whole, not delta by delta: an escape sequence may span two deltas.
func (m *Model) streamText() string {
	return termsafe.Sanitize(m.stream, termsafe.Options{MultiLine: true, Max: -1})
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
		// from names the prompt (server:name) whose messages started the
		// run, for the transcript.
		from     string
		messages []protocol.PromptMessage
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
