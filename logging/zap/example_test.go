package r4czap_test

import (
	"context"
	"log"
	"os"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	r4czap "github.com/resilience4cata/r4c/logging/zap"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// exampleLogger writes JSON entries without time to stdout, at debug level
// and above.
func exampleLogger() *zap.Logger {
	enc := zap.NewProductionEncoderConfig()
	enc.TimeKey = ""
	enc.EncodeDuration = zapcore.StringDurationEncoder
	return zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(enc), zapcore.Lock(os.Stdout), zapcore.DebugLevel))
}

// A registry's events logged with zap: a rejection at debug level, a limit
// change at info level.
func ExampleListener() {
	logger := exampleLogger()
	clk := clocktest.NewManualClock() // tests only; omit WithClock in production
	reg, err := r4c.NewRegistry(r4c.WithClock(clk))
	if err != nil {
		log.Fatal(err)
	}
	stop := reg.Events().Subscribe(r4czap.Listener(logger))
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
	// {"level":"debug","msg":"r4c: call rejected","policy":"adaptivelimit","instance":"search","error":"r4c: adaptive limit search exceeded"}
	// {"level":"info","msg":"r4c: limit changed","policy":"adaptivelimit","instance":"search","old_limit":1,"new_limit":2,"window_latency":"1s","max_in_flight":1,"dropped":false,"samples":1}
}

// A listener behind events.NewBuffered: the calls never wait for a slow
// core; events that do not fit in the buffer are dropped and counted.
func ExampleListener_buffered() {
	logger := exampleLogger()
	reg, err := r4c.NewRegistry()
	if err != nil {
		log.Fatal(err)
	}
	buf := events.NewBuffered(1024, r4czap.Listener(logger))
	stop := reg.Events().Subscribe(buf.Listen)

	reg.Events().Publish(events.Timeout{Instance: "slow", Timeout: 2 * time.Second}) // as a timeout would

	stop()
	buf.Close() // logs what is queued, then ends the goroutine
	// Output:
	// {"level":"info","msg":"r4c: timeout","policy":"timeout","instance":"slow","timeout":"2s"}
}
