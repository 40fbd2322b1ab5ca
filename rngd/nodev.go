//go:build !tirage_dev

package rngd

// devBuild: production binaries refuse dev mode.
const devBuild = false

const devPassphrase = ""
