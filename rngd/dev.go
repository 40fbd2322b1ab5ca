//go:build tirage_dev

package rngd

// devBuild: this binary may run in dev mode (insecure conveniences: generated
// certificates, a known keystore passphrase). Never ship it.
const devBuild = true

// devPassphrase seals the dev keystore: known to everyone, hence dev only.
const devPassphrase = "tirage dev keystore, not a secret"
