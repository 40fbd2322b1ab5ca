// Package witnesspolicy reads a witness policy file (the format
// transparency.ParseWitnessPolicy checks), named by rngd's
// log.witness_policy or rngctl promo --witness-policy: the same file, read
// with the same checks by both.
//
// Whoever may write the policy may name a witness of their own (one that
// cosigns whatever it is sent); whoever may read it, the credentials its
// URLs may hold (a bastion's password, a token); whoever may write the
// directory holding it may swap it for another file. A file or directory's
// owner may do all of that, whatever its mode: root or the user reading it
// only. Its errors name no setting and not the file's path: the caller
// names both (the directory's path is named, as it is the file's).
package witnesspolicy

import (
	"fmt"
	"os"
	"path/filepath"

	"tirage.fr/tirage/rngd/internal/boundedfile"
	"tirage.fr/tirage/transparency"
)

// Read reads the witness policy file at path and checks it: the directory
// holding it (and, when path is a symbolic link, the one holding the file
// it names) owned by root or the user reading it and not writable by group
// or others; the file likewise, parsed by transparency.ParseWitnessPolicy,
// and not readable by group or others when a witness's URL in it holds
// credentials. The file checked is the file read.
func Read(path string) ([]byte, error) {
	dirs := []string{filepath.Dir(path)}
	if real, err := filepath.EvalSymlinks(path); err == nil && filepath.Dir(real) != dirs[0] {
		dirs = append(dirs, filepath.Dir(real))
	}
	for _, dir := range dirs {
		fi, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("its directory %s: %w", dir, boundedfile.Pathless(err))
		}
		if err := boundedfile.CheckWriters(fi, "its directory "+dir, "swap the file", "go-w it"); err != nil {
			return nil, err
		}
	}
	b, fi, err := boundedfile.ReadStat(path, transparency.MaxWitnessPolicy)
	if err != nil {
		return nil, err
	}
	if err := boundedfile.CheckWriters(fi, "it", "name a witness of their own", "go-w it (0644, 0600 with credentials in its URLs)"); err != nil {
		return nil, err
	}
	_, urls, err := transparency.ParseWitnessPolicy(b)
	if err != nil {
		return nil, err
	}
	for _, w := range urls {
		if w.HasCredentials() && fi.Mode().Perm()&0o077 != 0 {
			return nil, fmt.Errorf("it has mode %04o: readable by group or others, and witness %s's URL holds credentials: chmod 600 it", fi.Mode().Perm(), w.PolicyName)
		}
	}
	return b, nil
}
