package engine

import (
	"errors"
	"strings"
)

// storePlan is what a reload will do to one kind, once every kind has been
// checked: its new external values, and the instances whose configuration
// changed.
type storePlan struct {
	commit  func()         // installs the new values and configurations in the registry
	applies []func() error // reconfigure the running instances
}

// Reload reads every source again and applies what changed to the
// instances built so far. It parses and validates the whole new
// configuration first — every value, the defaults and named
// configurations of every kind, and every instance as its pipelines
// resolve it — and returns the first problem as a coded error, with
// nothing applied. A key that differs for a running instance and is not
// live (policy.Key.Live) is a NotLive error. Otherwise it installs the new
// values (what later builds resolve) and updates each instance whose
// configuration changed, through its handle's Update: the running instance
// changes only in the keys that changed in the sources, so a value set
// through a handle's setter stays until its key changes in a source.
//
// Reloads are serialised. The registry's lock is held while they are
// checked, never while instances are reconfigured (they publish
// events.ConfigChanged to listeners that may call the registry).
func (r *Registry) Reload() error {
	r.reloadMu.Lock()
	defer r.reloadMu.Unlock()
	ext, _, err := r.readSources()
	if err != nil {
		return err
	}
	applies, err := r.plan(ext)
	if err != nil {
		return err
	}
	var errs []error
	for _, apply := range applies {
		if err := apply(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// plan checks ext against every kind under the registry's lock and, when
// all is well, installs it and returns the reconfigurations to run.
func (r *Registry) plan(ext []*entry) ([]func() error, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var kinds []string
	for _, s := range r.stores {
		kinds = append(kinds, s.kindName())
	}
	per := make(map[storeAny][]*entry, len(r.stores))
	for _, e := range ext {
		s := r.storeFor(e.rawKind, e.env)
		if s == nil {
			return nil, &Error{Code: UnknownKey, Key: e.key, Value: e.value,
				Rule: "no policy kind is called " + e.rawKind + suggestion(e.rawKind, kinds)}
		}
		e.store = s
		per[s] = append(per[s], e)
	}
	plans := make([]*storePlan, 0, len(r.stores))
	for _, s := range r.stores {
		p, err := s.plan(r, per[s])
		if err != nil {
			return nil, err
		}
		plans = append(plans, p)
	}
	r.ext = ext
	var applies []func() error
	for _, p := range plans {
		p.commit()
		applies = append(applies, p.applies...)
	}
	return applies, nil
}

// readSources reads every source, in the order given, and returns the
// entries and their text (one "key=value" line each), which tells whether
// anything changed.
func (r *Registry) readSources() ([]*entry, string, error) {
	var ext []*entry
	for _, src := range r.sources {
		if err := src.read(&ext); err != nil {
			return nil, "", err
		}
	}
	return ext, entriesText(ext), nil
}

func entriesText(ext []*entry) string {
	var b strings.Builder
	for _, e := range ext {
		b.WriteString(e.key)
		b.WriteByte('=')
		b.WriteString(e.value)
		b.WriteByte('\n')
	}
	return b.String()
}

// AppliedText returns the text (see SourcesText) of the external values in
// force: read by NewRegistry, or by the last Reload that succeeded.
func (r *Registry) AppliedText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return entriesText(r.ext)
}

// SourcesText reads every source and returns their entries as text, one
// "key=value" line each, in the order given: what a watcher compares.
func (r *Registry) SourcesText() (string, error) {
	_, text, err := r.readSources()
	return text, err
}

// Files returns the properties files among the sources.
func (r *Registry) Files() []string {
	var files []string
	for _, s := range r.sources {
		if s.file != "" {
			files = append(files, s.file)
		}
	}
	return files
}

// plan checks the kind's new external values entries: it parses them,
// validates the defaults and named configurations, and resolves every
// instance again. r.mu is held. s.ext is left as it was; the plan's commit
// installs the new values.
func (s *store[C, I]) plan(r *Registry, entries []*entry) (*storePlan, error) {
	next := make([]extValue[C], 0, len(entries))
	for _, e := range entries {
		x, err := s.parseEntry(e)
		if err != nil {
			return nil, err
		}
		next = append(next, x)
	}
	old := s.ext
	s.ext = next
	defer func() { s.ext = old }()
	if err := s.validateLayers(); err != nil {
		return nil, err
	}
	type update struct {
		in  *instance[C, I]
		cfg C
		res *resolution
	}
	var updates []update
	var applies []func() error
	for _, id := range s.ids() {
		in := s.instances[id]
		d, res, err := s.resolveAgain(id, in)
		if err != nil {
			return nil, err
		}
		updates = append(updates, update{in, d, res})
		apply, err := s.reconfiguration(id, in, d, res)
		if err != nil {
			return nil, err
		}
		if apply != nil {
			applies = append(applies, apply)
		}
	}
	return &storePlan{
		commit: func() {
			s.ext = next
			for _, u := range updates {
				u.in.cfg, u.in.res = u.cfg, u.res
			}
		},
		applies: applies,
	}, nil
}

// resolveAgain resolves instance id with the external values of the
// moment, for each pipeline that uses it, and validates the result. The
// pipelines sharing it must still agree.
func (s *store[C, I]) resolveAgain(id string, in *instance[C, I]) (C, *resolution, error) {
	prefix := scopeInstances + "." + id + "." + s.k.Name
	var d C
	var res *resolution
	for i, bl := range in.builders {
		c, cres, err := s.resolveFor(id, bl)
		if err != nil {
			return d, nil, err
		}
		dc := s.k.Defaults(c)
		if i == 0 {
			d, res = dc, cres
			continue
		}
		if err := s.same(&instance[C, I]{cfg: d, res: res}, dc, cres, id); err != nil {
			return d, nil, err
		}
	}
	if err := s.k.Validate(d); err != nil {
		return d, nil, s.errorFor(err, res, prefix, id)
	}
	return d, res, nil
}

// reconfiguration checks the change of instance id from its configuration
// to d and returns the function that applies it to the running instance,
// or nil when no key changed. A key that changed and is not live is a
// NotLive error against the key and text that changed it.
func (s *store[C, I]) reconfiguration(id string, in *instance[C, I], d C, res *resolution) (func() error, error) {
	t := s.k.Keys
	prefix := scopeInstances + "." + id + "." + s.k.Name
	var changed []int
	for i := range t.Len() {
		k := t.At(i)
		if k.Value(&in.cfg) == k.Value(&d) {
			continue
		}
		if !k.Live {
			key, value := prefix+"."+k.Name, k.Format(&d)
			if o := res.keys[i]; o.ext != nil {
				key, value = o.ext.key, o.ext.value
			}
			return nil, &Error{Code: NotLive, Key: key, Value: value,
				Rule: k.Name + " of running " + s.k.Name + " instance " + id + " cannot change without a restart (it is " +
					k.Format(&in.cfg) + ", the reload gives " + k.Format(&d) + "); the keys marked live in docs/configuration.md can"}
		}
		changed = append(changed, i)
	}
	if len(changed) == 0 {
		return nil, nil
	}
	// The running instance keeps what its setters changed: only the keys
	// that changed in the sources move.
	cur := s.k.Current(in.inst)
	for _, i := range changed {
		k := t.At(i)
		k.Copy(&cur, &d)
		if t.Zeroes(&d).Has(k.Name) {
			t.Zeroes(&cur).Add(k.Name)
		} else {
			t.Zeroes(&cur).Remove(k.Name)
		}
	}
	if err := s.k.Validate(s.k.Defaults(cur)); err != nil {
		return nil, s.errorFor(err, res, prefix, id)
	}
	inst := in.inst
	return func() error {
		// The overlay again, on the configuration of the moment, in one
		// step with the instance's setters.
		err := s.k.Update(inst, func(c *C) {
			for _, i := range changed {
				k := t.At(i)
				k.Copy(c, &d)
				if t.Zeroes(&d).Has(k.Name) {
					t.Zeroes(c).Add(k.Name)
				} else {
					t.Zeroes(c).Remove(k.Name)
				}
			}
		})
		if err != nil {
			return s.errorFor(err, res, prefix, id)
		}
		return nil
	}, nil
}
