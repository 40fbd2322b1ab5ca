// Command wasm is rngverify's browser page engine: built with GOOS=js
// GOARCH=wasm (scripts/wasm.sh), it exposes to the page's JavaScript
//
//	tirageVerify(files, anchors, pins, lang) → JSON string
//
// where files (the documents to check) and anchors (the key files the user
// trusts: the operator's log key file or key announcement record) are
// arrays of {name, data: Uint8Array}, pins a string of pinned key
// fingerprints, and lang "fr" or "en"; the JSON is package web's Render of
// web.Verify(files, anchors, pins). Only anchors and pins are trusted. It
// makes no network request. Built for another platform it only says what it
// is.
package main

func main() { serve() }
