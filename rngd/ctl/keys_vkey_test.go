package ctl

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	"tirage.fr/tirage/rngd/rngdtest"
)

// keys export-public --format vkey prints, from the keystore alone, the
// log verifier key a running rngd serves for the same keys and origin
// (/log/vkey, Status): what a witness is given before a new log's first
// start, which with log.witness_policy needs the witness to cosign.
func TestExportLogVKey(t *testing.T) {
	d := rngdtest.Start(t)
	conn, err := grpc.NewClient("unix:"+d.Admin, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", d.Admin)
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	st, err := adminv1.NewAdminClient(conn).Status(context.Background(), &adminv1.StatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	k := &keysRun{t: t}
	keys := []string{"export-public", "--backend", "software", "--allow-software", "--dir", filepath.Join(d.DataDir, "keys")}
	code, out, errs := k.run("", append(keys, "--format", "vkey", "--origin", d.Origin)...)
	if want := strings.Join(st.LogVerifierKeys, "\n") + "\n"; code != ExitOK || out != want {
		t.Fatalf("export-public --format vkey: exit %d\n%s%s\nwant what rngd serves:\n%s", code, out, errs, want)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "vkey"}, "--format vkey needs --origin NAME"},
		{[]string{"--origin", d.Origin}, "--origin is for --format vkey only"},
		{[]string{"--format", "vkey", "--origin", "tirage log"}, `--origin "tirage log"`},
		{[]string{"--format", "vkey", "--origin", d.Origin, "--label", "vrf"}, `--label "vrf": key (`},
	} {
		code, out, errs := k.run("", append(append([]string{}, keys...), c.args...)...)
		if code == ExitOK || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("export-public %v: exit %d, stdout %q, stderr %q; want a refusal naming %q", c.args, code, out, errs, c.want)
		}
	}
}
