package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/dashboard"
)

// liveDashboard serves r4c's dashboard of a registry while a run goes on.
type liveDashboard struct {
	srv    *http.Server
	url    string
	cancel context.CancelFunc
	done   chan struct{} // closed when the server and the sampler have ended
}

// startDashboard listens on addr (such as 127.0.0.1:8080, or 127.0.0.1:0
// for a free port) and serves the dashboard of reg under /r4c/, sampling
// it every second until stop.
func startDashboard(addr string, reg *r4c.Registry) (*liveDashboard, error) {
	d, err := dashboard.New(reg, dashboard.WithTitle("r4c overload demo"))
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("-dashboard %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/r4c/", http.StripPrefix("/r4c", d))
	mux.Handle("/{$}", http.RedirectHandler("/r4c/", http.StatusFound))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	l := &liveDashboard{srv: srv, url: "http://" + ln.Addr().String() + "/r4c/", cancel: cancel, done: make(chan struct{})}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln) // ends with ErrServerClosed at stop
	}()
	go func() {
		_ = d.Run(ctx)
		<-served
		close(l.done)
	}()
	return l, nil
}

// stop closes the server and ends the sampler.
func (l *liveDashboard) stop() error {
	l.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := l.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = l.srv.Close()
	}
	<-l.done
	return err
}

func printDashboard(out io.Writer, l *liveDashboard) {
	fmt.Fprintf(out, "  dashboard  %s (live while the run through r4c goes on)\n", l.url)
}
