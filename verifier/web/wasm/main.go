// Command wasm is rngverify's browser page engine: built with GOOS=js
// GOARCH=wasm (scripts/wasm.sh), it exposes to the page's JavaScript
//
//	tirageVerify(files, pins, lang) → JSON string
//
// where files is an array of {name, data: Uint8Array}, pins a string of
// pinned key fingerprints, and lang "fr" or "en"; the JSON is package web's
// Render. It makes no network request. Built for another platform it only
// says what it is.
package main

func main() { serve() }
