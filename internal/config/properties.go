package config

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Entry is one key/value pair of a properties file.
type Entry struct {
	// Key is the key, with escapes resolved.
	Key string
	// Value is the value, with escapes resolved. Trailing white space is
	// part of the value, as in Java.
	Value string
	// Line is the 1-based number of the physical line where the entry's
	// logical line begins.
	Line int
}

// ParseProperties reads a properties file (see ParsePropertiesEntries for
// the syntax) into a map. When a key appears more than once, the last value
// wins, as in Java. It returns a nil map and a *PropertiesError for a
// malformed file, or an error wrapping the reader's error.
func ParseProperties(r io.Reader) (map[string]string, error) {
	entries, err := ParsePropertiesEntries(r)
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(entries))
	for _, e := range entries {
		m[e.Key] = e.Value
	}
	return m, nil
}

// ParsePropertiesEntries reads a properties file and returns its entries in
// file order, keeping duplicates (a later entry overrides an earlier one
// with the same key, as ParseProperties applies them). It follows Java's
// Properties.load, except that the input is UTF-8 rather than Latin-1:
//
//   - Lines end at "\n", "\r" or "\r\n". White space is space, tab and
//     form feed; it is skipped at the start of every line.
//   - A line whose first non-blank character is '#' or '!' is a comment
//     (a comment never continues onto the next line); a blank line is
//     skipped.
//   - A line ending in an odd number of backslashes continues on the next
//     line: the backslash, the line end and the next line's leading white
//     space are dropped. A file ending in such a backslash just ends.
//   - The key runs to the first unescaped '=', ':' or white space. The
//     separator is white space with at most one '=' or ':' in it; the value
//     is the rest of the logical line, trailing white space included. A
//     line with a key only has the empty value.
//   - In keys and values, \t \n \r \f are tab, newline, carriage return and
//     form feed, \uXXXX is a UTF-16 code unit (a surrogate pair of escapes
//     makes one character), and a backslash before any other character
//     stands for that character (\\ \= \: \# \! and "\ " included).
//
// A leading byte order mark is skipped. Input that is not valid UTF-8, a
// malformed \uXXXX escape or an unpaired surrogate is a *PropertiesError
// with the number of the line where it occurs; no entries are returned
// then. An error from r is returned wrapped.
func ParsePropertiesEntries(r io.Reader) ([]Entry, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("config: reading properties: %w", err)
	}
	return parseProperties(data)
}

func parseProperties(data []byte) ([]Entry, error) {
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		data = data[3:]
	}
	lr := lineReader{data: data}
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, size := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			off += size
		}
		return nil, &PropertiesError{Line: lr.lineAt(off), Reason: "invalid UTF-8"}
	}
	var entries []Entry
	var out []byte
	var err error
	for lr.next() {
		line := lr.buf
		// Split key and value, as Properties.load0 does.
		keyLen, valueStart := 0, len(line)
		hasSep, backslash := false, false
		for keyLen < len(line) {
			c := line[keyLen]
			if (c == '=' || c == ':') && !backslash {
				valueStart = keyLen + 1
				hasSep = true
				break
			}
			if (c == ' ' || c == '\t' || c == '\f') && !backslash {
				valueStart = keyLen + 1
				break
			}
			backslash = c == '\\' && !backslash
			keyLen++
		}
		for valueStart < len(line) {
			c := line[valueStart]
			if c != ' ' && c != '\t' && c != '\f' {
				if !hasSep && (c == '=' || c == ':') {
					hasSep = true
				} else {
					break
				}
			}
			valueStart++
		}
		var key, value string
		out, key, err = lr.unescape(out, 0, keyLen)
		if err != nil {
			return nil, err
		}
		out, value, err = lr.unescape(out, valueStart, len(line))
		if err != nil {
			return nil, err
		}
		entries = append(entries, Entry{Key: key, Value: value, Line: lr.lineAt(lr.start)})
	}
	return entries, nil
}

// lineReader splits a properties file into logical lines, as Java's
// Properties.LineReader does.
type lineReader struct {
	data []byte
	off  int
	// buf is the current logical line; pos[i] is the offset in data of
	// buf[i], and start the offset of its first character.
	buf   []byte
	pos   []int
	start int
	// lineStarts holds the offset of every physical line after the first,
	// computed on first use.
	lineStarts []int
	counted    bool
}

// next reads the next logical line into buf. It reports false at the end
// of the input.
func (lr *lineReader) next() bool {
	lr.buf, lr.pos = lr.buf[:0], lr.pos[:0]
	skipWhite, appendedLineBegin, backslash := true, false, false
	for {
		if lr.off >= len(lr.data) {
			if len(lr.buf) == 0 {
				return false
			}
			if backslash {
				lr.trimLast()
			}
			return true
		}
		c := lr.data[lr.off]
		lr.off++
		if skipWhite {
			if c == ' ' || c == '\t' || c == '\f' {
				continue
			}
			if !appendedLineBegin && (c == '\r' || c == '\n') {
				continue
			}
			skipWhite, appendedLineBegin = false, false
		}
		if len(lr.buf) == 0 && (c == '#' || c == '!') {
			// A comment: skip to the end of the physical line.
			for lr.off < len(lr.data) {
				b := lr.data[lr.off]
				lr.off++
				if b == '\r' || b == '\n' {
					break
				}
			}
			skipWhite = true
			continue
		}
		if c != '\n' && c != '\r' {
			if len(lr.buf) == 0 {
				lr.start = lr.off - 1
			}
			lr.buf = append(lr.buf, c)
			lr.pos = append(lr.pos, lr.off-1)
			backslash = c == '\\' && !backslash
			continue
		}
		// The end of a physical line.
		if len(lr.buf) == 0 {
			skipWhite = true
			continue
		}
		if lr.off >= len(lr.data) {
			if backslash {
				lr.trimLast()
			}
			return true
		}
		if !backslash {
			return true
		}
		// A continuation: drop the backslash, skip the next line's
		// leading white space, and take "\r\n" as one line end.
		lr.trimLast()
		skipWhite, appendedLineBegin, backslash = true, true, false
		if c == '\r' && lr.data[lr.off] == '\n' {
			lr.off++
		}
	}
}

func (lr *lineReader) trimLast() {
	lr.buf = lr.buf[:len(lr.buf)-1]
	lr.pos = lr.pos[:len(lr.pos)-1]
}

// lineAt returns the 1-based number of the physical line holding the byte
// at offset off.
func (lr *lineReader) lineAt(off int) int {
	if !lr.counted {
		lr.counted = true
		d := lr.data
		for i := 0; i < len(d); i++ {
			switch d[i] {
			case '\n':
				lr.lineStarts = append(lr.lineStarts, i+1)
			case '\r':
				if i+1 < len(d) && d[i+1] == '\n' {
					i++
				}
				lr.lineStarts = append(lr.lineStarts, i+1)
			}
		}
	}
	return 1 + sort.SearchInts(lr.lineStarts, off+1)
}

// unescape resolves the escapes of buf[from:to], using out as scratch, and
// returns the scratch for reuse and the result.
func (lr *lineReader) unescape(out []byte, from, to int) ([]byte, string, error) {
	out = out[:0]
	in := lr.buf[:to]
	pendingHigh := -1 // offset in buf of a high surrogate escape awaiting its pair
	var high rune
	for i := from; i < to; {
		c := in[i]
		if c != '\\' {
			if pendingHigh >= 0 {
				return out, "", lr.unpaired(pendingHigh, high)
			}
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= to {
			// A lone backslash at the end: Properties.load never leaves
			// one, but drop it rather than fail.
			i++
			continue
		}
		esc := in[i+1]
		if esc != 'u' {
			if pendingHigh >= 0 {
				return out, "", lr.unpaired(pendingHigh, high)
			}
			switch esc {
			case 't':
				esc = '\t'
			case 'n':
				esc = '\n'
			case 'r':
				esc = '\r'
			case 'f':
				esc = '\f'
			}
			out = append(out, esc)
			i += 2
			continue
		}
		r, ok := hex4(in[i+2 : min(i+6, to)])
		if !ok {
			return out, "", &PropertiesError{
				Line:   lr.lineAt(lr.pos[i]),
				Reason: "malformed \\uXXXX escape " + strconv.Quote(string(in[i:min(i+6, to)])),
			}
		}
		switch {
		case utf16.IsSurrogate(r) && r < 0xDC00: // high
			if pendingHigh >= 0 {
				return out, "", lr.unpaired(pendingHigh, high)
			}
			pendingHigh, high = i, r
		case utf16.IsSurrogate(r): // low
			if pendingHigh < 0 {
				return out, "", lr.unpaired(i, r)
			}
			out = utf8.AppendRune(out, utf16.DecodeRune(high, r))
			pendingHigh = -1
		default:
			if pendingHigh >= 0 {
				return out, "", lr.unpaired(pendingHigh, high)
			}
			out = utf8.AppendRune(out, r)
		}
		i += 6
	}
	if pendingHigh >= 0 {
		return out, "", lr.unpaired(pendingHigh, high)
	}
	return out, string(out), nil
}

func (lr *lineReader) unpaired(at int, r rune) error {
	return &PropertiesError{
		Line:   lr.lineAt(lr.pos[at]),
		Reason: fmt.Sprintf("unpaired UTF-16 surrogate \\u%04X (a character above U+FFFF takes two escapes, such as \\uD83D\\uDE00)", r),
	}
}

// hex4 decodes exactly four hexadecimal digits.
func hex4(b []byte) (rune, bool) {
	if len(b) != 4 {
		return 0, false
	}
	var r rune
	for _, c := range b {
		var v byte
		switch {
		case '0' <= c && c <= '9':
			v = c - '0'
		case 'a' <= c && c <= 'f':
			v = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(v)
	}
	return r, true
}
