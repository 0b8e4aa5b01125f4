package serve

// latestNote is a queued notification that a newer one of the same key
// replaces while it waits: a server that floods them (resources/updated
// of one resource, thousands a second) costs the UI one notification per
// write it can take, and the queue one entry, with the count of those
// replaced.
type latestNote struct {
	send func(coalesced int)
	n    int
}

// enqueueLatest queues send under key: while a notification of the same
// key waits, send replaces it and the count of replaced ones grows; send
// gets that count when it goes out.
func (s *service) enqueueLatest(key string, send func(coalesced int)) {
	s.nmu.Lock()
	defer s.nmu.Unlock()
	if s.nclosed {
		return
	}
	if w := s.nlatest[key]; w != nil {
		w.send = send
		w.n++
		return
	}
	w := &latestNote{send: send}
	s.nlatest[key] = w
	s.nqueue = append(s.nqueue, func() {
		s.nmu.Lock()
		delete(s.nlatest, key)
		send, n := w.send, w.n
		s.nmu.Unlock()
		send(n)
	})
	s.ncond.Signal()
}
