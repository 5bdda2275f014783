package main

import (
	"errors"
	"go/ast"
	"go/token"
	"strconv"
	"strings"
	"unicode"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/policy"
)

// directivePrefix starts every directive: //r4c:<kind> settings...
const directivePrefix = "//r4c:"

// setting is one key=value of a directive, parsed through its kind's key
// table.
type setting struct {
	index  int    // the key's index in the kind's table
	key    string // the key's name
	text   string // the value as written
	parsed any    // a Config of the kind holding the value
	pos    token.Position
}

// strSetting is a name= or config= of a directive, or a //r4c:config.
type strSetting struct {
	value string
	pos   token.Position
	set   bool
}

// levelKind is what one level says about one kind: the settings of every
// directive of the kind at that level.
type levelKind struct {
	kind     kind
	pos      token.Position // the first directive of the kind here
	settings []setting      // in the order written
	name     strSetting
	config   strSetting
}

// level is the directives of one place, from the most general (the
// interface) to the most specific (the method): each level overrides the
// ones before it key by key.
type level struct {
	kinds  []*levelKind // in the order first written
	config strSetting   // //r4c:config <name>: every kind's config
}

// parseLevel reads the directives of the comment groups of one place.
func parseLevel(fset *token.FileSet, ds *diags, groups ...*ast.CommentGroup) *level {
	l := &level{}
	for _, g := range groups {
		if g == nil {
			continue
		}
		for _, c := range g.List {
			l.parseComment(fset.Position(c.Slash), c.Text, ds)
		}
	}
	return l
}

func (l *level) parseComment(pos token.Position, text string, ds *diags) {
	if rest, ok := strings.CutPrefix(text, "// r4c:"); ok {
		if name, _, _ := strings.Cut(rest, " "); lookupKind(name) != nil || name == keyConfig {
			ds.errorf(pos, codeDirective, "a directive is written //r4c:%s, without a space after //: Go reads only //name: lines as directives", name)
		}
		return
	}
	rest, ok := strings.CutPrefix(text, directivePrefix)
	if !ok {
		return
	}
	name, args, _ := strings.Cut(rest, " ")
	name = strings.TrimRightFunc(name, unicode.IsSpace)
	tokens, err := splitArgs(args)
	if err != nil {
		ds.errorf(pos, codeDirective, "//r4c:%s: %v", name, err)
		return
	}
	if name == keyConfig {
		if len(tokens) != 1 || tokens[0].hasKey {
			ds.errorf(pos, codeDirective, "//r4c:config takes one name: //r4c:config <name> starts every policy of the method from that named configuration")
			return
		}
		if l.config.set {
			ds.errorf(pos, codeDirective, "//r4c:config is given twice here (also at line %d)", l.config.pos.Line)
			return
		}
		l.config = strSetting{value: tokens[0].value, pos: pos, set: true}
		return
	}
	k := lookupKind(name)
	if k == nil {
		ds.add(diag{pos: pos, code: r4c.CodeUnknownKey, rule: "no policy kind " + strconv.Quote(name) + didYouMean(name, kindNames()) +
			"; a directive is //r4c:<kind> with one of " + strings.Join(kindNames(), ", ")})
		return
	}
	lk := l.kind(k, pos)
	for _, t := range tokens {
		if !t.hasKey {
			if k.Shorthand() == "" {
				ds.errorf(pos, codeDirective, "%s takes key=value settings; %q has no key (its keys: %s)", k.Name(), t.value, strings.Join(directiveKeys(k), ", "))
				continue
			}
			t.key = k.Shorthand()
		}
		lk.set(k, t, pos, ds)
	}
}

// kind returns the level's entry for k, adding it.
func (l *level) kind(k kind, pos token.Position) *levelKind {
	for _, lk := range l.kinds {
		if lk.kind == k {
			return lk
		}
	}
	lk := &levelKind{kind: k, pos: pos}
	l.kinds = append(l.kinds, lk)
	return lk
}

// directiveKeys returns the keys a directive of k takes.
func directiveKeys(k kind) []string {
	return append([]string{keyName, keyConfig}, k.Keys()...)
}

// set applies one key=value of a directive of k.
func (lk *levelKind) set(k kind, t arg, pos token.Position, ds *diags) {
	twice := func(line int) {
		ds.add(diag{pos: pos, code: codeDirective, key: t.key, value: t.value,
			rule: k.Name() + " " + t.key + " is set twice here (also at line " + strconv.Itoa(line) + ")"})
	}
	switch t.key {
	case keyName, keyConfig, keyBaseConfig:
		dst := &lk.name
		if t.key != keyName {
			dst = &lk.config
		}
		switch {
		case dst.set:
			twice(dst.pos.Line)
		case strings.TrimSpace(t.value) == "":
			ds.add(diag{pos: pos, code: codeDirective, key: t.key, value: t.value, rule: t.key + " needs a value"})
		default:
			*dst = strSetting{value: t.value, pos: pos, set: true}
		}
		return
	}
	i := indexOf(k.Keys(), t.key)
	if i < 0 {
		ds.add(diag{pos: pos, code: r4c.CodeUnknownKey, key: t.key, value: t.value,
			rule: k.Name() + " has no key " + t.key + didYouMean(t.key, directiveKeys(k))})
		return
	}
	for _, s := range lk.settings {
		if s.index == i {
			twice(s.pos.Line)
			return
		}
	}
	parsed, err := k.Parse(i, t.value)
	if err != nil {
		code, rule := r4c.CodeValueSyntax, err.Error()
		var fe *policy.FieldError
		if errors.As(err, &fe) {
			code, rule = r4c.ClassCode(fe.Class), fe.Rule
		}
		ds.add(diag{pos: pos, code: code, key: t.key, value: t.value, rule: rule})
		return
	}
	lk.settings = append(lk.settings, setting{index: i, key: t.key, text: t.value, parsed: parsed, pos: pos})
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// arg is one argument of a directive: key=value, or a bare value.
type arg struct {
	key, value string
	hasKey     bool
}

// splitArgs splits a directive's arguments at spaces. A value may be a Go
// double-quoted string ("a b", "x=y").
func splitArgs(s string) ([]arg, error) {
	var out []arg
	s = strings.TrimSpace(s)
	for s != "" {
		var t arg
		end := strings.IndexFunc(s, unicode.IsSpace)
		if end < 0 {
			end = len(s)
		}
		word := s[:end]
		if eq := strings.IndexByte(word, '='); eq >= 0 && !strings.HasPrefix(word, `"`) {
			t.key, t.hasKey = word[:eq], true
			s = s[eq+1:]
		}
		if strings.HasPrefix(s, `"`) {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, errors.New("unterminated or malformed quoted value " + s)
			}
			t.value, _ = strconv.Unquote(q)
			s = s[len(q):]
			if s != "" && !unicode.IsSpace(rune(s[0])) {
				return nil, errors.New("a quoted value must be followed by a space: " + q + s)
			}
		} else {
			end = strings.IndexFunc(s, unicode.IsSpace)
			if end < 0 {
				end = len(s)
			}
			t.value = s[:end]
			s = s[end:]
		}
		if t.hasKey && t.key == "" {
			return nil, errors.New("a setting is key=value; " + strconv.Quote("="+t.value) + " has no key")
		}
		out = append(out, t)
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
	}
	return out, nil
}
