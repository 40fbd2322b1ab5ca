package hsmtest

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"tirage.fr/tirage/internal/peertest"
)

// SoftHSMModule is Debian's softhsm2 PKCS#11 module.
const SoftHSMModule = "/usr/lib/softhsm/libsofthsm2.so"

// SoftHSM is a private SoftHSM2 installation for one test: its own
// configuration and token directory under t.TempDir, selected for this
// process through SOFTHSM2_CONF (so tests using it cannot run in parallel).
type SoftHSM struct {
	Module string // the PKCS#11 module path
	Conf   string // the SOFTHSM2_CONF file
}

// SoftHSMToken is a token initialised by [SoftHSM.InitToken].
type SoftHSMToken struct {
	Label string
	PIN   []byte // user PIN, random per token
	SOPIN []byte // security officer PIN, random per token
}

// NewSoftHSM sets up SoftHSM2 for t. When softhsm2 is not installed (`make
// deps` installs it) it skips t, saying why, or fails it in CI ([peertest.Absent]).
func NewSoftHSM(t testing.TB) *SoftHSM {
	t.Helper()
	if _, err := os.Stat(SoftHSMModule); err != nil {
		peertest.Absent(t, "SoftHSM2 module %s not found (install Debian's softhsm2: make deps)", SoftHSMModule)
	}
	if _, err := exec.LookPath("softhsm2-util"); err != nil {
		peertest.Absent(t, "softhsm2-util not found (install Debian's softhsm2: make deps)")
	}
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	if err := os.Mkdir(tokens, 0o700); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "softhsm2.conf")
	body := "directories.tokendir = " + tokens + "\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n"
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOFTHSM2_CONF", conf)
	return &SoftHSM{Module: SoftHSMModule, Conf: conf}
}

// InitToken initialises a new token labelled label with random PINs, with
// softhsm2-util as an operator would.
func (s *SoftHSM) InitToken(t testing.TB, label string) SoftHSMToken {
	t.Helper()
	tok := SoftHSMToken{Label: label, PIN: randomPIN(), SOPIN: randomPIN()}
	cmd := exec.Command("softhsm2-util", "--init-token", "--free", "--label", label,
		"--pin", string(tok.PIN), "--so-pin", string(tok.SOPIN))
	cmd.Env = append(os.Environ(), "SOFTHSM2_CONF="+s.Conf)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("softhsm2-util --init-token %s: %v\n%s", label, err, out)
	}
	return tok
}

func randomPIN() []byte {
	var b [8]byte
	rand.Read(b[:])
	return []byte(hex.EncodeToString(b[:]))
}
