// Package r4c is the front of r4c, resilience for Go services: the
// [Registry] that holds an application's named policy instances (adaptive
// limits, timeouts, bulkheads, rate limiters, retries, circuit breakers,
// hedges and fallbacks), their configuration in code and from outside, the
// clock they read and the events they publish; the handles and snapshots
// that show each instance; and the coded errors of a bad configuration.
// Pipelines, which compose the policies in a fixed order, are built
// against a Registry with package pipeline.
//
// # Quick start
//
// A service builds its registry and pipelines once, at startup, and fails
// the startup on any configuration error:
//
//	reg, err := r4c.NewRegistry(
//		r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) {
//			c.Algorithm = adaptivelimit.Little // finds the capacity on any shape (docs/adaptation.md)
//			c.MaxLimit = 500
//		}),
//		r4c.WithRetryConfig("idempotent", func(c *retry.Config) {
//			c.MaxAttempts = 3
//			c.AbortOn = []error{adaptivelimit.ErrLimitExceeded} // a full limit fails fast
//		}),
//		// The file and the environment tune the code without a rebuild:
//		// R4C_INSTANCES_ORDERS_ADAPTIVELIMIT_MAXLIMIT=300 wins over the file.
//		r4c.WithPropertiesFile("/etc/orders/r4c.properties"),
//		r4c.WithEnvironment(),
//	)
//	if err != nil {
//		log.Fatal(err) // a *r4c.ConfigError; its message starts with its R4C code
//	}
//	orders, err := pipeline.NewBuilder[string](reg, "orders").
//		Retry(func(c *retry.Config) { c.BaseConfig = "idempotent" }).
//		AdaptiveLimit(nil).
//		Timeout(nil).
//		Build()
//	if err != nil {
//		log.Fatal(err)
//	}
//	// Every pipeline is built: an instance key that matched none is a typo.
//	if err := reg.CheckUnusedKeys(); err != nil {
//		log.Fatal(err)
//	}
//
//	s, err := orders.ExecuteContext(context.Background(), func(ctx context.Context) (string, error) {
//		return "placed", nil // the call to the dependency, honouring ctx
//	})
//	fmt.Println(s, err)
//	t, _ := reg.Timeout("orders")
//	r, _ := reg.Retry("orders")
//	fmt.Println(t.Config().Timeout, r.Config().Wait)
//
// The properties file holds flat keys, one per line, such as
//
//	defaults.adaptiveLimit.minLimit=2
//	configs.idempotent.retry.wait=PT0.2S
//	instances.orders.timeout.timeout=2s
//
// Tests pass [WithClock] a clocktest.ManualClock, and [WithProperties] or
// [WithEnv] instead of files and the process environment.
//
// # Configuration
//
// Every policy kind has the same four things: With<Kind>Defaults (what
// every instance starts from), With<Kind>Config (a named configuration,
// used through Config.BaseConfig), a builder method in package pipeline,
// and reg.<Kind>(id), which returns the instance's handle. From outside,
// the same settings are flat keys (defaults.<kind>.<key>,
// configs.<name>.<kind>.<key>, instances.<id>.<kind>.<key>) from
// [WithProperties], [WithPropertiesFile] and [WithEnvironment]. Each
// policy package declares its keys once, in its Keys table; the reference
// docs/configuration.md is generated from those tables.
//
// Precedence, lowest first: built-in defaults, defaults, named
// configuration, the builder's values, external instance values; at each
// level an external value wins over code. In code a zero field means "not
// set here": Config.SetZero sets a key back to zero over a lower layer,
// Config.Enable clears Disabled.
//
// An instance is shared when its builder sets Config.Name, or when a
// pipeline built its id before. Every builder of a shared instance must
// resolve to the same key values, and its funcs and lists (DropIf,
// RecordOn, a fallback's value) come from the defaults or a named
// configuration, never from a builder closure (R4C-REG-008).
//
// Ratios are fractions in [0, 1] everywhere (50 % is 0.5); durations are
// time.Duration in Go, Go or ISO-8601 text in configuration, seconds in
// metrics and duration strings in the JSON of snapshots.
//
// # Reloading
//
// [Registry.Reload] reads the sources again and applies what changed to
// the running instances, all or nothing: the whole new configuration is
// validated first, and a key that cannot change while its instance runs
// is refused with R4C-REG-011 ([CodeNotLive]); docs/configuration.md marks
// the live keys and says from when each applies (a rate from the next
// permit, a lower limit by rejecting new calls until enough have ended, a
// breaker threshold from the next evaluation). Each instance changed
// publishes an events.ConfigChanged. A [Watcher] polls the sources on the
// registry's clock and reloads when they change:
//
//	w, err := reg.NewWatcher(10*time.Second, func(err error) { log.Print(err) })
//	if err != nil {
//		log.Fatal(err)
//	}
//	w.Start()
//	defer w.Stop()
//
// The handles have setters for the same keys, for code: a rate limiter's
// SetLimit and SetBurst, a bulkhead's SetMaxConcurrent, an adaptive
// limit's SetMinLimit and SetMaxLimit, a breaker's thresholds, a retry's
// SetMaxAttempts and SetBackoff, a timeout's SetTimeout; each validates
// its value and returns a *policy.FieldError whose class [ClassCode] maps
// to its R4C code.
//
// # Handles and snapshots
//
// Every handle has Config, the configuration the instance runs with (as
// built, with the changes of Reload and of the handle's setters), and
// Snapshot, its figures now; every snapshot has a Disabled field and
// int64 counters, and marshals to JSON. [Registry.Snapshot] returns every
// instance's, by id.
//
// # Errors
//
// Every configuration error is a [*ConfigError] matching [ErrConfig], with
// a code (such as R4C-ATR-003) that starts its message, the key and the
// value as the user wrote them, and the rule broken: [NewRegistry] returns
// one for a source, a key, a value that does not parse or a layer that
// breaks a rule; a pipeline's Build for an instance's configuration;
// [Registry.CheckUnusedKeys] for instance keys no pipeline used. A bad
// configuration never panics and never half-applies. docs/errors.md lists
// every code.
package r4c
