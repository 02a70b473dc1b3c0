package serve

import (
	"bufio"
	"encoding/json"
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
		if _, ok := s.storedRun(w, r, id); !ok {
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
	// over is set once the stream has sent the run's last event.
	lastType, over := "", false
	// resume is the Last-Event-ID the reconnect event gives (-1: the
	// last event sent).
	resume := int64(-1)
	send := func(evs []storedEvent) error {
		for _, ev := range evs {
			fmt.Fprintf(bw, "id: %d\nevent: %s\ndata: %s\n\n", ev.ID, ev.Type, ev.Data)
			after, lastType = ev.ID, ev.Type
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		// A stream may outlive the server's write timeout; each write
		// gets a deadline of its own instead.
		rc.SetWriteDeadline(time.Now().Add(time.Minute))
		return rc.Flush()
	}
	// A stream that stops before the run's end event (this server shuts
	// down, or lost the run and cannot follow it in the database) says
	// so, with an event without an id, so that the client's Last-Event-ID
	// stays that of the last event it got.
	defer func() {
		if !over && lastType != "end" && r.Context().Err() == nil {
			ev := reconnectEvent{LastEventID: after, Reason: s.stopReason()}
			if resume >= 0 {
				ev.LastEventID = resume
				ev.Reason = fmt.Sprintf("another server took the run over, and the events after %d that this server sent were not kept (the other server's replace them): reconnect, to any replica, with Last-Event-ID %d", resume, resume)
			}
			b, _ := json.Marshal(ev)
			fmt.Fprintf(bw, "event: reconnect\ndata: %s\n\n", b)
			send(nil)
		}
	}()
	if rn == nil {
		over = s.streamStored(r, id, &after, bw, send)
		return
	}
	// Say hello at once, so that the client knows the stream is open.
	fmt.Fprint(bw, ": star-agent run "+id+"\n\n")
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		evs, ended, changed := rn.since(after)
		released := ended && rn.released.Load()
		bad := rn.refused.Load()
		if released && bad > 0 {
			// Never send what the database refused.
			for i, ev := range evs {
				if ev.ID >= bad {
					evs = evs[:i]
					break
				}
			}
		}
		if err := send(evs); err != nil {
			return
		}
		if released {
			if bad > 0 && after >= bad {
				resume = bad - 1
				return
			}
			if s.store.pg {
				// Another replica runs it now (or will): follow it there.
				over = s.streamStored(r, id, &after, bw, send)
			}
			return
		}
		if ended && len(evs) == 0 {
			over = true
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

// reconnectEvent is the data of the reconnect event.
type reconnectEvent struct {
	LastEventID int64  `json:"last_event_id"`
	Reason      string `json:"reason"`
}

// stopReason says why a stream stops before its run's end.
func (s *Server) stopReason() string {
	select {
	case <-s.quit:
		return "this server is shutting down; the run goes on elsewhere: reconnect, to any replica, with Last-Event-ID"
	default:
		return "this server stopped following the run; it goes on elsewhere: reconnect, to any replica, with Last-Event-ID"
	}
}

// streamStored streams a run this server does not hold from the
// database: one that ended (every event is stored, the end event last),
// or, on PostgreSQL, one another replica runs. Then each notification of
// the run, each second (a notification may be lost while the listener
// reconnects) and each reconnection of the listener make it re-read the
// events after the last one sent, so the ids stay gapless. It reports
// whether it sent the run's last event (or the client had it already).
func (s *Server) streamStored(r *http.Request, id string, after *int64, bw *bufio.Writer, send func([]storedEvent) error) bool {
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
				return false
			}
			if len(evs) > 0 {
				if err := send(evs); err != nil {
					return false
				}
				if evs[len(evs)-1].Type == "end" {
					return true
				}
				continue
			}
			break
		}
		if wake == nil {
			return true // SQLite: the run has ended and every event is sent
		}
		rec, err := s.store.getRun(r.Context(), id)
		if err != nil {
			return false
		}
		if rec.State.Final() {
			// Its last events may have committed since the read above.
			if evs, _ := s.store.events(r.Context(), id, *after, 1); len(evs) > 0 {
				continue
			}
			return true
		}
		select {
		case <-wake:
		case <-poll.C:
		case <-tick.C:
			fmt.Fprint(bw, ": keep-alive\n\n")
			send(nil)
		case <-r.Context().Done():
			return false
		case <-s.quit:
			return false
		}
	}
}
