package r4cslog_test

import (
	"context"
	"log"
	"log/slog"
	"os"
	"time"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	r4cslog "github.com/resilience4cata/r4c/logging/slog"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// withoutTime drops the time of each record so the output is reproducible.
func withoutTime(groups []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey && len(groups) == 0 {
		return slog.Attr{}
	}
	return a
}

// A registry's events logged with slog: a rejection at debug level, a limit
// change at info level.
func ExampleListener() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: withoutTime}))

	clk := clocktest.NewManualClock() // tests only; omit WithClock in production
	reg, err := r4c.NewRegistry(r4c.WithClock(clk))
	if err != nil {
		log.Fatal(err)
	}
	stop := reg.Events().Subscribe(r4cslog.Listener(logger))
	defer stop()

	p, err := pipeline.NewBuilder[string](reg, "search").AdaptiveLimit(func(c *adaptivelimit.Config) {
		c.Algorithm = adaptivelimit.AIMD
		c.InitialLimit = 1
		c.MinWindowSamples = 1
	}).Build()
	if err != nil {
		log.Fatal(err)
	}
	// One asynchronous call holds the only slot; the next is rejected.
	pending := future.NewPromise[string]()
	f := p.ExecuteFuture(context.Background(), func(context.Context) *future.Future[string] { return pending.Future() })
	_, _ = p.Execute(func() (string, error) { return "results", nil })
	// The first call ends after 1s, ending the window: AIMD raises the limit.
	clk.Advance(time.Second)
	pending.Complete("results")
	_, _ = f.Get(context.Background())
	// Output:
	// level=DEBUG msg="r4c: call rejected" policy=adaptivelimit instance=search error="r4c: adaptive limit search exceeded"
	// level=INFO msg="r4c: limit changed" policy=adaptivelimit instance=search old_limit=1 new_limit=2 window_latency=1s max_in_flight=1 dropped=false samples=1
}

// A listener behind events.NewBuffered: the calls never wait for a slow
// handler; events that do not fit in the buffer are dropped and counted.
func ExampleListener_buffered() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: withoutTime}))
	reg, err := r4c.NewRegistry()
	if err != nil {
		log.Fatal(err)
	}
	buf := events.NewBuffered(1024, r4cslog.Listener(logger))
	stop := reg.Events().Subscribe(buf.Listen)

	reg.Events().Publish(events.Timeout{Instance: "slow", Timeout: 2 * time.Second}) // as a timeout would

	stop()
	buf.Close() // logs what is queued, then ends the goroutine
	// Output:
	// level=INFO msg="r4c: timeout" policy=timeout instance=slow timeout=2s
}
