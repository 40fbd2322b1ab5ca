package record

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

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
	fs := fieldsOf(v.Type())
	if kind != "" {
		fs = topFieldsOf(v.Type())
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
		tm := v.Interface().(time.Time)
		if tm.Nanosecond() != 0 {
			return encodeErr(path, verdict.MsgRecordTimeFraction, tm.UTC().Format(time.RFC3339Nano))
		}
		if y := tm.UTC().Year(); y < 1970 || y > 9999 {
			return encodeErr(path, verdict.MsgRecordYear, y)
		}
		e.buf = append(e.buf, '"')
		e.buf = tm.UTC().AppendFormat(e.buf, timeLayout)
		e.buf = append(e.buf, '"')
		return nil
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && t.Elem().Kind() == reflect.Uint8:
		e.buf = append(e.buf, '"')
		if t.Kind() == reflect.Slice {
			e.buf = hex.AppendEncode(e.buf, v.Bytes())
		} else {
			b := make([]byte, v.Len())
			reflect.Copy(reflect.ValueOf(b), v)
			e.buf = hex.AppendEncode(e.buf, b)
		}
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

// jvalue is a parsed canonical-JSON value.
type jvalue struct {
	kind    byte // '{', '[', '"', '0' (integer), 't' (bool)
	str     string
	num     int64
	boolean bool
	arr     []jvalue
	obj     []jmember
}

type jmember struct {
	key string
	val jvalue
}

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

func (p *parser) value(depth int) (jvalue, error) {
	if depth > maxDepth {
		return jvalue{}, p.errorf(verdict.MsgRecordTooDeep, maxDepth)
	}
	if p.off >= len(p.b) {
		return jvalue{}, p.errorf(verdict.MsgRecordEnd)
	}
	switch c := p.b[p.off]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		return jvalue{kind: '"', str: s}, err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.integer()
	case bytes.HasPrefix(p.b[p.off:], []byte("true")):
		p.off += 4
		return jvalue{kind: 't', boolean: true}, nil
	case bytes.HasPrefix(p.b[p.off:], []byte("false")):
		p.off += 5
		return jvalue{kind: 't'}, nil
	case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		return jvalue{}, p.errorf(verdict.MsgRecordWhitespace)
	default:
		return jvalue{}, p.errorf(verdict.MsgRecordUnexpected, c)
	}
}

func (p *parser) expect(c byte) error {
	if p.off >= len(p.b) {
		return p.errorf(verdict.MsgRecordEndWant, c)
	}
	if p.b[p.off] != c {
		if b := p.b[p.off]; b == ' ' || b == '\t' || b == '\n' || b == '\r' {
			return p.errorf(verdict.MsgRecordWhitespace)
		}
		return p.errorf(verdict.MsgRecordGotWant, p.b[p.off], c)
	}
	p.off++
	return nil
}

func (p *parser) object(depth int) (jvalue, error) {
	p.off++ // '{'
	v := jvalue{kind: '{'}
	if depth == 0 {
		v.obj = make([]jmember, 0, 16) // a record has about a dozen members
	}
	if p.off < len(p.b) && p.b[p.off] == '}' {
		p.off++
		return v, nil
	}
	for {
		if p.off >= len(p.b) {
			return v, p.errorf(verdict.MsgRecordEnd)
		}
		if c := p.b[p.off]; c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			return v, p.errorf(verdict.MsgRecordWhitespace)
		} else if c != '"' {
			return v, p.errorf(verdict.MsgRecordKeyNotString)
		}
		start := p.off
		k, err := p.str()
		if err != nil {
			return v, err
		}
		if n := len(v.obj); n > 0 && k <= v.obj[n-1].key {
			p.off = start
			if k == v.obj[n-1].key {
				return v, p.errorf(verdict.MsgRecordDuplicateKey, k)
			}
			return v, p.errorf(verdict.MsgRecordKeyOrder, k, v.obj[n-1].key)
		}
		if err := p.expect(':'); err != nil {
			return v, err
		}
		val, err := p.value(depth + 1)
		if err != nil {
			return v, err
		}
		v.obj = append(v.obj, jmember{key: k, val: val})
		if p.off < len(p.b) && p.b[p.off] == '}' {
			p.off++
			return v, nil
		}
		if err := p.expect(','); err != nil {
			return v, err
		}
	}
}

func (p *parser) array(depth int) (jvalue, error) {
	p.off++ // '['
	v := jvalue{kind: '['}
	if p.off < len(p.b) && p.b[p.off] == ']' {
		p.off++
		return v, nil
	}
	for {
		val, err := p.value(depth + 1)
		if err != nil {
			return v, err
		}
		v.arr = append(v.arr, val)
		if p.off < len(p.b) && p.b[p.off] == ']' {
			p.off++
			return v, nil
		}
		if err := p.expect(','); err != nil {
			return v, err
		}
	}
}

func (p *parser) str() (string, error) {
	p.off++ // '"'
	// Fast path: no escape before the closing quote.
	for i := p.off; i < len(p.b); i++ {
		c := p.b[i]
		if c == '"' {
			s := string(p.b[p.off:i])
			p.off = i + 1
			return s, nil
		}
		if c == '\\' || c < 0x20 || c > 0x7e {
			break
		}
	}
	var out []byte
	for {
		if p.off >= len(p.b) {
			return "", p.errorf(verdict.MsgRecordUnterminated)
		}
		c := p.b[p.off]
		switch {
		case c == '"':
			p.off++
			return string(out), nil
		case c == '\\':
			if p.off+1 < len(p.b) && (p.b[p.off+1] == '"' || p.b[p.off+1] == '\\') {
				out = append(out, p.b[p.off+1])
				p.off += 2
				continue
			}
			return "", p.errorf(verdict.MsgRecordEscape)
		case c < 0x20 || c > 0x7e:
			return "", p.errorf(verdict.MsgRecordStringByte, c)
		}
		out = append(out, c)
		p.off++
	}
}

func (p *parser) integer() (jvalue, error) {
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
		return jvalue{}, p.errorf(verdict.MsgRecordNoDigits)
	case p.b[digits] == '0' && p.off-digits > 1:
		p.off = start
		return jvalue{}, p.errorf(verdict.MsgRecordLeadingZero)
	case string(p.b[start:p.off]) == "-0":
		p.off = start
		return jvalue{}, p.errorf(verdict.MsgRecordMinusZero)
	}
	if p.off < len(p.b) {
		if c := p.b[p.off]; c == '.' || c == 'e' || c == 'E' {
			return jvalue{}, p.errorf(verdict.MsgRecordFraction)
		}
	}
	if p.off-digits > 16 {
		p.off = start
		return jvalue{}, p.errorf(verdict.MsgRecordIntRange)
	}
	n, err := strconv.ParseInt(string(p.b[start:p.off]), 10, 64)
	if err != nil || n > maxSafeInt || n < -maxSafeInt {
		p.off = start
		return jvalue{}, p.errorf(verdict.MsgRecordIntRange)
	}
	return jvalue{kind: '0', num: n}, nil
}

// decodeErr is Parse's refusal id(args…) of field path; it wraps
// ErrMalformed.
func decodeErr(path string, id verdict.MsgID, args ...any) error {
	return verdict.Errorf(verdict.MsgRecordField, path, verdict.M(id, args...), ErrMalformed)
}

// decodeStruct fills the struct v from object members, skipping the names
// in skip (the top level's "kind" and "v").
func decodeStruct(v reflect.Value, members []jmember, path string, skip ...string) error {
	fs := fieldsOf(v.Type())
	seen := make([]bool, len(fs))
next:
	for _, m := range members {
		if slices.Contains(skip, m.key) {
			continue
		}
		for i, f := range fs {
			if f.name != m.key {
				continue
			}
			seen[i] = true
			fp := m.key
			if path != "" {
				fp = path + "." + m.key
			}
			fv := v.Field(f.index)
			if err := decodeValue(fv, m.val, fp); err != nil {
				return err
			}
			if f.omitempty && isEmpty(fv) {
				return decodeErr(fp, verdict.MsgRecordEmptyOptional)
			}
			continue next
		}
		if path == "" {
			return decodeErr(m.key, verdict.MsgRecordUnknownField, Version)
		}
		return decodeErr(joinPath(path, m.key), verdict.MsgRecordUnknownFieldIn, path, Version)
	}
	for i, f := range fs {
		if !seen[i] && !f.omitempty {
			return decodeErr(joinPath(path, f.name), verdict.MsgRecordMissing)
		}
	}
	return nil
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func decodeValue(v reflect.Value, j jvalue, path string) error {
	t := v.Type()
	isBytes := (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && t.Elem().Kind() == reflect.Uint8
	switch {
	case t == timeType:
		if j.kind != '"' {
			return decodeErr(path, verdict.MsgRecordWantTime)
		}
		tm, err := time.Parse(timeLayout, j.str)
		if err != nil || tm.Format(timeLayout) != j.str {
			return decodeErr(path, verdict.MsgRecordBadTime, j.str)
		}
		v.Set(reflect.ValueOf(tm))
		return nil
	case isBytes:
		if j.kind != '"' {
			return decodeErr(path, verdict.MsgRecordWantHex)
		}
		for i := 0; i < len(j.str); i++ {
			if c := j.str[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
				return decodeErr(path, verdict.MsgRecordHexDigit, c)
			}
		}
		b, err := hex.DecodeString(j.str)
		if err != nil {
			return decodeErr(path, verdict.MsgRecordOddHex)
		}
		if t.Kind() == reflect.Array {
			if len(b) != t.Len() {
				return decodeErr(path, verdict.MsgRecordWantBytes, t.Len(), len(b))
			}
			reflect.Copy(v, reflect.ValueOf(b))
		} else {
			v.SetBytes(b)
		}
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		if j.kind != '"' {
			return decodeErr(path, verdict.MsgRecordWantString)
		}
		v.SetString(j.str)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if j.kind != '0' {
			return decodeErr(path, verdict.MsgRecordWantInteger)
		}
		if v.OverflowInt(j.num) {
			return decodeErr(path, verdict.MsgRecordIntOutOfRange, j.num)
		}
		v.SetInt(j.num)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if j.kind != '0' {
			return decodeErr(path, verdict.MsgRecordWantInteger)
		}
		if j.num < 0 || v.OverflowUint(uint64(j.num)) {
			return decodeErr(path, verdict.MsgRecordIntOutOfRange, j.num)
		}
		v.SetUint(uint64(j.num))
	case reflect.Bool:
		if j.kind != 't' {
			return decodeErr(path, verdict.MsgRecordWantBool)
		}
		v.SetBool(j.boolean)
	case reflect.Array:
		if j.kind != '[' {
			return decodeErr(path, verdict.MsgRecordWantArray)
		}
		if len(j.arr) != t.Len() {
			return decodeErr(path, verdict.MsgRecordWantElements, t.Len(), len(j.arr))
		}
		for i := range j.arr {
			if err := decodeValue(v.Index(i), j.arr[i], path); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if j.kind != '[' {
			return decodeErr(path, verdict.MsgRecordWantArray)
		}
		s := reflect.MakeSlice(t, len(j.arr), len(j.arr))
		for i := range j.arr {
			if err := decodeValue(s.Index(i), j.arr[i], path); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Struct:
		if j.kind != '{' {
			return decodeErr(path, verdict.MsgRecordWantObject)
		}
		return decodeStruct(v, j.obj, path)
	default:
		return decodeErr(path, verdict.MsgRecordUnsupportedType, t.String())
	}
	return nil
}
