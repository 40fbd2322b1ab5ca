//go:build cgo

package pkcs11_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/vrf"
)

// TestRSAFDHProofsVerify makes RSA-FDH-VRF proofs inside SoftHSM2 and checks
// them with verifier/vrf and with the shipped rngverify binary.
func TestRSAFDHProofsVerify(t *testing.T) {
	p, err := openSoftHSM(t, "tirage-rngverify").GenerateVRF("vrf", vrf.SuiteRSAFDH256)
	if err != nil {
		t.Fatal(err)
	}

	bin := filepath.Join(t.TempDir(), "rngverify")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command("go", "build", "-o", bin, "tirage.fr/tirage/cmd/rngverify")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build rngverify: %v\n%s", err, out)
	}
	pk := hex.EncodeToString(p.PublicKey().Bytes())
	run := func(alpha, proof []byte) (string, int) {
		cmd := exec.Command(bin, "vrf", "--suite", string(vrf.SuiteRSAFDH256), "--pk", pk,
			"--alpha", hex.EncodeToString(alpha), "--proof", hex.EncodeToString(proof))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return strings.TrimSpace(stdout.String()), 0
		case errors.As(err, &ee):
			return strings.TrimSpace(stderr.String()), ee.ExitCode()
		}
		t.Fatalf("rngverify: %v", err)
		return "", -1
	}

	for _, alpha := range [][]byte{{}, []byte("tirage pick 1"), bytes.Repeat([]byte{0xff}, 300)} {
		pi, _, err := p.Prove(alpha)
		if err != nil {
			t.Fatal(err)
		}
		if len(pi) != 256 {
			t.Errorf("proof of %d bytes, want 256 for RSA-2048", len(pi))
		}
		beta, err := vrf.Verify(p.PublicKey(), alpha, pi)
		if err != nil {
			t.Fatalf("vrf.Verify of a SoftHSM2 proof: %v", err)
		}
		out, code := run(alpha, pi)
		if code != 0 || out != hex.EncodeToString(beta) {
			t.Errorf("rngverify vrf (alpha %q): exit %d, output %q; want 0 and β %x", alpha, code, out, beta)
		}
		bad := bytes.Clone(pi)
		bad[100] ^= 0x10
		if out, code := run(alpha, bad); code != 1 {
			t.Errorf("rngverify vrf accepted a tampered proof: exit %d, %q", code, out)
		}
	}
}
