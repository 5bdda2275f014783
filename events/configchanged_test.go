package events_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/resilience4cata/r4c/events"
)

func TestConfigChanged(t *testing.T) {
	e := events.ConfigChanged{Policy: "ratelimit", Instance: "api", Changes: []events.KeyChange{
		{Key: "limit", Old: "50", New: "20"}, {Key: "burst", Old: "50", New: "20"},
	}}
	var ev events.Event = e
	assert.Equal(t, events.KindConfigChanged, ev.Kind())
	assert.Equal(t, "config changed", ev.Kind().String())
	p, id := ev.Source()
	assert.Equal(t, "ratelimit", p)
	assert.Equal(t, "api", id)
	assert.Equal(t, []string{"limit", "burst"}, e.Keys())
	assert.Empty(t, events.ConfigChanged{}.Keys())
}
