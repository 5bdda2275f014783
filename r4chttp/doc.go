// Package r4chttp plugs r4c pipelines into net/http, on both sides, with
// one line each:
//
//	srv := &http.Server{Handler: h}    // server: shed load
//	srv.Handler, err = r4chttp.NewHandler(serverPipeline, h, r4chttp.ServerConfig{})
//
//	client := &http.Client{}           // client: protect the caller
//	client.Transport, err = r4chttp.NewTransport(clientPipeline, r4chttp.ClientConfig{})
//
// # Server
//
// A [Handler] runs each request through a pipeline of result type int
// (the status written): an adaptive limit sheds the load above the
// server's capacity, answering a rejected request at once with 503 (429
// for a rate limiter's refusal, with Retry-After), while admitted
// requests keep their latency. The handler's outcome feeds the limit: a
// 5xx (configurable) or a timeout is a drop, a client that went away is
// no sample. Priorities come from a header or a function, and a bypass
// predicate keeps health checks out of the pipeline. See [ServerConfig].
//
// # Client
//
// A [Transport] sends each request through a pipeline of result type
// *http.Response: retries replay the body (Request.GetBody), a 429 or 503
// with Retry-After makes the retry wait what the server asked for, 5xx
// and 429 are failures and 503 and 429 drops for the adaptive limit, and
// every response that is not returned is drained and closed. The body of
// the response returned reads in full after RoundTrip returns, under the
// timeout's deadline. See [ClientConfig].
//
// # Recommended pipelines
//
// [NewClientPipeline] and [NewServerPipeline] build the pipelines we
// recommend, and say why their settings differ from the core's defaults;
// [NewClient] returns an *http.Client over the first. A pipeline built by
// hand works too; for the HTTP outcomes to reach its policies, set the
// adaptive limit's DropIf to [IsDrop], and for a client the retry's
// AbortIf to [NotRetryable] and its WaitFunc to retry.RetryAfterWait.
//
// docs/http.md tells the whole story, with the costs measured.
package r4chttp
