// Package r4credis keeps rate limits in Redis, shared by every replica of
// a service: a ratelimit.Store for policy/ratelimit.
package r4credis
