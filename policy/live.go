package policy

import (
	"github.com/resilience4cata/r4c/events"
)

// Changes returns, in the order of the table, the keys whose values differ
// between old and new, with both values as text: what a
// [events.ConfigChanged] reports. It returns nil when nothing differs.
func (t *Table[C]) Changes(old, new *C) []events.KeyChange {
	var out []events.KeyChange
	for _, k := range t.keys {
		if k.Value(old) != k.Value(new) {
			out = append(out, events.KeyChange{Key: k.Name, Old: k.Format(old), New: k.Format(new)})
		}
	}
	return out
}

// CheckLive returns a [*FieldError] of class [ClassNotLive] for the first
// key (in table order) that is not live and whose value differs between
// old and new; nil when every key that differs is live.
func (t *Table[C]) CheckLive(old, new *C) error {
	for _, k := range t.keys {
		if !k.Live && k.Value(old) != k.Value(new) {
			return NotLiveError(k.Name, k.Format(old), k.Format(new))
		}
	}
	return nil
}

// NotLiveError returns the [*FieldError] of class [ClassNotLive] for key,
// whose value would change from old to new while the instance runs.
func NotLiveError(key, old, new string) *FieldError {
	return &FieldError{Key: key, Value: new, Class: ClassNotLive,
		Rule: "cannot change while the instance runs (it is " + old + "); " +
			"keys marked live in docs/configuration.md can: restart, or build a new instance under another name"}
}

// PublishChanged publishes an [events.ConfigChanged] for changes of the
// instance of kind policyName on bus, if changes is not empty and someone
// listens.
func PublishChanged(bus *events.Bus, policyName, instance string, changes []events.KeyChange) {
	if len(changes) > 0 && bus.Active() {
		bus.Publish(events.ConfigChanged{Policy: policyName, Instance: instance, Changes: changes})
	}
}
