package r4czap_test

import (
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/resilience4cata/r4c/events"
	r4czap "github.com/resilience4cata/r4c/logging/zap"
)

// discardLogger encodes JSON entries at level and above and throws them
// away.
func discardLogger(level zapcore.Level) *zap.Logger {
	return zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(discard{}), level))
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkListener measures one event handed to the listener: below the
// core's level (skipped), and encoded as JSON and discarded.
func BenchmarkListener(b *testing.B) {
	var rejected events.Event = events.CallRejected{Policy: "adaptivelimit", Instance: "search"}
	var changed events.Event = events.LimitChanged{Instance: "search", OldLimit: 20, NewLimit: 18,
		WindowLatency: 120 * time.Millisecond, LongLatency: 80 * time.Millisecond, MaxInFlight: 19, Samples: 42}
	b.Run("skipped", func(b *testing.B) {
		l := r4czap.Listener(discardLogger(zapcore.InfoLevel))
		b.ReportAllocs()
		for b.Loop() {
			l(rejected)
		}
	})
	b.Run("rejected", func(b *testing.B) {
		l := r4czap.Listener(discardLogger(zapcore.DebugLevel))
		b.ReportAllocs()
		for b.Loop() {
			l(rejected)
		}
	})
	b.Run("limit-changed", func(b *testing.B) {
		l := r4czap.Listener(discardLogger(zapcore.InfoLevel))
		b.ReportAllocs()
		for b.Loop() {
			l(changed)
		}
	})
}
