package r4cslog_test

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/events"
	r4cslog "github.com/resilience4cata/r4c/logging/slog"
)

// BenchmarkListener measures one event handed to the listener: below the
// handler's level (skipped), and logged by a text handler to io.Discard.
func BenchmarkListener(b *testing.B) {
	var rejected events.Event = events.CallRejected{Policy: "adaptivelimit", Instance: "search"}
	var changed events.Event = events.LimitChanged{Instance: "search", OldLimit: 20, NewLimit: 18,
		WindowLatency: 120 * time.Millisecond, LongLatency: 80 * time.Millisecond, MaxInFlight: 19, Samples: 42}
	b.Run("skipped", func(b *testing.B) {
		l := r4cslog.Listener(slog.New(slog.NewTextHandler(io.Discard, nil))) // Info: rejections are below
		b.ReportAllocs()
		for b.Loop() {
			l(rejected)
		}
	})
	b.Run("rejected", func(b *testing.B) {
		l := r4cslog.Listener(slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelDebug})))
		b.ReportAllocs()
		for b.Loop() {
			l(rejected)
		}
	})
	b.Run("limit-changed", func(b *testing.B) {
		l := r4cslog.Listener(slog.New(slog.NewTextHandler(io.Discard, nil)))
		b.ReportAllocs()
		for b.Loop() {
			l(changed)
		}
	})
}
