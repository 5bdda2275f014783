package config_test

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/resilience4cata/r4c/internal/config"
)

type e = config.Entry

func TestParsePropertiesEntries(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []config.Entry
	}{
		{"empty", "", nil},
		{"blank lines only", "\n  \n\t\f\r\n", nil},
		{"equals", "a=b", []e{{"a", "b", 1}}},
		{"colon", "a:b", []e{{"a", "b", 1}}},
		{"space", "a b", []e{{"a", "b", 1}}},
		{"tab and form feed", "a\tb\nc\fd", []e{{"a", "b", 1}, {"c", "d", 2}}},
		{"spaces around the separator", "a  =  b", []e{{"a", "b", 1}}},
		{"white space then colon", "a \t: b", []e{{"a", "b", 1}}},
		{"only one separator is eaten", "a==b", []e{{"a", "=b", 1}}},
		{"space then two separators", "a = =b", []e{{"a", "=b", 1}}},
		{"separator in the value", "url=http://x:80/?a=b", []e{{"url", "http://x:80/?a=b", 1}}},
		{"leading white space", "  \t\fa=b", []e{{"a", "b", 1}}},
		{"trailing white space kept", "a=b  \t", []e{{"a", "b  \t", 1}}},
		{"key only", "a", []e{{"a", "", 1}}},
		{"key and separator", "a=", []e{{"a", "", 1}}},
		{"key and spaces", "a   ", []e{{"a", "", 1}}},
		{"empty key", "=b", []e{{"", "b", 1}}},
		{"empty key after colon", ":b", []e{{"", "b", 1}}},
		{"hash comment", "# c\na=b", []e{{"a", "b", 2}}},
		{"bang comment", "! c\na=b", []e{{"a", "b", 2}}},
		{"indented comment", "   # c\na=b", []e{{"a", "b", 2}}},
		{"hash inside a value", "a=b#c", []e{{"a", "b#c", 1}}},
		{"hash key", "a#=b", []e{{"a#", "b", 1}}},
		{"comment does not continue", "# c \\\na=b", []e{{"a", "b", 2}}},
		{"LF", "a=1\nb=2", []e{{"a", "1", 1}, {"b", "2", 2}}},
		{"CRLF", "a=1\r\nb=2\r\n", []e{{"a", "1", 1}, {"b", "2", 2}}},
		{"CR", "a=1\rb=2\r", []e{{"a", "1", 1}, {"b", "2", 2}}},
		{"blank lines counted", "\n\r\n\ra=1", []e{{"a", "1", 4}}},
		{"continuation", "a=b\\\n   c\nd=e", []e{{"a", "bc", 1}, {"d", "e", 3}}},
		{"continuation over CRLF", "a=b\\\r\n\tc", []e{{"a", "bc", 1}}},
		{"continuation over CR", "a=b\\\r c\rd=e", []e{{"a", "bc", 1}, {"d", "e", 3}}},
		{"continued key", "ke\\\n  y=v", []e{{"key", "v", 1}}},
		{"continued separator", "key\\\n  =v", []e{{"key", "v", 1}}},
		{"several continuations", "a=1,\\\n 2,\\\n 3", []e{{"a", "1,2,3", 1}}},
		{"even backslashes do not continue", "a=b\\\\\nc=d", []e{{"a", `b\`, 1}, {"c", "d", 2}}},
		{"three backslashes continue", "a=b\\\\\\\nc", []e{{"a", `b\c`, 1}}},
		{"continued into a comment-like line", "a=b\\\n#c", []e{{"a", "b#c", 1}}},
		{"continued into a blank line", "a=b\\\n\nc=d", []e{{"a", "b", 1}, {"c", "d", 3}}},
		{"continued into white space", "a=b\\\n   \nc=d", []e{{"a", "b", 1}, {"c", "d", 3}}},
		{"backslash at the end of the file", "a=b\\", []e{{"a", "b", 1}}},
		{"continuation at the end of the file", "a=b\\\n", []e{{"a", "b", 1}}},
		{"lone backslash is an empty entry", "\\", []e{{"", "", 1}}},
		{"escapes", `a=\t\n\r\f\\\=\:\#\!\ \x\"`, []e{{"a", "\t\n\r\f\\=:#! x\"", 1}}},
		{"escaped separators in the key", `a\=b\:c\ d=v`, []e{{"a=b:c d", "v", 1}}},
		{"escaped leading space in the value", `a=\  b`, []e{{"a", "  b", 1}}},
		{"unicode escapes", `\u0041\u00e9=\u00E9\u20AC`, []e{{"Aé", "é€", 1}}},
		{"escaped separator is not a separator", `a\u003db=c`, []e{{"a=b", "c", 1}}},
		{"surrogate pair", `a=\uD83D\uDE00`, []e{{"a", "😀", 1}}},
		{"NUL", `a=\u0000`, []e{{"a", "\x00", 1}}},
		{"escape split by a continuation", "a=\\u00\\\n  41", []e{{"a", "A", 1}}},
		{"UTF-8 text", "clé=välue 😀", []e{{"clé", "välue 😀", 1}}},
		{"backslash before a multibyte character", "a=\\é", []e{{"a", "é", 1}}},
		{"byte order mark", "\ufeffa=b", []e{{"a", "b", 1}}},
		{"byte order mark only at the start", "a=\ufeff", []e{{"a", "\ufeff", 1}}},
		{"other white space is not white space", "\u00a0a=b", []e{{"\u00a0a", "b", 1}}},
		{"duplicates kept in order", "k=1\nk=2", []e{{"k", "1", 1}, {"k", "2", 2}}},
		// Java's quirk: a line holding just a backslash continues into the
		// next line with nothing before it, so a '#' there starts a comment.
		{"backslash line then comment", "\\\n#x\nk=v", []e{{"k", "v", 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := config.ParsePropertiesEntries(strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("ParsePropertiesEntries(%q): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParsePropertiesEntries(%q)\n got  %+v\n want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParsePropertiesLastWins(t *testing.T) {
	got, err := config.ParseProperties(strings.NewReader("k=1\nother=x\nk=2\n"))
	want := map[string]string{"k": "2", "other": "x"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseProperties = %v, %v; want %v", got, err, want)
	}
	got, err = config.ParseProperties(strings.NewReader("# nothing\n"))
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("ParseProperties of a comment = %#v, %v; want an empty map", got, err)
	}
}

func TestParsePropertiesErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		line   int
		reason string
	}{
		{"short unicode escape", `a=\u004`, 1, `malformed \uXXXX escape "\\u004"`},
		{"bad hex digit", "x=1\na=\\u00G1", 2, `malformed \uXXXX escape "\\u00G1"`},
		{"escape cut by the separator", `\u00=41`, 1, "malformed"},
		{"escape at the end", `a=b\u`, 1, "malformed"},
		{"error on a continued line", "a=b\\\n  \\uZZZZ", 2, "malformed"},
		{"error after CRLF lines", "a=1\r\nb=2\r\n\r\nc=\\u12", 4, "malformed"},
		{"error after CR lines", "a=1\rb=2\rc=\\u12", 3, "malformed"},
		{"lone high surrogate", `a=\uD83D`, 1, `unpaired UTF-16 surrogate \uD83D`},
		{"high surrogate then text", `a=\uD83Dx`, 1, "unpaired"},
		{"high surrogate then non-surrogate", `a=\uD83D\u0041`, 1, "unpaired"},
		{"two high surrogates", `a=\uD83D\uD83D\uDE00`, 1, "unpaired"},
		{"high surrogate then other escape", `a=\uD83D\n`, 1, "unpaired"},
		{"lone low surrogate", "\n\na=\\uDE00", 3, `unpaired UTF-16 surrogate \uDE00`},
		{"surrogate in a key", `\uD83D=1`, 1, "unpaired"},
		{"invalid UTF-8", "a=1\nb=\xff", 2, "invalid UTF-8"},
		{"invalid UTF-8 in a comment", "# \xc3\na=1", 1, "invalid UTF-8"},
		{"Latin-1 text", "caf\xe9=1", 1, "invalid UTF-8"},
		{"first of several errors", "a=\\u12\nb=\\u34", 1, "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, parse := range []func(io.Reader) (any, error){
				func(r io.Reader) (any, error) { return config.ParseProperties(r) },
				func(r io.Reader) (any, error) { return config.ParsePropertiesEntries(r) },
			} {
				got, err := parse(strings.NewReader(tt.in))
				var pe *config.PropertiesError
				if !errors.As(err, &pe) {
					t.Fatalf("parse(%q) = %v, %v; want a *PropertiesError", tt.in, got, err)
				}
				if !reflect.ValueOf(got).IsNil() || pe.Line != tt.line || !strings.Contains(pe.Reason, tt.reason) {
					t.Errorf("parse(%q) = %v, %+v; want line %d, reason containing %q", tt.in, got, *pe, tt.line, tt.reason)
				}
			}
		})
	}
}

func TestPropertiesErrorMessage(t *testing.T) {
	_, err := config.ParseProperties(strings.NewReader("a=1\nb=\\u00G1\n"))
	want := `config: properties line 2: malformed \uXXXX escape "\\u00G1"`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}

func TestParsePropertiesReaderError(t *testing.T) {
	boom := errors.New("boom")
	got, err := config.ParseProperties(io.MultiReader(strings.NewReader("a=1\n"), iotest.ErrReader(boom)))
	if got != nil || !errors.Is(err, boom) {
		t.Errorf("ParseProperties = %v, %v; want nil and an error wrapping boom", got, err)
	}
	var pe *config.PropertiesError
	if errors.As(err, &pe) {
		t.Errorf("a reader error is not a *PropertiesError: %v", err)
	}
}

func TestParsePropertiesLargeInput(t *testing.T) {
	var b strings.Builder
	for i := range 10000 {
		b.WriteString("key")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(" = value\\\n  continued\n")
	}
	got, err := config.ParsePropertiesEntries(strings.NewReader(b.String()))
	if err != nil || len(got) != 10000 || got[9999].Line != 19999 || got[9999].Value != "valuecontinued" {
		t.Fatalf("got %d entries, last %+v, err %v", len(got), got[len(got)-1], err)
	}
}
