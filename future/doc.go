// Package future provides [Future], the result of an asynchronous call, and
// [Promise], the side that completes it.
//
// A Future completes once, with a value or an error. [Future.Get] waits for
// it (honouring a ctx), [Future.Done] gives a channel for select, and
// [Future.Cancel] gives up on it: the work's ctx is cancelled and Get
// returns [ErrCancelled].
//
// Functions registered with [Future.OnComplete] run on the completing
// goroutine before Done is closed, so that anything they record (a pipeline
// freeing its slot and recording the call's latency) is visible to whoever
// returns from Get.
package future
