package r4c

import (
	"sync"
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// Reload reads the registry's external sources again (the maps of
// WithProperties, the files of WithPropertiesFile, the environment of
// WithEnvironment, in the order given) and applies what changed to the
// instances built so far, without a restart and without dropping or
// counting twice a call in flight.
//
// It is all or nothing. The whole new configuration is checked first: every
// value parsed, the defaults and named configurations of every kind
// validated, every instance resolved again (for each pipeline that uses
// it) and validated. On the first problem Reload returns its coded
// *ConfigError (the codes of NewRegistry and Build, with the key and text
// as given) and nothing changes: the running instances, what later builds
// resolve, and UnusedKeys stay as they were. A key whose value changes for
// a running instance and that cannot change live (docs/configuration.md
// marks the live keys; an algorithm, a window's type or size, a timeout's
// mode cannot) is refused with R4C-REG-011 (CodeNotLive).
//
// Then each instance whose configuration changed is reconfigured through
// its handle's Update, one instance at a time, each as one change: a
// lower adaptive limit or bulkhead size rejects new calls until enough
// calls in flight have ended, a new rate counts from the next permit,
// breaker thresholds from the next evaluation; the keys' own timing is in
// docs/configuration.md. Only the keys that changed in the sources move: a
// value set through a handle's setter (such as ratelimit.Handle.SetLimit)
// stays until its key changes in a source. Each reconfigured instance
// publishes an events.ConfigChanged with the keys, old and new values.
//
// Reloads are serialised, and safe to call concurrently with calls, builds
// and handles. Reload does not hold the registry's lock while instances
// publish their events, so a listener may use the registry.
func (r *Registry) Reload() error { return export(r.e.Reload()) }

// Watcher polls a registry's external sources on the registry's clock and
// reloads the registry ([Registry.Reload]) when their text changed: a
// properties file edited, an environment variable set, a map changed. It
// starts no goroutine until [Watcher.Start]; [Watcher.Poll] polls once on
// the caller's goroutine. Each distinct text is tried once: a reload that
// fails is reported to the watcher's onError and not tried again until the
// sources change again. Make one with [Registry.NewWatcher]; it is safe
// for concurrent use.
type Watcher struct {
	r       *Registry
	every   time.Duration
	onError func(error)

	mu      sync.Mutex // serialises polls; guards what follows
	tried   string     // the sources' text of the last reload that failed
	lastErr string     // the last error reported that was no reload's

	life    sync.Mutex
	started bool
	stop    chan struct{}
	done    chan struct{}
}

// NewWatcher returns a watcher of r's sources that polls every every on
// r's clock once started, and reports each reload that fails, and each
// source that cannot be read, to onError (which may be nil) on the
// watcher's goroutine. A duration that is not positive is an R4C-ATR-004
// *ConfigError and no watcher.
func (r *Registry) NewWatcher(every time.Duration, onError func(error)) (*Watcher, error) {
	if every <= 0 {
		return nil, &ConfigError{Code: CodeNegativeDuration, Key: "every", Value: every.String(),
			Rule: "a watcher's polling interval must be positive"}
	}
	return &Watcher{r: r, every: every, onError: onError, stop: make(chan struct{}), done: make(chan struct{})}, nil
}

// Poll reads the sources once, now, on the calling goroutine, and reloads
// the registry if their text differs from what is in force and was not
// tried already. It reports whether it reloaded, and the error of the
// reload or of a source that cannot be read (also given to onError, once
// for each distinct problem).
func (w *Watcher) Poll() (reloaded bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	text, err := w.r.e.SourcesText()
	if err != nil {
		err = export(err)
		if msg := err.Error(); msg != w.lastErr {
			w.lastErr = msg
			w.report(err)
		}
		return false, err
	}
	w.lastErr = ""
	if text == w.r.e.AppliedText() || text == w.tried {
		return false, nil
	}
	if err := w.r.Reload(); err != nil {
		w.tried = text
		w.report(err)
		return false, err
	}
	w.tried = ""
	return true, nil
}

func (w *Watcher) report(err error) {
	if w.onError != nil {
		w.onError(err)
	}
}

// Start starts the watcher's goroutine, which polls every interval on the
// registry's clock (so that a clocktest.ManualClock drives it in tests)
// until [Watcher.Stop]. Starting it again, or after Stop, does nothing.
func (w *Watcher) Start() {
	w.life.Lock()
	defer w.life.Unlock()
	if w.started {
		return
	}
	w.started = true
	select {
	case <-w.stop:
		close(w.done)
		return
	default:
	}
	go w.run(w.r.Clock())
}

func (w *Watcher) run(clk policy.Clock) {
	defer close(w.done)
	for {
		t := clk.NewTimer(w.every)
		select {
		case <-w.stop:
			t.Stop()
			return
		case <-t.C():
		}
		_, _ = w.Poll()
	}
}

// Stop stops the watcher's goroutine and waits until it has returned (a
// poll in progress completes first). It is safe to call more than once,
// and on a watcher never started.
func (w *Watcher) Stop() {
	w.life.Lock()
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	started := w.started
	w.life.Unlock()
	if started {
		<-w.done
	}
}
