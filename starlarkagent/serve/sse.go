package serve

import (
	"bufio"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// keepAlive is how often an idle event stream gets a comment line, so
// that proxies do not close it.
var keepAlive = 15 * time.Second

// events streams a run's events as server-sent events: those after the
// client's Last-Event-ID (all of them without one), then the live ones,
// until the run's end event.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	id, rn, ok := s.lookup(w, r)
	if !ok {
		return
	}
	after := int64(0)
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		last = r.URL.Query().Get("last_event_id")
	}
	if last != "" {
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "bad_request", fmt.Sprintf("Last-Event-ID must be the id of an event (a number), not %q", clip(last, 30)))
			return
		}
		after = n
	}
	if rn == nil {
		if _, err := s.store.getRun(r.Context(), id); err != nil {
			if errors.Is(err, errNoRun) {
				notFound(w, id)
			} else {
				writeError(w, http.StatusInternalServerError, "internal", "reading the run: "+err.Error())
			}
			return
		}
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	bw := bufio.NewWriterSize(w, 16<<10)
	send := func(evs []storedEvent) error {
		for _, ev := range evs {
			fmt.Fprintf(bw, "id: %d\nevent: %s\ndata: %s\n\n", ev.ID, ev.Type, ev.Data)
			after = ev.ID
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		// A stream may outlive the server's write timeout; each write
		// gets a deadline of its own instead.
		rc.SetWriteDeadline(time.Now().Add(time.Minute))
		return rc.Flush()
	}
	if rn == nil {
		s.streamStored(r, id, &after, bw, send)
		return
	}
	// Say hello at once, so that the client knows the stream is open.
	fmt.Fprint(bw, ": star-agent run "+id+"\n\n")
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		evs, ended, changed := rn.since(after)
		if err := send(evs); err != nil {
			return
		}
		if ended && len(evs) == 0 {
			return
		}
		if ended {
			continue // send the rest, then stop
		}
		select {
		case <-changed:
		case <-tick.C:
			fmt.Fprint(bw, ": keep-alive\n\n")
		case <-r.Context().Done():
			return
		case <-s.quit:
			// Shutdown closes quit only after the runs have ended, but
			// quit and changed can be ready together: send what is left,
			// the end event included, before closing the stream.
			for {
				evs, _, _ := rn.since(after)
				if len(evs) == 0 || send(evs) != nil {
					return
				}
			}
		}
	}
}

// streamStored streams a run this server does not hold from the
// database: one that ended (every event is stored, the end event last),
// or, on PostgreSQL, one another replica runs. Then each notification of
// the run, each second (a notification may be lost while the listener
// reconnects) and each reconnection of the listener make it re-read the
// events after the last one sent, so the ids stay gapless.
func (s *Server) streamStored(r *http.Request, id string, after *int64, bw *bufio.Writer, send func([]storedEvent) error) {
	var wake <-chan struct{}
	if s.store.listen != nil {
		c, stop := s.store.listen.subscribe(id)
		defer stop()
		wake = c
		fmt.Fprint(bw, ": star-agent run "+id+"\n\n")
	}
	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		for {
			evs, err := s.store.events(r.Context(), id, *after, 500)
			if err != nil {
				return
			}
			if len(evs) > 0 {
				if send(evs) != nil || evs[len(evs)-1].Type == "end" {
					return
				}
				continue
			}
			break
		}
		if wake == nil {
			return // SQLite: the run has ended and every event is sent
		}
		rec, err := s.store.getRun(r.Context(), id)
		if err != nil {
			return
		}
		if rec.State.Final() {
			// Its last events may have committed since the read above.
			if evs, _ := s.store.events(r.Context(), id, *after, 1); len(evs) > 0 {
				continue
			}
			return
		}
		select {
		case <-wake:
		case <-poll.C:
		case <-tick.C:
			fmt.Fprint(bw, ": keep-alive\n\n")
			send(nil)
		case <-r.Context().Done():
			return
		case <-s.quit:
			return
		}
	}
}
