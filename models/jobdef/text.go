package jobdef

import (
	"fmt"
	"unicode/utf8"
)

// TextError says where a JSON text holds something PostgreSQL cannot store:
// a byte sequence that is not UTF-8, a NUL byte, or a string escape that
// decodes to NUL or to half of a UTF-16 surrogate pair. Offset is the
// position of the offending byte, counted from 0.
type TextError struct {
	Offset  int64
	Message string
}

// Error returns the message with its offset.
func (e *TextError) Error() string { return fmt.Sprintf("%s (at byte %d)", e.Message, e.Offset) }

// TextScanner checks a JSON text for what TextError describes, in pieces of
// any size, so that a large body can be checked while it streams. It does
// not check the JSON syntax: invalid JSON is the parser's to report. The
// zero value is ready to use.
type TextScanner struct {
	offset   int64   // bytes consumed so far
	partial  [4]byte // the start of a rune split between two writes
	npartial int
	inString bool
	escape   int  // 0: none; 1: after '\'; 2–5: reading the hex digits of \u
	hex      rune // the \u escape read so far
	needLow  bool // a high surrogate escape must be followed by a low one
	err      *TextError
}

// Write checks the next piece of the text and returns the first problem
// found so far, or nil. After a problem it returns that problem again.
func (s *TextScanner) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n := len(p)
	if s.npartial > 0 {
		// Complete the rune split across writes, one byte at a time.
		for len(p) > 0 && !utf8.FullRune(s.partial[:s.npartial]) {
			s.partial[s.npartial] = p[0]
			s.npartial++
			p = p[1:]
		}
		if !utf8.FullRune(s.partial[:s.npartial]) {
			return n, nil
		}
		// FullRune holds, so a valid rune fills the partial bytes exactly.
		start := s.offset
		r, size := utf8.DecodeRune(s.partial[:s.npartial])
		if r == utf8.RuneError && size <= 1 {
			return n, s.fail(start, "is not valid UTF-8")
		}
		s.npartial = 0
		s.offset += int64(size)
		if s.rune(r, start); s.err != nil {
			return n, s.err
		}
	}
	for len(p) > 0 {
		b := p[0]
		if b < utf8.RuneSelf {
			s.rune(rune(b), s.offset)
			if s.err != nil {
				return n, s.err
			}
			s.offset++
			p = p[1:]
			continue
		}
		if !utf8.FullRune(p) {
			s.npartial = copy(s.partial[:], p)
			return n, nil
		}
		r, size := utf8.DecodeRune(p)
		if r == utf8.RuneError && size == 1 {
			return n, s.fail(s.offset, "is not valid UTF-8")
		}
		s.rune(r, s.offset)
		if s.err != nil {
			return n, s.err
		}
		s.offset += int64(size)
		p = p[size:]
	}
	return n, nil
}

// Close reports a rune or an escape left unfinished at the end of the text.
func (s *TextScanner) Close() error {
	switch {
	case s.err != nil:
		return s.err
	case s.npartial > 0:
		return s.fail(s.offset, "is not valid UTF-8 (the text ends inside a character)")
	case s.needLow:
		return s.fail(s.offset, `holds a \u escape of half a surrogate pair, which is not valid UTF-8`)
	}
	return nil
}

// fail records the first problem.
func (s *TextScanner) fail(offset int64, msg string) *TextError {
	if s.err == nil {
		s.err = &TextError{Offset: offset, Message: msg}
	}
	return s.err
}

// rune advances the string and escape state by one character at offset.
func (s *TextScanner) rune(r rune, offset int64) {
	if r == 0 {
		s.fail(offset, "contains a NUL byte")
		return
	}
	if s.needLow && s.escape == 0 && r != '\\' {
		s.fail(offset, `holds a \u escape of half a surrogate pair, which is not valid UTF-8`)
		return
	}
	switch {
	case !s.inString:
		if r == '"' {
			s.inString = true
		}
	case s.escape == 0:
		switch r {
		case '\\':
			s.escape = 1
		case '"':
			s.inString = false
		}
	case s.escape == 1:
		if r == 'u' {
			s.escape, s.hex = 2, 0
			return
		}
		if s.needLow {
			s.fail(offset, `holds a \u escape of half a surrogate pair, which is not valid UTF-8`)
			return
		}
		s.escape = 0
	default:
		d, ok := hexDigit(r)
		if !ok {
			// Invalid JSON: the parser reports it.
			s.escape, s.needLow = 0, false
			return
		}
		s.hex = s.hex<<4 | d
		if s.escape++; s.escape < 6 {
			return
		}
		s.escape = 0
		s.escapeDone(s.hex, offset)
	}
}

// escapeDone checks the code unit of a complete \u escape.
func (s *TextScanner) escapeDone(u rune, offset int64) {
	low := u >= 0xDC00 && u <= 0xDFFF
	switch {
	case s.needLow && !low:
		s.fail(offset, `holds a \u escape of half a surrogate pair, which is not valid UTF-8`)
	case s.needLow:
		s.needLow = false
	case u == 0:
		s.fail(offset, `contains a NUL character (\u0000)`)
	case u >= 0xD800 && u <= 0xDBFF:
		s.needLow = true
	case low:
		s.fail(offset, `holds a \u escape of half a surrogate pair, which is not valid UTF-8`)
	}
}

func hexDigit(r rune) (rune, bool) {
	switch {
	case '0' <= r && r <= '9':
		return r - '0', true
	case 'a' <= r && r <= 'f':
		return r - 'a' + 10, true
	case 'A' <= r && r <= 'F':
		return r - 'A' + 10, true
	}
	return 0, false
}

// CheckText checks a whole JSON text as TextScanner does and returns the
// first problem as a *TextError, or nil.
func CheckText(data []byte) error {
	var s TextScanner
	if _, err := s.Write(data); err != nil {
		return err
	}
	return s.Close()
}
