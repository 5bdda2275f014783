// Package engine is the registry's machinery behind package r4c: the code
// layers given to NewRegistry, the external sources (map, properties file,
// environment), the resolution of an instance's configuration through its
// layers, the sharing of instances between pipelines, and the transaction
// that registers a pipeline's instances all or nothing.
//
// The engine routes; it neither parses a value nor judges a range. A value
// from outside takes this route, through three files:
//
//  1. internal/config reads the source (a map, a .properties file, the
//     environment) into flat keys and text;
//  2. the kind's key table (policy/<kind>/keys.go) parses the text once,
//     when NewRegistry checks its sources, and sets its Config field;
//  3. the kind's Config.Validate (policy/<kind>/config.go) judges the
//     resolved configuration once, when the instance is built by New.
//
// The engine keeps, for each key of a resolved configuration, the layer
// that set it and, for an external value, the key and text as given, so
// that an error names what the user wrote.
//
// Errors are [*Error] values with a [Code]; package r4c turns them into
// its public *r4c.ConfigError. The engine knows no policy kind: package
// r4c and package pipeline hand it the kinds as [Kind] values.
package engine
