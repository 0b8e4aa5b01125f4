package apps

import (
	"fmt"
	"sync"
)

// DefaultMaxInstances bounds the app instances a Registry keeps.
const DefaultMaxInstances = 1024

// Instance is one showing of an app: the app of one tool call.
type Instance struct {
	// ID names the instance ("app1", "app2", …).
	ID string
	// Server owns the app; Tool is the call that opened it; URI its UI
	// resource.
	Server, Tool, URI string
	// RunID, CallID and Conversation name the run, the model's call and
	// the conversation that opened it (empty for a direct call).
	RunID, CallID, Conversation string
}

// A Registry keeps the app instances of one UI connection. Instances live
// until closed; past its bound the oldest are forgotten.
type Registry struct {
	// Max bounds the instances kept (DefaultMaxInstances when <= 0).
	Max int

	mu     sync.Mutex
	next   int
	byID   map[string]Instance
	byCall map[[2]string]string // (run, call) -> id
	order  []string
}

// Open records a new instance and returns it with its ID. A call of a run
// (RunID and CallID set) has one instance: opening it again returns the
// first.
func (r *Registry) Open(in Instance) Instance {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byID == nil {
		r.byID = map[string]Instance{}
		r.byCall = map[[2]string]string{}
	}
	call := [2]string{in.RunID, in.CallID}
	if in.RunID != "" && in.CallID != "" {
		if id, ok := r.byCall[call]; ok {
			return r.byID[id]
		}
	}
	r.next++
	in.ID = fmt.Sprintf("app%d", r.next)
	r.byID[in.ID] = in
	r.order = append(r.order, in.ID)
	if in.RunID != "" && in.CallID != "" {
		r.byCall[call] = in.ID
	}
	max := r.Max
	if max <= 0 {
		max = DefaultMaxInstances
	}
	for len(r.order) > max {
		r.closeLocked(r.order[0])
	}
	return in
}

// Get returns an open instance.
func (r *Registry) Get(id string) (Instance, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	in, ok := r.byID[id]
	return in, ok
}

// Close forgets an instance; it reports whether it was open.
func (r *Registry) Close(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closeLocked(id)
}

func (r *Registry) closeLocked(id string) bool {
	in, ok := r.byID[id]
	if !ok {
		return false
	}
	delete(r.byID, id)
	delete(r.byCall, [2]string{in.RunID, in.CallID})
	for i, o := range r.order {
		if o == id {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
	return true
}
