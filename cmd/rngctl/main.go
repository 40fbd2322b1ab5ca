// Command rngctl is the operator's and auditor's command line for Tirage.
package main

import (
	"os"

	"tirage.fr/tirage/rngd"
	"tirage.fr/tirage/rngd/ctl"
)

func main() {
	// rngctl reads passphrases and PINs and holds keys (keys, promo draw).
	if err := rngd.ProtectProcess(); err != nil {
		os.Stderr.WriteString("rngctl: " + err.Error() + "\n")
		os.Exit(1)
	}
	ctx, stop := rngd.SignalContext()
	code := ctl.Run(ctx, ctl.Env{Args: os.Args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv})
	stop()
	os.Exit(code)
}
