package verdict

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// MsgID names a message of the catalog.
type MsgID string

// NoDetail is the empty reason of a plain pass.
const NoDetail MsgID = ""

// Msg is a message in language-neutral form.
type Msg struct {
	ID   MsgID `json:"id"`
	Args []any `json:"args,omitempty"`
}

// M returns the message id with args.
func M(id MsgID, args ...any) Msg { return Msg{ID: id, Args: args} }

// Term is a word of the vocabulary, translated when a message is rendered:
// a record kind ("pick"), an outcome ("losing"), a game phase ("won"), a
// fact's name ("leaf hash"). An unknown term is shown as it is.
type Term string

// Text renders m in lang ("fr" or "en"; anything else is English) with the
// template of its id. Arguments are rendered first:
//
//   - a Msg in the same language (a pick's name, the cause of an error);
//   - a [Term] (a record kind, an outcome, a game phase, a fact's name)
//     through the vocabulary (vocabulary.go);
//   - a [Decimal] with a decimal point or a decimal comma;
//   - a []Msg or a [Series] item by item, joined with "; " or ", ";
//   - an error by its text (callers name the core's errors first: see
//     receipt.Cause);
//   - anything else (numbers, ids, hashes) as it is, by the template's verb.
//
// Templates are fmt formats; French ones may reorder arguments with
// explicit indexes (%[2]s).
func (m Msg) Text(lang string) string {
	if m.ID == NoDetail {
		return ""
	}
	format := Format(m.ID, lang)
	args := make([]any, len(m.Args))
	for i, a := range m.Args {
		args[i] = renderArg(a, lang)
	}
	return fmt.Sprintf(wToV(format), args...)
}

// String is the English rendering.
func (m Msg) String() string { return m.Text("en") }

func renderArg(a any, lang string) any {
	switch x := a.(type) {
	case Msg:
		return x.Text(lang)
	case *Msg:
		return x.Text(lang)
	case Term:
		return x.Text(lang)
	case []Msg:
		return join(x, "; ", lang)
	case Series:
		return join(x, ", ", lang)
	case Decimal:
		return x.Text(lang)
	case error:
		return x.Error()
	}
	return a
}

// Series is a list of messages shown separated by commas; a []Msg argument
// is shown separated by semicolons.
type Series []Msg

func join(ms []Msg, sep, lang string) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.Text(lang)
	}
	return strings.Join(parts, sep)
}

// Decimal is a number shown with Prec decimals: with a decimal point in
// English, a decimal comma in French. Templates print it with %s.
type Decimal struct {
	V    float64
	Prec int
}

// Text is d in lang.
func (d Decimal) Text(lang string) string {
	s := strconv.FormatFloat(d.V, 'f', d.Prec, 64)
	if lang == "fr" {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}

// MarshalJSON writes d as a JSON number.
func (d Decimal) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatFloat(d.V, 'f', d.Prec, 64)), nil
}

// Text is the term in lang.
func (t Term) Text(lang string) string {
	w, ok := vocabulary[t]
	if !ok {
		return string(t)
	}
	if lang == "fr" {
		return w.fr
	}
	return w.en
}

// MarshalJSON writes errors as their text and nested messages as objects.
func (m Msg) MarshalJSON() ([]byte, error) {
	args := make([]any, len(m.Args))
	for i, a := range m.Args {
		switch x := a.(type) {
		case error:
			args[i] = x.Error()
		case []byte:
			args[i] = fmt.Sprintf("%x", x)
		default:
			args[i] = a
		}
	}
	type plain Msg
	return json.Marshal(plain{ID: m.ID, Args: args})
}

// wToV turns fmt.Errorf's %w verbs into %v: templates shared with error
// construction (promo.CheckError) wrap with %w there and print here.
func wToV(format string) string {
	if !strings.Contains(format, "w") {
		return format
	}
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		b.WriteByte(c)
		if c != '%' {
			continue
		}
		// Copy flags, width, precision and index up to the verb.
		j := i + 1
		for j < len(format) && strings.IndexByte("+-# 0123456789.[]*", format[j]) >= 0 {
			j++
		}
		b.WriteString(format[i+1 : min(j, len(format))])
		if j < len(format) {
			if format[j] == 'w' {
				b.WriteByte('v')
			} else {
				b.WriteByte(format[j])
			}
		}
		i = j
	}
	return b.String()
}

// Format is the template of id in lang, for callers that build an error
// with it (fmt.Errorf keeps %w wrapping) and a Msg with the same id. An id
// that is not in the catalog (a literal where an id was expected, which
// TestMessagesComeFromTheCatalog forbids) is taken as its own template.
func Format(id MsgID, lang string) string {
	t, ok := messages[id]
	switch {
	case !ok:
		return string(id)
	case lang == "fr":
		return t.fr
	}
	return t.en
}

// MsgError is an error whose text is a message of the catalog: Error is
// its English rendering, and a verdict can show it in the reader's language
// (receipt.Cause finds it with errors.As). Error arguments are wrapped.
type MsgError struct{ Msg Msg }

// Errorf returns a *MsgError for the message id(args…).
func Errorf(id MsgID, args ...any) error { return &MsgError{Msg: M(id, args...)} }

func (e *MsgError) Error() string { return e.Msg.Text("en") }

// Unwrap returns the error arguments.
func (e *MsgError) Unwrap() []error {
	var errs []error
	for _, a := range e.Msg.Args {
		if err, ok := a.(error); ok {
			errs = append(errs, err)
		}
	}
	return errs
}

// Named returns err as a *MsgError of the first of ids (messages without
// arguments) whose English text is exactly err's text — the way to name a
// library's unexported error (x/mod tlog's "invalid transparency proof") in
// the catalog without changing what it says in English. Otherwise it
// returns err unchanged.
func Named(err error, ids ...MsgID) error {
	if err == nil {
		return nil
	}
	for _, id := range ids {
		if Format(id, "en") == err.Error() {
			return Errorf(id)
		}
	}
	return err
}

// JSONError names encoding/json's errors in the catalog — a syntax error
// (with its offset), a value of the wrong type (with its field), a document
// cut short, an unknown field — so that they read in French too; the
// English text is err's, unchanged. Other errors are returned as they are.
func JSONError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var ce base64.CorruptInputError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return Errorf(MsgJSONSyntax, se.Offset, err)
	case errors.As(err, &te):
		where := M(MsgJSONRoot)
		if te.Field != "" {
			where = M(MsgJSONField, te.Field)
		}
		if errors.As(err, &ce) { // a []byte field that is not base64
			return Errorf(MsgJSONBase64, where, int64(ce), err)
		}
		return Errorf(MsgJSONType, where, Term(te.Value), err)
	}
	if q, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if name, uerr := strconv.Unquote(q); uerr == nil && Errorf(MsgJSONUnknownField, name).Error() == err.Error() {
			return Errorf(MsgJSONUnknownField, name)
		}
	}
	return Named(err, MsgJSONTruncated) // io.ErrUnexpectedEOF from a json.Decoder
}

// RepeatedMember returns a *MsgError naming the first object member that
// b, a JSON document, gives twice (with where it is: the document, or a
// path such as receipts[1].record), or nil when every object's members are
// distinct. encoding/json keeps the last of two same-named members without
// a word, so a document read with it could say one thing to its reader and
// another to whoever reads the first; strict parsers refuse it. Names are
// compared as encoding/json matches them to a struct's fields, case folded
// ("record" and "Record" fill the same field): it is for documents decoded
// into structs, not maps. Syntax errors are not its business: it returns
// nil for them (the decoder names them).
func RepeatedMember(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // no number is converted, none refused for its size
	type frame struct {
		object bool
		names  map[string]bool
		key    string // an object's member being read
		index  int    // an array's element being read
	}
	var stack []*frame
	// pathOf is where stack[n] sits in the document: each enclosing
	// container's member or element being read. Built when an error names
	// it, not kept with every frame (a document of nested arrays would
	// cost the square of its depth).
	pathOf := func(n int) string {
		var b strings.Builder
		for _, f := range stack[:n] {
			if !f.object {
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		}
		return b.String()
	}
	// done: a value was read in the innermost container.
	done := func() {
		if len(stack) == 0 {
			return
		}
		if f := stack[len(stack)-1]; f.object {
			f.key = ""
		} else {
			f.index++
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		if len(stack) > 0 {
			if f := stack[len(stack)-1]; f.object && f.key == "" {
				if name, ok := tok.(string); ok {
					if f.names[foldName(name)] {
						where := M(MsgJSONRoot)
						if p := pathOf(len(stack) - 1); p != "" {
							where = M(MsgSame, p)
						}
						return Errorf(MsgJSONRepeatedMember, name, where)
					}
					f.names[foldName(name)] = true
					f.key = name
					continue
				}
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, names: map[string]bool{}})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			done()
		default:
			done()
		}
		if len(stack) == 0 {
			return nil
		}
		// Deeper than encoding/json decodes (its limit, which Go 1.27's
		// Decoder.Token keeps and Go 1.26's does not): a syntax error for
		// the decoder to name, not frames to allocate.
		if len(stack) > maxDepth {
			return nil
		}
	}
}

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// foldName is a name such that foldName(x) == foldName(y) exactly when
// strings.EqualFold(x, y), as encoding/json matches a member to a field:
// each rune replaced by the least of its simple case folding orbit.
func foldName(s string) string {
	var b strings.Builder
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}
