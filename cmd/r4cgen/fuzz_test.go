package main

import (
	"go/token"
	"slices"
	"testing"
)

// FuzzDirective feeds any text after //r4c: to the directive parser: it
// never panics, and whatever it accepts is a known kind's known key with a
// parsed value.
func FuzzDirective(f *testing.F) {
	for _, s := range []string{
		"adaptiveLimit name=orders initialLimit=10 maxLimit=100 window=500ms",
		"timeout 2s", "retry maxAttempts=3", "config backend", "circuitBreaker name=\"a b\" windowType=time",
		"rateLimiter 5", "fallback cached", "hedge delay=PT0.02S maxHedged=2", "bulkhead maxConcurrent=8 maxWait=0",
		"retry name=\"x", "retry =3", "adaptiveLimit 100", "", "config", "timeout timeout=1s timeout=2s",
		"adaptiveLimit algorithm=aimd enabled=false", "retry jitter=full", "timeout \"2s\"x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ds := &diags{}
		l := &level{}
		l.parseComment(token.Position{Filename: "f.go", Line: 1}, directivePrefix+text, ds)
		for _, lk := range l.kinds {
			if lookupKind(lk.kind.Name()) != lk.kind {
				t.Fatalf("unknown kind %s accepted", lk.kind.Name())
			}
			for _, s := range lk.settings {
				if !slices.Contains(lk.kind.Keys(), s.key) || s.parsed == nil {
					t.Fatalf("%s: key %s accepted with %v", lk.kind.Name(), s.key, s.parsed)
				}
			}
		}
		for _, d := range ds.list {
			if d.code == "" || d.rule == "" {
				t.Fatalf("an error without code or rule: %+v", d)
			}
		}
	})
}
