package record

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"tirage.fr/tirage/verifier/verdict"
)

// The canonical JSON subset (see the package documentation):
//
//	value  = object / array / string / integer / "true" / "false"
//	object = "{" [ member *( "," member ) ] "}"   keys strictly increasing bytewise
//	member = string ":" value
//	array  = "[" [ value *( "," value ) ] "]"
//	string = DQUOTE *( %x20-21 / %x23-5B / %x5D-7E / "\" DQUOTE / "\\" ) DQUOTE
//	integer = [ "-" ] ( "0" / %x31-39 *DIGIT )    no "-0", |n| ≤ 2^53−1
//
// No whitespace, no null, no floats, no other escapes, ASCII only.

const (
	maxSafeInt = 1<<53 - 1
	maxDepth   = 8
	timeLayout = "2006-01-02T15:04:05Z"
)

var timeType = reflect.TypeFor[time.Time]()

// field is one member of an encoded struct.
type field struct {
	name      string
	key       []byte // the encoded `"name":`
	index     int
	omitempty bool
}

var fieldCache sync.Map // reflect.Type → []field, sorted by name

// fieldsOf returns the `rec`-tagged fields of struct type t, sorted by name.
func fieldsOf(t reflect.Type) []field {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]field)
	}
	var fs []field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("rec")
		if !ok {
			continue
		}
		name, opt, _ := strings.Cut(tag, ",")
		fs = append(fs, field{name: name, key: memberKey(name), index: i, omitempty: opt == "omitempty"})
	}
	slices.SortFunc(fs, func(a, b field) int { return compareStrings(a.name, b.name) })
	fieldCache.Store(t, fs)
	return fs
}

func memberKey(name string) []byte { return append(strconv.AppendQuote(nil, name), ':') }

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// isEmpty reports whether an omitempty field is omitted.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.String:
		return v.Len() == 0
	}
	return v.IsZero()
}

// encoder appends canonical JSON.
type encoder struct {
	buf []byte
}

// Pseudo-field indexes of the top-level members that are not struct fields.
const (
	indexKind    = -1
	indexVersion = -2
)

var topCache sync.Map // reflect.Type → []field: fieldsOf plus "kind" and "v", sorted

func topFieldsOf(t reflect.Type) []field {
	if f, ok := topCache.Load(t); ok {
		return f.([]field)
	}
	fs := append([]field{{name: "kind", key: memberKey("kind"), index: indexKind}, {name: "v", key: memberKey("v"), index: indexVersion}}, fieldsOf(t)...)
	slices.SortFunc(fs, func(a, b field) int { return compareStrings(a.name, b.name) })
	topCache.Store(t, fs)
	return fs
}

// encodeTop writes the top-level object: "kind", "v" and the fields of r.
func (e *encoder) encodeTop(r Record) error {
	rv := reflect.ValueOf(r)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return verdict.Errorf(verdict.MsgRecordFormatPointer, fmt.Sprintf("%T", r))
	}
	return e.object(rv.Elem(), "", r.Kind())
}

// object writes struct v; at the top level (kind set) the members "kind"
// and "v" take their places among the fields in key order.
func (e *encoder) object(v reflect.Value, path string, kind Kind) error {
	var fs []field
	if kind != "" {
		fs = topFieldsOf(v.Type())
	} else {
		fs = fieldsOf(v.Type())
	}
	e.buf = append(e.buf, '{')
	first := true
	for _, f := range fs {
		var fv reflect.Value
		if f.index >= 0 {
			fv = v.Field(f.index)
			if f.omitempty && isEmpty(fv) {
				continue
			}
		}
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		e.buf = append(e.buf, f.key...)
		switch f.index {
		case indexKind:
			e.buf = strconv.AppendQuote(e.buf, string(kind))
		case indexVersion:
			e.buf = strconv.AppendInt(e.buf, Version, 10)
		default:
			if err := e.value(fv, joinPath(path, f.name)); err != nil {
				return err
			}
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

func (e *encoder) value(v reflect.Value, path string) error {
	t := v.Type()
	switch {
	case t == timeType:
		tm, _ := reflect.TypeAssert[time.Time](v)
		if tm.Nanosecond() != 0 {
			return encodeErr(path, verdict.MsgRecordTimeFraction, tm.UTC().Format(time.RFC3339Nano))
		}
		if y := tm.UTC().Year(); y < 1970 || y > 9999 {
			return encodeErr(path, verdict.MsgRecordYear, y)
		}
		e.buf = append(e.buf, '"')
		e.buf = appendTime(e.buf, tm.UTC())
		e.buf = append(e.buf, '"')
		return nil
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && t.Elem().Kind() == reflect.Uint8:
		// A byte array is addressable here, as every value encodeTop
		// reaches from the record's pointer is: Bytes reads it in place.
		e.buf = append(e.buf, '"')
		e.buf = hex.AppendEncode(e.buf, v.Bytes())
		e.buf = append(e.buf, '"')
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		s := v.String()
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c > 0x7e {
				return encodeErr(path, verdict.MsgRecordNotPrintable, c, i)
			}
		}
		e.buf = append(e.buf, '"')
		for i := 0; i < len(s); i++ {
			if s[i] == '"' || s[i] == '\\' {
				e.buf = append(e.buf, '\\')
			}
			e.buf = append(e.buf, s[i])
		}
		e.buf = append(e.buf, '"')
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := v.Int()
		if n > maxSafeInt || n < -maxSafeInt {
			return encodeErr(path, verdict.MsgRecordIntOutside, n)
		}
		e.buf = strconv.AppendInt(e.buf, n, 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n := v.Uint()
		if n > maxSafeInt {
			return encodeErr(path, verdict.MsgRecordIntAbove, n)
		}
		e.buf = strconv.AppendUint(e.buf, n, 10)
	case reflect.Bool:
		e.buf = strconv.AppendBool(e.buf, v.Bool())
	case reflect.Slice, reflect.Array:
		e.buf = append(e.buf, '[')
		for i := range v.Len() {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			if err := e.value(v.Index(i), path); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, ']')
	case reflect.Struct:
		return e.object(v, path, "")
	default:
		return encodeErr(path, verdict.MsgRecordUnsupportedType, t.String())
	}
	return nil
}

// appendTime appends t (UTC, year 1970..9999) as timeLayout formats it,
// without reading the layout at each call as time.Time.AppendFormat does.
func appendTime(b []byte, t time.Time) []byte {
	year, month, day := t.Date()
	hour, min, sec := t.Clock()
	b = appendDigits(b, year, 4)
	b = append(b, '-')
	b = appendDigits(b, int(month), 2)
	b = append(b, '-')
	b = appendDigits(b, day, 2)
	b = append(b, 'T')
	b = appendDigits(b, hour, 2)
	b = append(b, ':')
	b = appendDigits(b, min, 2)
	b = append(b, ':')
	b = appendDigits(b, sec, 2)
	return append(b, 'Z')
}

// appendDigits appends the n last decimal digits of v ≥ 0.
func appendDigits(b []byte, v, n int) []byte {
	b = append(b, make([]byte, n)...)
	for i := len(b) - 1; i >= len(b)-n; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return b
}

// Parse reads a leaf twice and builds no tree of its values. scan checks the
// whole leaf against the grammar above, reporting the first violation at its
// byte offset, and allocates nothing but that error; decode then walks the
// bytes, now known to be well-formed, straight into the record's struct.
// A tree cost about 250 bytes per byte of a hostile leaf ("[0,0,0,…]" made
// an 80-byte node for every 2 bytes, in slices regrown as they filled);
// decoding allocates only the record, with every slice sized from the bytes
// and bounded by its elements' shortest encoding (see decodeSlice), so the
// memory Parse uses is linear in the leaf with a small factor.

// parser reads the canonical JSON subset and rejects everything else,
// saying where and why.
type parser struct {
	b   []byte
	off int
}

// errorf is the refusal id(args…) at the parser's offset; it wraps
// ErrMalformed.
func (p *parser) errorf(id verdict.MsgID, args ...any) error {
	return verdict.Errorf(verdict.MsgRecordByte, p.off, verdict.M(id, args...), ErrMalformed)
}

// encodeErr is Format's refusal id(args…) of the value of field path.
func encodeErr(path string, id verdict.MsgID, args ...any) error {
	return verdict.Errorf(verdict.MsgRecordEncodeField, path, verdict.M(id, args...))
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// scan checks the value at p.off and moves past it.
func (p *parser) scan(depth int) error {
	if depth > maxDepth {
		return p.errorf(verdict.MsgRecordTooDeep, maxDepth)
	}
	if p.off >= len(p.b) {
		return p.errorf(verdict.MsgRecordEnd)
	}
	switch c := p.b[p.off]; {
	case c == '{':
		return p.scanObject(depth)
	case c == '[':
		return p.scanArray(depth)
	case c == '"':
		_, err := p.scanString()
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		_, err := p.integer()
		return err
	case bytes.HasPrefix(p.b[p.off:], []byte("true")):
		p.off += 4
		return nil
	case bytes.HasPrefix(p.b[p.off:], []byte("false")):
		p.off += 5
		return nil
	case isSpace(c):
		return p.errorf(verdict.MsgRecordWhitespace)
	default:
		return p.errorf(verdict.MsgRecordUnexpected, c)
	}
}

func (p *parser) expect(c byte) error {
	if p.off >= len(p.b) {
		return p.errorf(verdict.MsgRecordEndWant, c)
	}
	if p.b[p.off] != c {
		if isSpace(p.b[p.off]) {
			return p.errorf(verdict.MsgRecordWhitespace)
		}
		return p.errorf(verdict.MsgRecordGotWant, p.b[p.off], c)
	}
	p.off++
	return nil
}

func (p *parser) scanObject(depth int) error {
	p.off++ // '{'
	if p.off < len(p.b) && p.b[p.off] == '}' {
		p.off++
		return nil
	}
	var prev []byte // the previous key, escapes included
	for first := true; ; first = false {
		if p.off >= len(p.b) {
			return p.errorf(verdict.MsgRecordEnd)
		}
		if c := p.b[p.off]; isSpace(c) {
			return p.errorf(verdict.MsgRecordWhitespace)
		} else if c != '"' {
			return p.errorf(verdict.MsgRecordKeyNotString)
		}
		start := p.off
		k, err := p.scanString()
		if err != nil {
			return err
		}
		if !first {
			if cmp := compareEscaped(k, prev); cmp == 0 {
				p.off = start
				return p.errorf(verdict.MsgRecordDuplicateKey, unescape(k))
			} else if cmp < 0 {
				p.off = start
				return p.errorf(verdict.MsgRecordKeyOrder, unescape(k), unescape(prev))
			}
		}
		prev = k
		if err := p.expect(':'); err != nil {
			return err
		}
		if err := p.scan(depth + 1); err != nil {
			return err
		}
		if p.off < len(p.b) && p.b[p.off] == '}' {
			p.off++
			return nil
		}
		if err := p.expect(','); err != nil {
			return err
		}
	}
}

func (p *parser) scanArray(depth int) error {
	p.off++ // '['
	if p.off < len(p.b) && p.b[p.off] == ']' {
		p.off++
		return nil
	}
	for {
		if err := p.scan(depth + 1); err != nil {
			return err
		}
		if p.off < len(p.b) && p.b[p.off] == ']' {
			p.off++
			return nil
		}
		if err := p.expect(','); err != nil {
			return err
		}
	}
}

// scanString moves past the string at p.off and returns its contents
// between the quotes, escapes included (see unescape).
func (p *parser) scanString() ([]byte, error) {
	p.off++ // '"'
	start := p.off
	for {
		for p.off < len(p.b) && plain[p.b[p.off]] {
			p.off++
		}
		if p.off >= len(p.b) {
			return nil, p.errorf(verdict.MsgRecordUnterminated)
		}
		switch c := p.b[p.off]; {
		case c == '"':
			p.off++
			return p.b[start : p.off-1], nil
		case c == '\\':
			if p.off+1 < len(p.b) && (p.b[p.off+1] == '"' || p.b[p.off+1] == '\\') {
				p.off += 2
				continue
			}
			return nil, p.errorf(verdict.MsgRecordEscape)
		case c < 0x20 || c > 0x7e:
			return nil, p.errorf(verdict.MsgRecordStringByte, c)
		}
		p.off++
	}
}

// plain holds the bytes a string holds as themselves: printable ASCII but
// '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c <= 0x7e; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// unescape returns the string whose scanned contents are s.
func unescape(s []byte) string {
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s)
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
		}
		out = append(out, s[i])
	}
	return string(out)
}

// compareEscaped compares bytewise the strings whose scanned contents are a
// and b, as strings.Compare(unescape(a), unescape(b)) does, without
// building them.
func compareEscaped(a, b []byte) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if ca == '\\' {
			i++
			ca = a[i]
		}
		if cb == '\\' {
			j++
			cb = b[j]
		}
		if ca != cb {
			return int(ca) - int(cb)
		}
		i++
		j++
	}
	switch {
	case i < len(a):
		return 1
	case j < len(b):
		return -1
	}
	return 0
}

// integer moves past the integer at p.off and returns its value.
func (p *parser) integer() (int64, error) {
	start := p.off
	if p.b[p.off] == '-' {
		p.off++
	}
	digits := p.off
	for p.off < len(p.b) && p.b[p.off] >= '0' && p.b[p.off] <= '9' {
		p.off++
	}
	switch {
	case p.off == digits:
		return 0, p.errorf(verdict.MsgRecordNoDigits)
	case p.b[digits] == '0' && p.off-digits > 1:
		p.off = start
		return 0, p.errorf(verdict.MsgRecordLeadingZero)
	case string(p.b[start:p.off]) == "-0":
		p.off = start
		return 0, p.errorf(verdict.MsgRecordMinusZero)
	}
	if p.off < len(p.b) {
		if c := p.b[p.off]; c == '.' || c == 'e' || c == 'E' {
			return 0, p.errorf(verdict.MsgRecordFraction)
		}
	}
	if p.off-digits > 16 {
		p.off = start
		return 0, p.errorf(verdict.MsgRecordIntRange)
	}
	var n int64 // 16 digits at most: no overflow
	for _, c := range p.b[digits:p.off] {
		n = n*10 + int64(c-'0')
	}
	if n > maxSafeInt {
		p.off = start
		return 0, p.errorf(verdict.MsgRecordIntRange)
	}
	if digits > start {
		n = -n
	}
	return n, nil
}

// The decoding side reads values that scan has accepted, as byte spans of
// the leaf ("raw" values): it cannot meet a syntax error.

// rawKind is the type of a scanned value: '{', '[', '"', '0' (integer) or
// 't' (boolean).
func rawKind(raw []byte) byte {
	switch c := raw[0]; c {
	case '{', '[', '"':
		return c
	case 't', 'f':
		return 't'
	}
	return '0'
}

// rawString is the string value of a scanned string.
func rawString(raw []byte) string { return unescape(raw[1 : len(raw)-1]) }

// rawInteger is the value of a scanned integer.
func rawInteger(raw []byte) int64 {
	n, _ := (&parser{b: raw}).integer() // scanned: cannot fail
	return n
}

// members yields the keys (as scanned, escapes included) and values of a
// scanned object.
func members(obj []byte) iter.Seq2[[]byte, []byte] {
	return func(yield func(key, val []byte) bool) {
		p := parser{b: obj, off: 1}
		for obj[p.off] != '}' {
			key, _ := p.scanString() // scanned: cannot fail
			p.off++                  // ':'
			start := p.off
			_ = p.scan(0)
			if !yield(key, obj[start:p.off]) {
				return
			}
			if obj[p.off] == ',' {
				p.off++
			}
		}
	}
}

// elements yields the values of a scanned array.
func elements(arr []byte) iter.Seq[[]byte] {
	return func(yield func(val []byte) bool) {
		p := parser{b: arr, off: 1}
		for arr[p.off] != ']' {
			start := p.off
			_ = p.scan(0) // scanned: cannot fail
			if !yield(arr[start:p.off]) {
				return
			}
			if arr[p.off] == ',' {
				p.off++
			}
		}
	}
}

func countElements(arr []byte) int {
	n := 0
	for range elements(arr) {
		n++
	}
	return n
}

// decodeErr is Parse's refusal id(args…) of field path; it wraps
// ErrMalformed.
func decodeErr(path string, id verdict.MsgID, args ...any) error {
	return verdict.Errorf(verdict.MsgRecordField, path, verdict.M(id, args...), ErrMalformed)
}

// decodeStruct fills the struct v from the scanned object obj, skipping the
// members named in skip (the top level's "kind" and "v").
func decodeStruct(v reflect.Value, obj []byte, path string, skip ...string) error {
	fs := fieldsOf(v.Type())
	seen := make([]bool, len(fs))
next:
	for key, val := range members(obj) {
		// Field names have no '"' or '\\', so a key with an escape
		// matches none of them: comparing the scanned bytes is exact.
		for _, s := range skip {
			if string(key) == s {
				continue next
			}
		}
		for i, f := range fs {
			if f.name != string(key) {
				continue
			}
			seen[i] = true
			fp := joinPath(path, f.name)
			fv := v.Field(f.index)
			if err := decodeValue(fv, val, fp); err != nil {
				return err
			}
			if f.omitempty && isEmpty(fv) {
				return decodeErr(fp, verdict.MsgRecordEmptyOptional)
			}
			continue next
		}
		if path == "" {
			return decodeErr(unknownName(key), verdict.MsgRecordUnknownField, Version)
		}
		return decodeErr(joinPath(path, unknownName(key)), verdict.MsgRecordUnknownFieldIn, path, Version)
	}
	for i, f := range fs {
		if !seen[i] && !f.omitempty {
			return decodeErr(joinPath(path, f.name), verdict.MsgRecordMissing)
		}
	}
	return nil
}

// maxQuotedName is how much of an unknown member's name an error quotes: a
// leaf may be a megabyte of one name.
const maxQuotedName = 64

// unknownName is the name of an unknown member key, as an error quotes it:
// unescaped, cut to maxQuotedName bytes (at a character boundary) and "…".
func unknownName(key []byte) string {
	n := unescape(key)
	if len(n) <= maxQuotedName {
		return n
	}
	cut := maxQuotedName
	for cut > 0 && !utf8.RuneStart(n[cut]) {
		cut--
	}
	return n[:cut] + "…"
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func isBytesType(t reflect.Type) bool {
	return (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && t.Elem().Kind() == reflect.Uint8
}

// decodeValue sets v from the scanned value raw.
func decodeValue(v reflect.Value, raw []byte, path string) error {
	t := v.Type()
	kind := rawKind(raw)
	switch {
	case t == timeType:
		if kind != '"' {
			return decodeErr(path, verdict.MsgRecordWantTime)
		}
		s := rawString(raw)
		tm, err := time.Parse(timeLayout, s)
		if err != nil || tm.Format(timeLayout) != s {
			return decodeErr(path, verdict.MsgRecordBadTime, s)
		}
		v.Set(reflect.ValueOf(tm))
		return nil
	case isBytesType(t):
		if kind != '"' {
			return decodeErr(path, verdict.MsgRecordWantHex)
		}
		return decodeHex(v, raw[1:len(raw)-1], path)
	}
	switch t.Kind() {
	case reflect.String:
		if kind != '"' {
			return decodeErr(path, verdict.MsgRecordWantString)
		}
		v.SetString(rawString(raw))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if kind != '0' {
			return decodeErr(path, verdict.MsgRecordWantInteger)
		}
		n := rawInteger(raw)
		if v.OverflowInt(n) {
			return decodeErr(path, verdict.MsgRecordIntOutOfRange, n)
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if kind != '0' {
			return decodeErr(path, verdict.MsgRecordWantInteger)
		}
		n := rawInteger(raw)
		if n < 0 || v.OverflowUint(uint64(n)) {
			return decodeErr(path, verdict.MsgRecordIntOutOfRange, n)
		}
		v.SetUint(uint64(n))
	case reflect.Bool:
		if kind != 't' {
			return decodeErr(path, verdict.MsgRecordWantBool)
		}
		v.SetBool(raw[0] == 't')
	case reflect.Array:
		if kind != '[' {
			return decodeErr(path, verdict.MsgRecordWantArray)
		}
		if n := countElements(raw); n != t.Len() {
			return decodeErr(path, verdict.MsgRecordWantElements, t.Len(), n)
		}
		i := 0
		for e := range elements(raw) {
			if err := decodeValue(v.Index(i), e, path); err != nil {
				return err
			}
			i++
		}
	case reflect.Slice:
		if kind != '[' {
			return decodeErr(path, verdict.MsgRecordWantArray)
		}
		return decodeSlice(v, raw, path)
	case reflect.Struct:
		if kind != '{' {
			return decodeErr(path, verdict.MsgRecordWantObject)
		}
		return decodeStruct(v, raw, path)
	default:
		return decodeErr(path, verdict.MsgRecordUnsupportedType, t.String())
	}
	return nil
}

// decodeHex sets the byte slice or array v from the contents s of a scanned
// string: lowercase hex digits, an even number of them.
func decodeHex(v reflect.Value, s []byte, path string) error {
	for i, c := range s {
		if c == '\\' {
			c = s[i+1] // the escaped '"' or '\\', no hex digit either
		}
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return decodeErr(path, verdict.MsgRecordHexDigit, c)
		}
	}
	if len(s)%2 != 0 {
		return decodeErr(path, verdict.MsgRecordOddHex)
	}
	n := len(s) / 2
	if v.Kind() == reflect.Array {
		if n != v.Len() {
			return decodeErr(path, verdict.MsgRecordWantBytes, v.Len(), n)
		}
		_, err := hex.Decode(v.Bytes(), s) // checked above: cannot fail
		return err
	}
	b := make([]byte, n)
	if _, err := hex.Decode(b, s); err != nil { // checked above: cannot fail
		return err
	}
	v.SetBytes(b)
	return nil
}

// decodeSlice sets the slice v from the scanned array arr, allocating it
// only once every element is known to be long enough to decode: a slice of
// n elements costs n·size bytes, and "[{},{},…]" would otherwise buy 104
// bytes of []Key for every 3 bytes of the leaf.
func decodeSlice(v reflect.Value, arr []byte, path string) error {
	t := v.Type()
	n := countElements(arr)
	// n elements of at least m bytes each, with n−1 commas and the brackets,
	// take at least n·(m+1)+1 bytes.
	if m := minSize(t.Elem()); len(arr) < n*(m+1)+1 {
		// Some element is too short to decode: find it and its error, the
		// one the element-by-element decoding below would return, using one
		// element's worth of memory.
		e := reflect.New(t.Elem()).Elem()
		for raw := range elements(arr) {
			e.SetZero()
			if err := decodeValue(e, raw, path); err != nil {
				return err
			}
		}
	}
	s := reflect.MakeSlice(t, n, n)
	i := 0
	for raw := range elements(arr) {
		if err := decodeValue(s.Index(i), raw, path); err != nil {
			return err
		}
		i++
	}
	v.Set(s)
	return nil
}

// minSize is the length of the shortest encoding that decodes into a value
// of type t (time, hex, "" and [] included; omitted optional members
// excluded).
func minSize(t reflect.Type) int {
	switch {
	case t == timeType:
		return len(`"` + timeLayout + `"`)
	case isBytesType(t) && t.Kind() == reflect.Array:
		return len(`""`) + 2*t.Len()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return len(`0`)
	case reflect.Bool:
		return len(`true`)
	case reflect.Array:
		if t.Len() == 0 {
			return len(`[]`)
		}
		return len(`[]`) + t.Len()*(minSize(t.Elem())+1) - 1
	case reflect.Struct:
		size, required := len(`{}`), 0
		for _, f := range fieldsOf(t) {
			if !f.omitempty {
				size += len(f.key) + minSize(t.Field(f.index).Type)
				required++
			}
		}
		if required > 1 {
			size += required - 1 // commas
		}
		return size
	}
	return len(`""`) // string, byte slice; `[]` for other slices
}
