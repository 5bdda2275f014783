// Package gate is the small state machine that r4chttp and r4cgrpc put in
// front of a server's handler: the pipeline may run the handler once, and
// when the pipeline returns first (a detached timeout, a rejection) the
// handler must either be waited for or never start, because net/http and
// gRPC must not see the handler write after the call was answered.
package gate

import "sync"

// Gate guards one handler call. The zero value is ready: the handler has
// not been called. A Gate must not be copied after first use.
type Gate struct {
	mu    sync.Mutex
	state int           // idle … abandoned
	wake  chan struct{} // closed when a running handler returns, if someone waits
}

// The states of a Gate.
const (
	idle      = iota // not called yet
	running          // the handler runs
	done             // it returned
	abandoned        // the pipeline returned first: never call it
)

// Enter reports whether the handler may run now, and if so marks it
// running: it is false after the call was settled, or on a second call.
// A true Enter must be followed by Exit when the handler returns.
func (g *Gate) Enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.state != idle {
		return false
	}
	g.state = running
	return true
}

// Exit marks the handler returned and wakes a Settle waiting for it.
func (g *Gate) Exit() {
	g.mu.Lock()
	g.state = done
	if g.wake != nil {
		close(g.wake)
	}
	g.mu.Unlock()
}

// Settle waits for a running handler to return and stops one that has not
// started from ever starting. It reports whether the handler ran.
func (g *Gate) Settle() bool {
	g.mu.Lock()
	switch g.state {
	case idle:
		g.state = abandoned
		g.mu.Unlock()
		return false
	case running:
		g.wake = make(chan struct{})
		g.mu.Unlock()
		<-g.wake
		return true
	}
	g.mu.Unlock()
	return true
}
