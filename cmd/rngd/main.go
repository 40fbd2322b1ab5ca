// Command rngd is Tirage's draw daemon.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "rngd: not yet serving")
	os.Exit(1)
}
