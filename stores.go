package r4c

func (r *Registry) initStores() {
	r.adaptive = newStore(adaptiveKind)
	r.stores = []kindStore{r.adaptive}
}
