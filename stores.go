package r4c

// initStores makes one store per policy kind, in the pipeline's order.
func (r *Registry) initStores() {
	r.fallback = newStore(fallbackKind)
	r.retry = newStore(retryKind)
	r.breaker = newStore(breakerKind)
	r.hedge = newStore(hedgeKind)
	r.ratelimit = newStore(ratelimitKind)
	r.adaptive = newStore(adaptiveKind)
	r.timeout = newStore(timeoutKind)
	r.bulkhead = newStore(bulkheadKind)
	r.stores = []kindStore{r.fallback, r.retry, r.breaker, r.hedge, r.ratelimit, r.adaptive, r.timeout, r.bulkhead}
}
