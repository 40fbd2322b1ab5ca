// Command rngverify is Tirage's standalone verifier for bailiffs and auditors.
package main

import (
	"os"

	"tirage.fr/tirage/verifier/cli"
)

func main() {
	os.Exit(cli.Run(cli.Env{Args: os.Args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}))
}
