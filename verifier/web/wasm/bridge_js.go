//go:build js && wasm

package main

import (
	"syscall/js"
	_ "time/tzdata" // Europe/Paris for the game rules, inside the page

	"tirage.fr/tirage/verifier/web"
)

func serve() {
	c := copies{}
	js.Global().Set("tirageVerify", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 6 {
			return js.ValueOf(`[{"file":"","verdict":"fail","summary":"tirageVerify(files, anchors, pins, rules, lang, quorum)","checks":[]}]`)
		}
		seen := map[int]bool{}
		docs, anchors := c.files(args[0], seen), c.files(args[1], seen)
		var rules *web.File
		if r := c.files(args[3], seen); len(r) > 0 {
			rules = &r[len(r)-1] // the page keeps one: the last given
		}
		c.keep(seen)
		return js.ValueOf(string(web.Render(web.VerifyQuorum(docs, anchors, args[2].String(), rules, args[5].String()), args[4].String())))
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

// keep forgets the copies of the files the page no longer keeps: every
// call is given all of them.
func (c copies) keep(seen map[int]bool) {
	for id := range c {
		if !seen[id] {
			delete(c, id)
		}
	}
}
