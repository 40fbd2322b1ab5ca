//go:build js && wasm

package main

import (
	"syscall/js"
	_ "time/tzdata" // Europe/Paris for the game rules, inside the page

	"tirage.fr/tirage/verifier/web"
)

func serve() {
	js.Global().Set("tirageVerify", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 5 {
			return js.ValueOf(`[{"file":"","verdict":"fail","summary":"tirageVerify(files, anchors, pins, rules, lang)","checks":[]}]`)
		}
		var rules *web.File
		if r := files(args[3]); len(r) > 0 {
			rules = &r[len(r)-1] // the page keeps one: the last given
		}
		return js.ValueOf(string(web.Render(web.Verify(files(args[0]), files(args[1]), args[2].String(), rules), args[4].String())))
	}))
	js.Global().Set("tirageReady", js.ValueOf(true))
	if cb := js.Global().Get("onTirageReady"); cb.Type() == js.TypeFunction {
		cb.Invoke()
	}
	select {}
}

// files copies an array of {name, data: Uint8Array}.
func files(list js.Value) []web.File {
	out := make([]web.File, list.Length())
	for i := range out {
		f := list.Index(i)
		data := f.Get("data")
		b := make([]byte, data.Length())
		js.CopyBytesToGo(b, data)
		out[i] = web.File{Name: f.Get("name").String(), Data: b}
	}
	return out
}
