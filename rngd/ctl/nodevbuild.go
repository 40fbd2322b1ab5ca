//go:build !tirage_dev

package ctl

// devBuild: a production rngctl refuses dev mode, as a production rngd does.
const devBuild = false
