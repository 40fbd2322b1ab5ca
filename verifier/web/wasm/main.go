// Command wasm is rngverify's browser page engine: built with GOOS=js
// GOARCH=wasm (scripts/wasm.sh), it exposes to the page's JavaScript
//
//	tirageVerify(files, anchors, pins, rules, lang, quorum, stakes, closed) → JSON string
//
// where files (the documents to check: receipts, transcripts,
// certificates, freeze receipts, attestations, entrant lists), anchors
// (the key files the user trusts: the operator's log key file or key
// announcement record, the latter also for attestations) and
// rules (the draw's rules file, none or one: the last is taken) are
// arrays of {id, name, size, data: Uint8Array} (data: what the page read,
// the first bytes only of a file over its limit, whose size says it:
// web.File.Size; id: a number the page gives each file it keeps, for the
// file to be copied into Go once — a call forgets the files it is not
// given), pins a string of pinned key
// fingerprints, lang "fr" or "en", and quorum the witnesses' quorum as
// typed ("": all of them), stakes (a freeze's stake files, in the order
// of its receipt) and closed (its closed-accounts file, none or one: the
// last is taken) arrays of files too; the JSON is package web's Render of
// web.VerifyInputs(files, anchors, pins, rules, quorum,
// web.ReadInputs(stakes, closed, rules)), the inputs read once for the
// same files (their ids). Only anchors and pins are trusted; certificates
// are checked against the rules, as by rngverify certificate --rules, and
// freeze receipts against the input files (and the rules), as by
// rngverify freeze --stakes, --closed, --rules. It makes no network
// request. Built for another platform it only says what it is.
package main

func main() { serve() }
