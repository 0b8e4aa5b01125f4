package web

import (
	"encoding/json"

	"github.com/mcp-host/mcp-host/protocol"
)

// Bounds of the transcript a page gets when it opens: its size (the
// events' JSON, text deltas counted by their text) and its number of
// turns. The oldest turns go first; a turn larger than the bound alone
// loses its oldest events but its user's message. Variables for tests.
var (
	maxTranscriptBytes = 4 << 20
	maxTranscriptTurns = 100
)

// transcriptOverhead is what a text delta counts beyond its text.
const transcriptOverhead = 64

// transcript is the conversation so far as the events that showed it: the
// user's messages (events of kind user) and the runs' agent.event and
// run.status notifications, in the order the pages got them. A page that
// opens gets them after its hello and shows them through the same code as
// live events, so the runtime's and the servers' text goes into it exactly
// as it went into the pages that saw it live (as text; Markdown checked).
// Progress and task events, which report a passing state, are not kept;
// the text deltas of one block are kept as one.
type transcript struct {
	entries []*transcriptEntry
	bytes   int
	turns   int
	// dropped reports that older events were left out to keep the bounds.
	dropped bool
}

// transcriptEntry is one event of the transcript.
type transcriptEntry struct {
	data []byte // the event as it was sent; nil for a text delta
	turn bool   // a user's message: it starts a turn
	size int
	// delta is the text delta this entry holds (its Text in text), to
	// which the deltas of the same block that follow it are added.
	delta *protocol.AgentEventParams
	text  []byte
}

// eventKey is what the transcript reads of an agent.event.
type eventKey struct {
	RunID string `json:"run_id"`
	Type  string `json:"type"`
	Step  int    `json:"step"`
	Text  string `json:"text"`
}

// add keeps e (sent as data) when it belongs to the transcript.
func (t *transcript) add(e event, data []byte) {
	switch {
	case e.Kind == "user":
		t.push(&transcriptEntry{data: data, turn: true, size: len(data)})
	case e.Kind == "notification" && e.Method == protocol.MethodRunStatus:
		t.push(&transcriptEntry{data: data, size: len(data)})
	case e.Kind == "notification" && e.Method == protocol.MethodAgentEvent:
		var k eventKey
		if json.Unmarshal(e.Params, &k) != nil {
			return
		}
		switch k.Type {
		case protocol.EventProgress, protocol.EventTask:
			return
		case protocol.EventTextDelta:
			if n := len(t.entries); n > 0 {
				if last := t.entries[n-1]; last.delta != nil && last.delta.RunID == k.RunID && last.delta.Step == k.Step {
					last.text = append(last.text, k.Text...)
					last.size += len(k.Text)
					t.bytes += len(k.Text)
					t.trim()
					return
				}
			}
			d := &protocol.AgentEventParams{}
			if json.Unmarshal(e.Params, d) != nil {
				return
			}
			t.push(&transcriptEntry{delta: d, text: []byte(k.Text), size: len(k.Text) + transcriptOverhead})
		default:
			t.push(&transcriptEntry{data: data, size: len(data)})
		}
	}
}

func (t *transcript) push(en *transcriptEntry) {
	t.entries = append(t.entries, en)
	t.bytes += en.size
	if en.turn {
		t.turns++
	}
	t.trim()
}

// trim drops the oldest events until the transcript is within its bounds:
// whole turns while there is more than one, then the oldest events of the
// one left (its user's message last).
func (t *transcript) trim() {
	for len(t.entries) > 0 && (t.bytes > maxTranscriptBytes || t.turns > maxTranscriptTurns) {
		cut := 0
		for i := 1; i < len(t.entries); i++ {
			if t.entries[i].turn {
				cut = i
				break
			}
		}
		switch {
		case cut > 0: // everything before the next turn
			t.drop(t.entries[:cut])
			t.entries = t.entries[cut:]
		case len(t.entries) > 1 && t.entries[0].turn: // the oldest event after the user's message
			t.drop(t.entries[1:2])
			t.entries = append(t.entries[:1], t.entries[2:]...)
		default:
			t.drop(t.entries[:1])
			t.entries = t.entries[1:]
		}
		t.dropped = true
	}
}

// drop takes gone out of the counts.
func (t *transcript) drop(gone []*transcriptEntry) {
	for _, en := range gone {
		t.bytes -= en.size
		if en.turn {
			t.turns--
		}
	}
}

// events returns the transcript's events, ready to send.
func (t *transcript) events() [][]byte {
	out := make([][]byte, 0, len(t.entries))
	for _, en := range t.entries {
		if en.delta == nil {
			out = append(out, en.data)
			continue
		}
		d := *en.delta
		d.Text = string(en.text)
		params, err := json.Marshal(&d)
		if err != nil {
			continue
		}
		data, err := json.Marshal(event{Kind: "notification", Method: protocol.MethodAgentEvent, Params: params})
		if err == nil {
			out = append(out, data)
		}
	}
	return out
}

// reset forgets the transcript (a new conversation).
func (t *transcript) reset() { *t = transcript{} }

// keep records what e (sent as data) changes of the bridge's state: a
// server's status, the transcript and the conversation; b.mu is held, so
// a page's hello and the events after it agree.
func (b *Bridge) keep(e event, data []byte) {
	switch e.Kind {
	case "notification":
		if e.Method == protocol.MethodMCPStatus {
			b.noteStatus(e.Params)
		}
	case "conversation":
		b.conversation = e.Conversation
	case "cleared":
		b.transcript.reset()
		b.conversation = ""
		return
	}
	b.transcript.add(e, data)
}

// beforeCall keeps what a page's request adds to the conversation before
// it goes to the runtime: a run.start is the user's message (every page
// shows it from the user event, before the run's events); a
// conversation.end begins a new conversation in every page.
func (b *Bridge) beforeCall(req callRequest) {
	switch req.Method {
	case protocol.MethodRunStart:
		b.broadcast(event{Kind: "user", Params: req.Params, From: req.From})
	case protocol.MethodConversationEnd:
		b.broadcast(event{Kind: "cleared"})
	}
}

// afterCall notes the conversation a run.start or an app's message
// continues or began, so that every page continues it.
func (b *Bridge) afterCall(method string, result json.RawMessage) {
	if method != protocol.MethodRunStart && method != protocol.MethodAppMessage {
		return
	}
	var res protocol.RunStartResult
	if json.Unmarshal(result, &res) != nil || res.Conversation == "" {
		return
	}
	b.mu.Lock()
	same := res.Conversation == b.conversation
	b.mu.Unlock()
	if !same {
		b.broadcast(event{Kind: "conversation", Conversation: res.Conversation})
	}
}

// beforeAnswer keeps an app's message as the user's once the user agreed
// to send it (the answer yes to its ui.confirm.request), before the
// runtime starts its run.
func (b *Bridge) beforeAnswer(req event, a pageAnswer) {
	if req.Method != protocol.MethodUIConfirm || a.Error != "" {
		return
	}
	var p struct {
		Kind string          `json:"kind"`
		App  json.RawMessage `json:"app"`
	}
	var ans struct {
		Answer string `json:"answer"`
	}
	if json.Unmarshal(req.Params, &p) != nil || p.Kind != protocol.ConfirmKindAppMessage || len(p.App) == 0 ||
		json.Unmarshal(a.Result, &ans) != nil || ans.Answer != protocol.AnswerYes {
		return
	}
	b.broadcast(event{Kind: "user", App: p.App})
}
