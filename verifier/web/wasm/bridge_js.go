//go:build js && wasm

package main

import (
	"syscall/js"
	_ "time/tzdata" // Europe/Paris for the game rules, inside the page

	"tirage.fr/tirage/verifier/web"
)

func serve() {
	js.Global().Set("tirageVerify", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 3 {
			return js.ValueOf(`[{"file":"","verdict":"fail","summary":"tirageVerify(files, pins, lang)","checks":[]}]`)
		}
		files := make([]web.File, args[0].Length())
		for i := range files {
			f := args[0].Index(i)
			data := f.Get("data")
			b := make([]byte, data.Length())
			js.CopyBytesToGo(b, data)
			files[i] = web.File{Name: f.Get("name").String(), Data: b}
		}
		return js.ValueOf(string(web.Render(web.Verify(files, args[1].String()), args[2].String())))
	}))
	js.Global().Set("tirageReady", js.ValueOf(true))
	if cb := js.Global().Get("onTirageReady"); cb.Type() == js.TypeFunction {
		cb.Invoke()
	}
	select {}
}
