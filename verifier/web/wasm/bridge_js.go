//go:build js && wasm

package main

import (
	"strconv"
	"strings"
	"syscall/js"
	_ "time/tzdata" // Europe/Paris for the game rules, inside the page

	"tirage.fr/tirage/verifier/web"
)

func serve() {
	c := copies{}
	var read inputsRead
	js.Global().Set("tirageVerify", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 8 {
			return js.ValueOf(`[{"file":"","verdict":"fail","summary":"tirageVerify(files, anchors, pins, rules, lang, quorum, stakes, closed)","checks":[]}]`)
		}
		seen := map[int]bool{}
		docs, anchors := c.files(args[0], seen), c.files(args[1], seen)
		last := func(l []web.File) *web.File { // the page keeps one: the last given
			if len(l) == 0 {
				return nil
			}
			return &l[len(l)-1]
		}
		rules := last(c.files(args[3], seen))
		// Input files over web.MaxInputsTotal together are not copied:
		// web.ReadInputs refuses them by their sizes.
		whole := declared(args[6])+declared(args[7]) <= web.MaxInputsTotal
		stakes, closed := c.filesOf(args[6], seen, whole), last(c.filesOf(args[7], seen, whole))
		c.keep(seen)
		in := read.get(ids(args[3], args[6], args[7]), func() *web.Inputs { return web.ReadInputs(stakes, closed, rules) })
		return js.ValueOf(string(web.Render(web.VerifyInputs(docs, anchors, args[2].String(), rules, args[5].String(), in), args[4].String())))
	}))
	js.Global().Set("tirageReady", js.ValueOf(true))
	if cb := js.Global().Get("onTirageReady"); cb.Type() == js.TypeFunction {
		cb.Invoke()
	}
	select {}
}

// copies are the Go copies of the files the page keeps, by their id: each
// file is copied into Go once, not on every call (a keystroke in the pins,
// a language chosen), which for entrant lists near their limit took
// seconds each time.
type copies map[int]web.File

// files returns the files of an array of {id, name, size, data: Uint8Array}
// (size, the file's declared size, if larger than data: web.File.Size),
// copying into Go those not copied before and marking every id in seen. A
// file without a numeric id is copied every time.
func (c copies) files(list js.Value, seen map[int]bool) []web.File {
	return c.filesOf(list, seen, true)
}

// filesOf is files; unless whole, a file not copied before is given by its
// name and size only (web.File.Size, no data), and not kept.
func (c copies) filesOf(list js.Value, seen map[int]bool, whole bool) []web.File {
	out := make([]web.File, list.Length())
	for i := range out {
		f := list.Index(i)
		v := f.Get("id")
		hasID := v.Type() == js.TypeNumber
		if hasID {
			seen[v.Int()] = true
			if cf, ok := c[v.Int()]; ok {
				out[i] = cf
				continue
			}
		}
		data := f.Get("data")
		if !whole {
			out[i] = web.File{Name: f.Get("name").String(), Size: size(f)}
			continue
		}
		b := make([]byte, data.Length())
		js.CopyBytesToGo(b, data)
		out[i] = web.File{Name: f.Get("name").String(), Data: b}
		if s := f.Get("size"); s.Type() == js.TypeNumber {
			out[i].Size = int64(s.Float())
		}
		if hasID {
			c[v.Int()] = out[i]
		}
	}
	return out
}

// size is a file's size as the page gives it: its declared size, or the
// length of its data when larger (web.File.size).
func size(f js.Value) int64 {
	n := int64(f.Get("data").Length())
	if s := f.Get("size"); s.Type() == js.TypeNumber {
		n = max(n, int64(s.Float()))
	}
	return n
}

// declared is the sum of the sizes of a list's files.
func declared(list js.Value) int64 {
	var n int64
	for i := range list.Length() {
		n += size(list.Index(i))
	}
	return n
}

// keep forgets the copies of the files the page no longer keeps: every
// call is given all of them.
func (c copies) keep(seen map[int]bool) {
	for id := range c {
		if !seen[id] {
			delete(c, id)
		}
	}
}

// inputsRead is the last web.ReadInputs, by the ids of the files it read:
// a freeze's input files are hashed (and the entrants recomputed from
// them) once, not on every call (a keystroke, a language chosen).
type inputsRead struct {
	key string // "" : none kept
	in  *web.Inputs
}

// get returns the inputs kept under key, or reads them (read) and keeps
// them; an empty key (a file without an id) is read every time.
func (r *inputsRead) get(key string, read func() *web.Inputs) *web.Inputs {
	if key != "" && key == r.key {
		return r.in
	}
	in := read()
	r.key, r.in = key, in
	return in
}

// ids is the ids of the files of the lists, in order, a list apart from
// the next; "" if a file has none.
func ids(lists ...js.Value) string {
	var b strings.Builder
	for _, l := range lists {
		for i := range l.Length() {
			v := l.Index(i).Get("id")
			if v.Type() != js.TypeNumber {
				return ""
			}
			b.WriteString(strconv.Itoa(v.Int()) + ",")
		}
		b.WriteString("|")
	}
	return b.String()
}
