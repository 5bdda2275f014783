package sim

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// ParseSpec returns the limiter named alg: the name of a Specs limiter
// ("r4c-little", "failsafe-go", "bulkhead-4C", ...), or the name of any
// adaptivelimit.Algorithm ("little", "gradient2", or one added to the
// library since), which runs the library's limit with that algorithm.
// config, for an algorithm, sets adaptivelimit.Config fields as
// comma-separated name=value pairs, the name matched case-insensitively
// ("smoothing=0.3,rttTolerance=2,window=500ms"); ints, floats, bools and
// durations can be set. The scenario's limits still override InitialLimit,
// MaxLimit, MinWindowSamples and Window.
func ParseSpec(alg, config string) (Spec, error) {
	for _, s := range Specs() {
		if s.Name == alg {
			if config != "" {
				return Spec{}, fmt.Errorf("sim: %s takes no config (only an algorithm does)", alg)
			}
			return s, nil
		}
	}
	var names []string
	for a := range 256 {
		a := adaptivelimit.Algorithm(a)
		name := a.String()
		if name == "unknown" {
			continue
		}
		names = append(names, name)
		if name != alg {
			continue
		}
		cfg := adaptivelimit.Config{Algorithm: a}
		if err := setFields(&cfg, config); err != nil {
			return Spec{}, err
		}
		spec := Algorithm(a)
		if config != "" {
			spec = R4C("r4c-"+name+"{"+config+"}", cfg)
		}
		return spec, nil
	}
	for _, s := range Specs() {
		names = append(names, s.Name)
	}
	return Spec{}, fmt.Errorf("sim: unknown limiter %q: want one of %s", alg, strings.Join(names, ", "))
}

// setFields sets the fields of cfg named in config.
func setFields(cfg *adaptivelimit.Config, config string) error {
	if config == "" {
		return nil
	}
	v := reflect.ValueOf(cfg).Elem()
	for _, kv := range strings.Split(config, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return fmt.Errorf("sim: config %q: want name=value", kv)
		}
		f := v.FieldByNameFunc(func(n string) bool { return strings.EqualFold(n, name) })
		if !f.IsValid() {
			return fmt.Errorf("sim: config: adaptivelimit.Config has no field %q", name)
		}
		var err error
		switch {
		case f.Type() == reflect.TypeFor[time.Duration]():
			var d time.Duration
			d, err = time.ParseDuration(value)
			f.SetInt(int64(d))
		case f.Kind() == reflect.Int:
			var n int64
			n, err = strconv.ParseInt(value, 10, 0)
			f.SetInt(n)
		case f.Kind() == reflect.Float64:
			var x float64
			x, err = strconv.ParseFloat(value, 64)
			f.SetFloat(x)
		case f.Kind() == reflect.Bool:
			var b bool
			b, err = strconv.ParseBool(value)
			f.SetBool(b)
		default:
			return fmt.Errorf("sim: config: field %s (%s) cannot be set here", name, f.Type())
		}
		if err != nil {
			return fmt.Errorf("sim: config %s=%s: %w", name, value, err)
		}
	}
	return nil
}
