package verdict

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// declaredIDs returns the message ids declared in messages.go, by constant name.
func declaredIDs(t *testing.T) map[string]MsgID {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "messages.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]MsgID{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok {
					t.Fatalf("%s: not a string literal", n.Name)
				}
				v, _ := strconv.Unquote(lit.Value)
				ids[n.Name] = MsgID(v)
			}
		}
	}
	if len(ids) < 50 {
		t.Fatalf("found only %d message ids in messages.go", len(ids))
	}
	return ids
}

// verbs maps each argument a format uses (0-based) to its verb's class:
// 'd' integers, 'x' hex bytes, 'f' floats, 's' anything printed as text.
func verbs(t *testing.T, id MsgID, format string) map[int]byte {
	out := map[int]byte{}
	arg := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0123456789.*", format[i]) >= 0 {
			i++
		}
		if i < len(format) && format[i] == '[' {
			j := strings.IndexByte(format[i:], ']')
			n, err := strconv.Atoi(format[i+1 : i+j])
			if j < 0 || err != nil || n < 1 {
				t.Errorf("%s: bad argument index in %q", id, format)
				return out
			}
			arg = n - 1
			i += j + 1
			for i < len(format) && strings.IndexByte("+-# 0123456789.*", format[i]) >= 0 {
				i++
			}
		}
		if i >= len(format) {
			t.Errorf("%s: format %q ends in a verb", id, format)
			return out
		}
		c := format[i]
		switch c {
		case '%':
			continue
		case 'v', 'w', 's', 'q':
			c = 's'
		case 'd', 'x', 'f':
		default:
			t.Errorf("%s: verb %%%c in %q", id, c, format)
		}
		if prev, ok := out[arg]; ok && prev != c {
			t.Errorf("%s: argument %d used as %%%c and %%%c in %q", id, arg+1, prev, c, format)
		}
		out[arg] = c
		arg++
	}
	return out
}

// libraryText: messages whose English rendering is a library's own English
// error text (encoding/json, os, time), passed as an argument so that English output
// stays what it always was, byte for byte; French says the same from the
// other arguments (offset, field, type, file, zone) instead of quoting English. The
// value is that argument's position; French must still use every other one.
var libraryText = map[MsgID]int{MsgX509NotSPKI: 2, MsgJSONSyntax: 2, MsgJSONType: 3, MsgJSONBase64: 3, MsgCLITZ: 2, MsgFileNotExist: 2, MsgFilePermission: 2}

// TestCatalog: every message id has an English and a French rendering, the
// two take the same arguments with the same verbs (French may add none and
// drop none that English uses), and both render without a formatting error.
func TestCatalog(t *testing.T) {
	ids := declaredIDs(t)
	seen := map[MsgID]string{}
	for name, id := range ids {
		if other, dup := seen[id]; dup {
			t.Errorf("%s and %s share the id %q", name, other, id)
		}
		seen[id] = name
		m, ok := messages[id]
		switch {
		case !ok:
			t.Errorf("%s (%q) has no rendering at all", name, id)
			continue
		case m.en == "":
			t.Errorf("%s (%q) has no English rendering", name, id)
		case m.fr == "":
			t.Errorf("%s (%q) has no French rendering", name, id)
		}
		en, fr := verbs(t, id, m.en), verbs(t, id, m.fr)
		args := make([]any, 0)
		for i := 0; ; i++ {
			ce, inEn := en[i]
			cf, inFr := fr[i]
			if !inEn && !inFr {
				break
			}
			if inEn && !inFr && libraryText[id] != i+1 {
				t.Errorf("%s: French drops argument %d: %q / %q", name, i+1, m.en, m.fr)
			}
			if inEn && inFr && ce != cf {
				t.Errorf("%s: argument %d is %%%c in English, %%%c in French", name, i+1, ce, cf)
			}
			c := ce
			if !inEn {
				c = cf
			}
			args = append(args, map[byte]any{'d': 7, 'x': []byte{0xab}, 'f': 1.5, 's': "texte"}[c])
		}
		for _, lang := range []string{"en", "fr"} {
			if s := M(id, args...).Text(lang); strings.Contains(s, "%!") {
				t.Errorf("%s renders badly in %s: %q", name, lang, s)
			}
		}
	}
	for id := range messages {
		if _, ok := seen[id]; !ok {
			t.Errorf("%q is in the catalog but not declared in messages.go", id)
		}
	}
	for term, w := range vocabulary {
		if w.en == "" || w.fr == "" {
			t.Errorf("term %q lacks a language", term)
		}
	}
}

// TestMessagesComeFromTheCatalog: no verifier code passes a literal where a
// message id is expected (an untyped string constant would compile as a
// MsgID and print as nonsense): the reasons, subjects and facts of every
// verdict come from the catalog.
func TestMessagesComeFromTheCatalog(t *testing.T) {
	// Argument position of the MsgID, by method or function name.
	pos := map[string]int{"Pass": 1, "Fail": 1, "Misbehaviour": 1, "Skip": 1, "Fact": 1, "FactNamed": 1,
		"Set": 2, "SetSubject": 0, "New": 1, "M": 0, "issue": 2, "entryIssue": 0, "Errorf": 0, "errorf": 0}
	// Functions (and closures) that take an id, by package directory.
	funcs := map[string]map[string]int{"promo": {"fail": 1}, "audit": {"fail": 0, "inconsistent": 2}, "qod": {"fail": 1, "violation": 0}, "vrf": {"invalid": 0}, "checkpoint": {"wrap": 1},
		"record": {"decodeErr": 1, "encodeErr": 1}}
	files := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			// promo's fail(CheckX, id, args…) builds a CheckError from the
			// catalog; audit's fail(id, args…) an issue.
			if f, ok := call.Fun.(*ast.Ident); ok {
				dir := filepath.Base(filepath.Dir(path))
				i, ok := funcs[dir][f.Name]
				if !ok || i >= len(call.Args) {
					return true
				}
				if c, ok := call.Args[0].(*ast.Ident); dir == "promo" && (!ok || !strings.HasPrefix(c.Name, "Check")) {
					return true // another fail (promo's entrant list parser)
				}
				if lit, ok := call.Args[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					t.Errorf("%s: %s takes the literal %s where a message id of the catalog is expected", fset.Position(lit.Pos()), f.Name, lit.Value)
				}
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			i, ok := pos[sel.Sel.Name]
			if !ok || i >= len(call.Args) {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); (sel.Sel.Name == "New" || sel.Sel.Name == "M" || sel.Sel.Name == "Errorf") && (!ok || x.Name != "verdict") {
				return true
			}
			if lit, ok := call.Args[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				t.Errorf("%s: %s takes the literal %s where a message id of the catalog is expected", fset.Position(lit.Pos()), sel.Sel.Name, lit.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 30 {
		t.Fatalf("looked at only %d files", files)
	}
}
