package fallback

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
)

// ErrResultType is matched (errors.Is) by the error of a call whose
// fallback Func returned a result that is not of the pipeline's type: a
// programming error, reported at call time because Func's result type is
// only known then. See [ResultTypeError].
var ErrResultType = errors.New("r4c: fallback result has the wrong type")

// ResultTypeError is the error of a call whose fallback Func returned a
// non-nil result that is not a T. It matches [ErrResultType] and, through
// Unwrap, the error the fallback was handling.
type ResultTypeError struct {
	// Instance is the id of the fallback.
	Instance string
	// Got and Want are the result's type and the pipeline's, as text.
	Got, Want string
	// Err is the error the fallback was handling.
	Err error
}

// Error returns "r4c: fallback <instance> returned a <got>, want a <want>
// (handling: <err>)".
func (e *ResultTypeError) Error() string {
	return "r4c: fallback " + e.Instance + " returned a " + e.Got + ", want a " + e.Want + " (handling: " + errText(e.Err) + ")"
}

// Unwrap returns [ErrResultType] and the handled error.
func (e *ResultTypeError) Unwrap() []error { return []error{ErrResultType, e.Err} }

// InstanceID returns the id of the fallback.
func (e *ResultTypeError) InstanceID() string { return e.Instance }

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// Return returns a configuration function that sets Config.Value to v, so
// that the compiler checks v's type against the pipeline's:
//
//	pipeline.NewBuilder[string](reg, "search").Fallback(fallback.Return("no results"))
//
// To set other fields as well, call it on the Config:
// fallback.Return("none")(c).
func Return[T any](v T) func(*Config) {
	return func(c *Config) { c.Value = v }
}

// Call returns a configuration function that sets Config.Func to fn, so
// that the compiler checks fn's result type against the pipeline's. A nil
// fn clears Func. The result of fn goes through an any, which allocates
// for most non-pointer types; [Return] does not.
func Call[T any](fn func(ctx context.Context, err error) (T, error)) func(*Config) {
	return func(c *Config) {
		if fn == nil {
			c.Func = nil
			return
		}
		c.Func = func(ctx context.Context, err error) (any, error) { return fn(ctx, err) }
	}
}

// Stage returns the pipeline stage of f for calls that return a T. Make it
// once, when the pipeline is built; it is safe for concurrent use.
//
// It returns a [*policy.FieldError] {Key: "value", Class:
// policy.ClassCombination} when Config.Value is neither nil nor a T (the
// type assertion Value.(T) fails), even if Func, which takes precedence,
// is set.
//
// # Synchronous calls (Run)
//
// Run calls the rest of the chain with the caller's ctx and start reading.
// A success, an error the fallback does not handle ([Fallback.Handles]) and
// the caller's own cancellation pass through unchanged. For a handled error
// it publishes events.FallbackUsed, then returns Func's outcome if Func is
// set (Func runs on the caller's goroutine and must honour ctx), else
// Value with a nil error. A Func that returns a non-nil result that is not
// a T fails the call with a [*ResultTypeError]; a Func that returns an
// error fails the call with that error (and the zero T). Run returns the
// inner stages' end reading. It allocates nothing, except in Func and for
// an event somebody listens to. A panic passes through.
//
// # Asynchronous calls (RunAsync)
//
// RunAsync starts the rest of the chain on the calling goroutine. If its
// future is complete already, the outcome is handled at once (the inner
// future itself is returned when there is nothing to handle). Otherwise it
// returns a future of its own that completes with the inner outcome, or,
// for a handled error, with Value or Func's outcome; Func then runs on the
// goroutine that completes the inner future, before the returned future
// completes, so it should be quick or hand its work off. Cancelling the
// returned future cancels the inner one (whose ErrCancelled is never
// handled). If HandleIf or Func panics there, the returned future fails
// with the error being handled and the panic goes on, once the future is
// complete (see [policy.Forward]). A Func that panics counts in
// FuncFailures, in both paths.
func Stage[T any](f *Fallback) (policy.Link[T], error) {
	s := &stage[T]{f: f, fn: f.cfg.Func}
	if f.cfg.Value != nil {
		v, ok := f.cfg.Value.(T)
		if !ok {
			return nil, &policy.FieldError{Key: "value", Value: fmt.Sprintf("%T", f.cfg.Value),
				Rule: "must be a " + typeName[T]() + ", the pipeline's result type", Class: policy.ClassCombination}
		}
		s.value = v
	}
	return s, nil
}

// Do runs fn through f: a handled error is replaced as [Stage] describes.
// It returns Stage's error if f's Value is not a T. Do builds its stage on
// each call; a hot path should make a [Stage] once and use it through a
// pipeline.
func Do[T any](ctx context.Context, f *Fallback, fn func(context.Context) (T, error)) (T, error) {
	s, err := Stage[T](f)
	if err != nil {
		var zero T
		return zero, err
	}
	v, _, err := s.Run(ctx, policy.NewNext[T](nil, fn, nil))
	return v, err
}

func typeName[T any]() string { return reflect.TypeFor[T]().String() }

type stage[T any] struct {
	f     *Fallback
	value T
	fn    func(ctx context.Context, err error) (any, error)
}

var _ policy.Link[any] = (*stage[any])(nil)

func (s *stage[T]) Run(ctx context.Context, next policy.Next[T]) (T, policy.Stamp, error) {
	f := s.f
	if f.disabled {
		return next.Run(ctx)
	}
	f.calls.Add(1)
	v, st, err := next.Run(ctx)
	if err == nil || !f.Handles(ctx, err) {
		return v, st, err
	}
	v, err = s.fall(ctx, err)
	return v, st, err
}

// fall returns what replaces a call that failed with the handled error err.
func (s *stage[T]) fall(ctx context.Context, err error) (T, error) {
	f := s.f
	f.handled.Add(1)
	f.publishUsed(ctx, err)
	if s.fn == nil {
		return s.value, nil
	}
	returned := false
	defer func() {
		if !returned {
			f.failed.Add(1) // Func panicked: the call failed all the same, and the panic goes on
		}
	}()
	r, ferr := s.fn(ctx, err)
	returned = true
	var zero T
	if ferr != nil {
		f.failed.Add(1)
		return zero, ferr
	}
	if r == nil {
		return zero, nil
	}
	v, ok := r.(T)
	if !ok {
		f.failed.Add(1)
		return zero, &ResultTypeError{Instance: f.instance, Got: fmt.Sprintf("%T", r), Want: typeName[T](), Err: err}
	}
	return v, nil
}

func (s *stage[T]) RunAsync(ctx context.Context, next policy.AsyncNext[T]) *future.Future[T] {
	f := s.f
	if f.disabled {
		return next.Call(ctx)
	}
	f.calls.Add(1)
	inner := next.Call(ctx)
	select {
	case <-inner.Done():
		_, err := inner.Get(ctx)
		if err == nil || !f.Handles(ctx, err) {
			return inner
		}
		v, err := s.fall(ctx, err)
		if err != nil {
			return future.Failed[T](err)
		}
		return future.Completed(v)
	default:
	}
	// If HandleIf or Func panics, the returned future fails with the error
	// being handled and the panic goes on.
	return policy.Forward(inner, func(c policy.Outcome[T]) policy.Outcome[T] {
		if c.Err != nil && f.Handles(ctx, c.Err) {
			c.V, c.Err = s.fall(ctx, c.Err)
		}
		return c
	})
}
