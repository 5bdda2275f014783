// Package r4cgrpc plugs r4c pipelines into gRPC: unary and stream
// interceptors for servers (load shedding) and clients (protection).
//
//	grpc.NewServer(
//		grpc.ChainUnaryInterceptor(unaryServer),   // r4cgrpc.UnaryServerInterceptor(p, cfg)
//		grpc.ChainStreamInterceptor(streamServer), // r4cgrpc.StreamServerInterceptor(p, cfg)
//	)
//	grpc.NewClient(target,
//		grpc.WithChainUnaryInterceptor(unaryClient),   // r4cgrpc.UnaryClientInterceptor(p, cfg)
//		grpc.WithChainStreamInterceptor(streamClient), // r4cgrpc.StreamClientInterceptor(p, cfg)
//	)
//
// # Server
//
// A call the pipeline rejects ends at once with codes.ResourceExhausted
// (or Unavailable, see [ServerConfig]) and a grpc-retry-pushback-ms
// trailer: the rate limiter's wait when it refused the call, or
// ServerConfig.Pushback. An admitted call holds its slot until its handler
// returns: a stream holds it for its whole life. The handler's status
// feeds the limit: the codes ServerConfig.Drop accepts (those that say the
// server failed or is overloaded, as HTTP's 5xx) are drops, a call the
// client cancelled is no sample, and any other status is a sample.
//
// # Client
//
// Status codes are mapped to the pipeline's outcomes: Unavailable,
// ResourceExhausted and DeadlineExceeded are drops, the codes
// ClientConfig.Failure accepts are failures (a breaker counts them, a
// retry may retry them), and the others are successes (a NotFound is a
// valid answer, and its latency a sample). The pipeline's deadline
// reaches the server in the call's ctx (grpc-timeout). A server's
// grpc-retry-pushback-ms becomes the wait retry.RetryAfterWait honours.
//
// Retries follow gRPC's semantics: a unary call is retried only after a
// status that says the server did not process it (Unavailable,
// ResourceExhausted), after a policy's rejection (nothing was sent), or,
// for the methods ClientConfig.Idempotent names, after any failure; never
// after a pushback that says "do not retry" (a negative value). A stream
// cannot be replayed: the stream interceptors refuse a pipeline with a
// retry or a hedge.
//
// [NewClientPipeline] and [NewServerPipeline] build the pipelines we
// recommend. docs/grpc.md tells the whole story.
package r4cgrpc
