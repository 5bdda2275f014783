package hedge_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/hedge"
)

func TestWithDefaults(t *testing.T) {
	assert.Equal(t, hedge.Config{Delay: time.Second, MaxHedged: 1}, hedge.Config{}.WithDefaults())
	set := hedge.Config{Name: "n", BaseConfig: "b", Disabled: true, Delay: time.Millisecond, MaxHedged: 4}
	assert.Equal(t, set, set.WithDefaults(), "set fields are kept")
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  hedge.Config
		want *policy.FieldError
	}{
		{"defaults", hedge.Config{}.WithDefaults(), nil},
		{"max", hedge.Config{Delay: time.Nanosecond, MaxHedged: 10}, nil},
		{"negative delay", hedge.Config{Delay: -time.Second, MaxHedged: 1},
			&policy.FieldError{Key: "delay", Value: "-1s", Rule: "must be positive", Class: policy.ClassDuration}},
		{"zero delay", hedge.Config{MaxHedged: 1},
			&policy.FieldError{Key: "delay", Value: "0s", Rule: "must be positive", Class: policy.ClassDuration}},
		{"maxHedged below 1", hedge.Config{Delay: time.Second, MaxHedged: -1},
			&policy.FieldError{Key: "maxHedged", Value: "-1", Rule: "must be at least 1", Class: policy.ClassBound}},
		{"maxHedged above 10", hedge.Config{Delay: time.Second, MaxHedged: 11},
			&policy.FieldError{Key: "maxHedged", Value: "11", Rule: "must be at most 10", Class: policy.ClassRange}},
		{"disabled is validated too", hedge.Config{Disabled: true, Delay: -1, MaxHedged: 1},
			&policy.FieldError{Key: "delay", Value: "-1ns", Rule: "must be positive", Class: policy.ClassDuration}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.want == nil {
				assert.NoError(t, err)
				return
			}
			assert.Equal(t, tc.want, err)
		})
	}
}

func TestNewReturnsFieldErrorUnwrapped(t *testing.T) {
	h, err := hedge.New(hedge.Config{MaxHedged: -3}, policy.Env{})
	assert.Nil(t, h)
	fe, ok := err.(*policy.FieldError)
	require.True(t, ok, "got %T", err)
	assert.Equal(t, "maxHedged", fe.Key)
	assert.Equal(t, "maxHedged=-3: must be at least 1", err.Error())
}

func TestNewFillsDefaults(t *testing.T) {
	h, err := hedge.New(hedge.Config{}, policy.Env{})
	require.NoError(t, err)
	assert.Equal(t, hedge.Config{Delay: time.Second, MaxHedged: 1}, h.Config())
	hd := h.Handle()
	assert.False(t, hd.Snapshot().Disabled)
	assert.Equal(t, time.Second, hd.Delay())
	assert.Equal(t, 1, hd.MaxHedged())
}

func TestNewNeverPanics(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := hedge.Config{
			Disabled:  rapid.Bool().Draw(t, "disabled"),
			Delay:     time.Duration(rapid.Int64().Draw(t, "delay")),
			MaxHedged: rapid.Int().Draw(t, "maxHedged"),
		}
		h, err := hedge.New(cfg, policy.Env{})
		d := cfg.WithDefaults()
		valid := d.Delay > 0 && d.MaxHedged >= 1 && d.MaxHedged <= hedge.MaxMaxHedged
		if valid != (err == nil) || (h == nil) == (err == nil) {
			t.Fatalf("cfg %+v: hedge %v, err %v", cfg, h, err)
		}
		var fe *policy.FieldError
		if err != nil && !errors.As(err, &fe) {
			t.Fatalf("not a FieldError: %T", err)
		}
	})
}
