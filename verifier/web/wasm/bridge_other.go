//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

func serve() {
	fmt.Fprintln(os.Stderr, "this is the engine of rngverify's browser page: build it with GOOS=js GOARCH=wasm (scripts/wasm.sh); on the command line use rngverify")
	os.Exit(2)
}
