//go:build js && wasm

package main

import (
	"syscall/js"
	_ "time/tzdata" // Europe/Paris for the game rules, inside the page

	"tirage.fr/tirage/verifier/web"
)

func serve() {
	js.Global().Set("tirageVerify", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 4 {
			return js.ValueOf(`[{"file":"","verdict":"fail","summary":"tirageVerify(files, anchors, pins, lang)","checks":[]}]`)
		}
		return js.ValueOf(string(web.Render(web.Verify(files(args[0]), files(args[1]), args[2].String()), args[3].String())))
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
