package ctl

import (
	"strings"
	"testing"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
)

// qod status does not print 0 unfinished games when rngd could not count
// them (a failed state store): it says they are unknown, and why.
func TestQoDStatusStoreFailure(t *testing.T) {
	failure := "the state store failed; restart rngd to rebuild it from the log: write state.db: no space left on device"
	code, out, errs := runFixed(t, fixedAdmin{status: &adminv1.StatusResponse{Version: "test", LogOrigin: "tirage.test/log", LogSize: 7,
		StoreFailure: failure}}, "qod", "status")
	want := "log tirage.test/log size 7\nunfinished games UNKNOWN, state store FAILED, every draw refused: " + failure + "\n"
	if code != ExitOK || !strings.Contains(out, want) || strings.Contains(out, "unfinished games 0") {
		t.Errorf("store failure: exit %d\n%s%s\nwant %q", code, out, errs, want)
	}
}

// qod status names each other component that refuses draws, and why.
func TestQoDStatusComponentFailures(t *testing.T) {
	code, out, errs := runFixed(t, fixedAdmin{status: &adminv1.StatusResponse{Version: "test", LogOrigin: "tirage.test/log", LogSize: 7,
		EntropyFailure: "hwrng: repetition count test failed", SecretsFailure: "write secrets.db: no space left on device"}}, "qod", "status")
	for _, want := range []string{
		"\nentropy FAILED, every start refused (rngctl entropy status): hwrng: repetition count test failed\n",
		"\nsecret store FAILED, every start refused until rngd restarts: write secrets.db: no space left on device\n",
	} {
		if code != ExitOK || !strings.Contains(out, want) || strings.Contains(out, "keys FAILED") {
			t.Errorf("exit %d\n%s%s\nwant %q and no keys failure", code, out, errs, want)
		}
	}
}
