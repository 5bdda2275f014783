package kinds

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/resilience4cata/r4c/internal/engine"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// each runs f for every kind, through a generic helper.
func each(t *testing.T, f func(t *testing.T, k tableCase)) {
	for _, k := range []tableCase{
		caseOf(AdaptiveLimit, "adaptivelimit"), caseOf(Timeout, "timeout"), caseOf(Bulkhead, "bulkhead"),
		caseOf(RateLimit, "ratelimit"), caseOf(Retry, "retry"), caseOf(Breaker, "breaker"),
		caseOf(Hedge, "hedge"), caseOf(Fallback, "fallback"),
	} {
		t.Run(k.name, func(t *testing.T) { f(t, k) })
	}
}

// tableCase is a kind seen without its Config type.
type tableCase struct {
	name, dir string
	names     []string
	// code lists the table's code-only fields (set in code, no flat key).
	code []string
	// covering returns the keys and code-only fields that report a Config
	// with only the exported field i set as set.
	covering func(i int) []string
	fields   []reflect.StructField
	// validateKeys validates a random Config and returns the Key of the
	// FieldError, or "" when it is valid or fails otherwise.
	validateKeys func(t *rapid.T) string
	roundTrip    func(t *testing.T)
}

func caseOf[C any, I any](k *engine.Kind[C, I], dir string) tableCase {
	tab := k.Keys
	typ := reflect.TypeFor[C]()
	tc := tableCase{name: k.Name, dir: dir, names: tab.Names()}
	for _, f := range tab.Code() {
		tc.code = append(tc.code, f.Name)
	}
	for i := range typ.NumField() {
		if f := typ.Field(i); f.IsExported() && f.Name != "Name" && f.Name != "BaseConfig" {
			tc.fields = append(tc.fields, f)
		}
	}
	tc.covering = func(i int) []string {
		var c C
		setNonZero(reflect.ValueOf(&c).Elem().FieldByIndex(tc.fields[i].Index))
		var got []string
		for _, key := range tab.Keys() {
			if !key.IsZero(&c) {
				got = append(got, key.Name)
			}
		}
		for _, f := range tab.Code() {
			if f.IsSet(&c) {
				got = append(got, f.Name)
			}
		}
		return got
	}
	tc.validateKeys = func(t *rapid.T) string {
		var c C
		v := reflect.ValueOf(&c).Elem()
		for _, f := range tc.fields {
			if rapid.Bool().Draw(t, f.Name+" set") {
				drawValue(t, f.Name, v.FieldByIndex(f.Index))
			}
		}
		var fe *policy.FieldError
		if err := k.Validate(k.Defaults(c)); errors.As(err, &fe) {
			return fe.Key
		}
		return ""
	}
	tc.roundTrip = func(t *testing.T) {
		d := k.Defaults(*new(C))
		for _, key := range tab.Keys() {
			var c C
			text := key.Format(&d)
			require.NoError(t, key.Set(&c, text), "%s=%s", key.Name, text)
			assert.Equal(t, key.Value(&d), key.Value(&c), "%s reads back what Format writes", key.Name)
			var e C
			key.Copy(&e, &c)
			assert.Equal(t, key.Value(&c), key.Value(&e))
			key.Zero(&e)
			assert.True(t, key.IsZero(&e))
		}
	}
	return tc
}

// implementations gives a value for each interface-typed Config field
// whose interface has methods (an int does not implement it).
var implementations = map[reflect.Type]any{
	reflect.TypeFor[ratelimit.Store](): nopStore{},
}

// nopStore is a ratelimit.Store that is never called.
type nopStore struct{}

func (nopStore) Reserve(context.Context, string, ratelimit.StoreRequest) (ratelimit.Reservation, error) {
	panic("not called")
}

func (nopStore) Release(context.Context, string, ratelimit.StoreRequest, int) error {
	panic("not called")
}

func setNonZero(v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint8:
		v.SetUint(1)
	case reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	case reflect.Func:
		v.Set(reflect.MakeFunc(v.Type(), func([]reflect.Value) []reflect.Value { panic("not called") }))
	case reflect.Interface:
		if impl, ok := implementations[v.Type()]; ok {
			v.Set(reflect.ValueOf(impl))
		} else {
			v.Set(reflect.ValueOf(1))
		}
	default:
		panic("setNonZero: " + v.Type().String())
	}
}

// drawValue sets v to a random value of its kind, bad ones included.
func drawValue(t *rapid.T, name string, v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(rapid.Bool().Draw(t, name))
	case reflect.Int:
		v.SetInt(int64(rapid.IntRange(-3, 2_000_000).Draw(t, name)))
	case reflect.Int64: // time.Duration
		v.SetInt(rapid.SampledFrom([]int64{-1, 0, 1, int64(time.Millisecond), int64(time.Second), int64(25 * time.Hour), math.MaxInt64}).Draw(t, name))
	case reflect.Uint8:
		v.SetUint(uint64(rapid.IntRange(0, 6).Draw(t, name)))
	case reflect.Float64:
		v.SetFloat(rapid.SampledFrom([]float64{-1, 0, 0.1, 0.5, 1, 1.5, 50, math.NaN(), math.Inf(1)}).Draw(t, name))
	}
}

// TestKeysCoverEveryField: every exported field of every Config but Name
// and BaseConfig is exactly one key or one code-only field of its table.
func TestKeysCoverEveryField(t *testing.T) {
	each(t, func(t *testing.T, k tableCase) {
		for i, f := range k.fields {
			assert.Len(t, k.covering(i), 1, "%s.%s must be exactly one key or code-only field of the table in policy/%s/keys.go, is %v",
				k.name, f.Name, k.dir, k.covering(i))
		}
		assert.Len(t, slices.Compact(slices.Sorted(slices.Values(k.names))), len(k.names), "key names are unique")
		assert.Equal(t, policy.EnabledKeyName, k.names[0], "every kind has enabled, first")
	})
}

// TestKeysRoundTrip: each key reads back the text it writes.
func TestKeysRoundTrip(t *testing.T) {
	each(t, func(t *testing.T, k tableCase) { k.roundTrip(t) })
}

// TestValidateReportsTableKeys: every FieldError Validate returns for a
// random Config names a key of the table, and so does every FieldError
// literal written in the policy's config.go.
func TestValidateReportsTableKeys(t *testing.T) {
	each(t, func(t *testing.T, k tableCase) {
		seen := map[string]bool{}
		rapid.Check(t, func(rt *rapid.T) {
			if key := k.validateKeys(rt); key != "" {
				seen[key] = true
				if !slices.Contains(k.names, key) {
					rt.Fatalf("Validate reports key %q, which is not in the table %v", key, k.names)
				}
			}
		})
		lits := fieldErrorKeys(t, filepath.Join("..", "..", "policy", k.dir))
		if k.name != "fallback" {
			assert.NotEmpty(t, lits, "config.go writes its FieldErrors")
		}
		for _, lit := range lits {
			assert.True(t, slices.Contains(k.names, lit) || slices.Contains(k.code, lit),
				"a FieldError in policy/%s names %q, not a key or code-only field of its table", k.dir, lit)
		}
		if k.name != "fallback" {
			assert.NotEmpty(t, seen, "random configurations break some rule")
		}
	})
}

// fieldErrorKeys returns the string literals given as Key to a FieldError
// in dir's config.go, and the first string of each element of a
// composite literal of struct type whose first field is "key" (the tables
// of bounds Validate loops over).
func fieldErrorKeys(t *testing.T, dir string) []string {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var keys []string
	for _, de := range entries {
		// Validate and the enumerations' UnmarshalText live in config.go;
		// a Stage's FieldError names a code-only field, not a key.
		if name := de.Name(); name == "config.go" {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
			require.NoError(t, err)
			ast.Inspect(f, func(n ast.Node) bool {
				cl, ok := n.(*ast.CompositeLit)
				if !ok {
					return true
				}
				if sel, ok := cl.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "FieldError" {
					for _, e := range cl.Elts {
						if kv, ok := e.(*ast.KeyValueExpr); ok && ident(kv.Key) == "Key" {
							if s, ok := str(kv.Value); ok {
								keys = append(keys, s)
							}
						}
					}
				}
				if at, ok := cl.Type.(*ast.ArrayType); ok {
					if st, ok := at.Elt.(*ast.StructType); ok && len(st.Fields.List) > 0 && len(st.Fields.List[0].Names) > 0 &&
						st.Fields.List[0].Names[0].Name == "key" {
						for _, e := range cl.Elts {
							if row, ok := e.(*ast.CompositeLit); ok && len(row.Elts) > 0 {
								if s, ok := str(row.Elts[0]); ok {
									keys = append(keys, s)
								}
							}
						}
					}
				}
				return true
			})
		}
	}
	return keys
}

func ident(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func str(e ast.Expr) (string, bool) {
	bl, ok := e.(*ast.BasicLit)
	if !ok || bl.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(bl.Value)
	return s, err == nil
}
