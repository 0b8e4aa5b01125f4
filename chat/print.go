package chat

import (
	tea "github.com/charmbracelet/bubbletea"
)

// The transcript is printed above the screen by tea.Println commands.
// The program runs each command on a goroutine of its own, so two prints
// in flight may reach the terminal in either order: a step's second tool
// call line came above the step's text and first call, which one print
// held (issue 36). So one print is in flight at a time: the lines the
// transcript gains meanwhile wait in Model.out, and the program's answer
// that the print is done (printedMsg, sent by the same sequence right
// after the print) starts the next one with all of them, in the order
// they were added. A command of an update that added lines runs after
// them, as when each update printed its own.

// printedMsg says the print in flight reached the program.
type printedMsg struct{}

// printer is the state of the transcript's printing.
type printer struct {
	// inFlight: a print was handed to the program and its printedMsg has
	// not come back yet.
	inFlight bool
	// held are the commands of updates whose lines wait for the print in
	// flight; they run after those lines.
	held []tea.Cmd
}

// print returns cmd, preceded by the print of what the transcript gained
// when no print is in flight; otherwise the lines (and cmd with them)
// wait for the one in flight.
func (m *Model) print(cmd tea.Cmd) tea.Cmd {
	if len(m.out) == 0 && len(m.printer.held) == 0 {
		return cmd
	}
	if m.printer.inFlight {
		if cmd != nil {
			m.printer.held = append(m.printer.held, cmd)
		}
		return nil
	}
	cmds := m.printer.held
	m.printer.held = nil
	if len(m.out) > 0 {
		m.printer.inFlight = true
		cmds = append([]tea.Cmd{tea.Println(m.printable()), func() tea.Msg { return printedMsg{} }}, cmds...)
	}
	return tea.Sequence(append(cmds, cmd)...)
}
