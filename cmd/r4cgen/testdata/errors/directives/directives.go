package directives

import "context"

// Client has a directive error of every kind R4C-REG-002 and R4C-GEN-005
// cover.
//
//r4c:adaptivelimit maxLimit=10
type Client interface {
	//r4c:adaptiveLimit maxLimt=100
	UnknownKey(ctx context.Context) error
	//r4c:retry nmae=x
	UnknownGeneratorKey(ctx context.Context) error
	//r4c:adaptiveLimit 100
	NoShorthand(ctx context.Context) error
	//r4c:timeout 1s
	//r4c:timeout timeout=2s
	Twice(ctx context.Context) error
	//r4c:bulkhead name=
	EmptyName(ctx context.Context) error
	// r4c:timeout 1s
	Spaced(ctx context.Context) error
	//r4c:config
	ConfigWithoutName(ctx context.Context) error
	//r4c:config a b
	ConfigTwoNames(ctx context.Context) error
	//r4c:retry name="unterminated
	Unterminated(ctx context.Context) error
	//r4c:retry =3
	NoKey(ctx context.Context) error
	//r4c:
	NoKind(ctx context.Context) error
}
