//go:build tirage_dev

package ctl

// devBuild: this rngctl was built with dev mode (-tags tirage_dev, as
// rngd's devBuild): state rebuild --dev may rebuild a dev data directory.
const devBuild = true
