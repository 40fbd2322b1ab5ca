package transparency_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/witness"
	"tirage.fr/tirage/transparency/witness/witnesstest"
	"tirage.fr/tirage/verifier/receipt/receipttest"
)

// A policy line tessera refuses is quoted in its error, which rngd prints
// at start: a witness URL's password (a bastion's) is not, whatever the
// fault (a bad key, a bad URL, a missing field).
func TestWitnessPolicyErrorHidesPassword(t *testing.T) {
	_, vkey, err := witness.GenerateKey("w.test/witness")
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ policy, want string }{
		"bad key":       {"witness w w.test+00000000+AAAA https://bastion:s3cret@192.0.2.1/\nquorum w\n", "invalid witness config"},
		"bad URL":       {"witness w " + vkey + " https://bastion:s3cret@192.0.2.1:port/\nquorum w\n", "line 1, witness w: its URL does not parse (not quoted"},
		"bad URL 2":     {"witness w " + vkey + " :s3cret@192.0.2.1/\nquorum w\n", "its URL does not parse"},
		"no scheme":     {"witness w https:bastion:s3cret@192.0.2.1/\nquorum w\n", "invalid witness definition"},
		"extra field":   {"witness w " + vkey + " bastion:s3cret@192.0.2.1/ x\nquorum w\n", "invalid witness definition"},
		"missing field": {"witness w https://bastion:s3cret@192.0.2.1/\nquorum w\n", "invalid witness definition"},
		"no user":       {"witness w w.test+00000000+AAAA https://:s3cret@192.0.2.1/\nquorum w\n", "invalid witness config"},
	} {
		_, _, err := transparency.ParseWitnessPolicy([]byte(tc.policy))
		if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ParseWitnessPolicy = %v, want %q without the password", name, err, tc.want)
		}
	}
	// A policy with no credentials is quoted as it is.
	_, _, err = transparency.ParseWitnessPolicy([]byte("witness w w.test+00000000+AAAA https://192.0.2.1/\nquorum w\n"))
	if err == nil || !strings.Contains(err.Error(), "https://192.0.2.1/") {
		t.Errorf("ParseWitnessPolicy = %v, want the line quoted", err)
	}
}

// A witness URL's credentials are kept out of tessera's group (whose
// messages quote its URLs), shown redacted, and sent by the meter as HTTP
// basic authentication, as http.Client sends a URL's.
func TestWitnessPolicyCredentials(t *testing.T) {
	_, vkey, err := witness.GenerateKey("w.test/witness")
	if err != nil {
		t.Fatal(err)
	}
	rec := witnesstest.StartAuthRecorder(t, http.StatusConflict)
	withUser := rec.WithUser("bastion", "s3cret")
	g, urls, err := transparency.ParseWitnessPolicy([]byte("witness w " + vkey + " " + withUser + "/w # the bailiff's\nquorum w\n"))
	if err != nil {
		t.Fatal(err)
	}
	endpoint := rec.URL + "/w/add-checkpoint"
	if _, ok := g.Endpoints()[endpoint]; !ok || len(g.Endpoints()) != 1 {
		t.Fatalf("group endpoints %v, want only %s", g.Endpoints(), endpoint)
	}
	if w := urls[endpoint]; w.Name != "w.test/witness" || w.Shown != strings.Replace(endpoint, "http://", "http://bastion:xxxxx@", 1) {
		t.Fatalf("witness %+v", w)
	}
	meter := transparency.NewWitnessMeter(urls, http.DefaultTransport)
	resp, err := transparency.NewWitnessClient(meter, 5*time.Second).Post(endpoint, "text/plain", strings.NewReader("old 0\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := rec.Auth(); got != [2]string{"bastion", "s3cret"} {
		t.Errorf("the witness got user and password %q, want the policy's", got)
	}
	if s := meter.Snapshot(); len(s) != 1 || s[0].Conflicts != 1 || strings.Contains(s[0].URL, "s3cret") {
		t.Errorf("Snapshot() = %+v", s)
	}
}

// Witness URLs ParseWitnessPolicy refuses, naming the line and witness but
// quoting no credentials: one tessera would read as an opaque URL, password
// and all (then quoted in every error, the banner and the metrics); a '#'
// in a password, where the URL would end (at the host "bastion", the
// password's digits as its port); two witnesses at one URL (tessera keeps
// one: their quorum could never be met, one's credentials sent for the
// other's).
func TestWitnessPolicyRefusedURLs(t *testing.T) {
	vkey, vkey2 := twoWitnessKeys(t)
	for name, tc := range map[string]struct{ policy, want string }{
		"no scheme":     {"witness w " + vkey + " bastion:s3cret@192.0.2.1/\nquorum w\n", "line 1, witness w: its URL is not http:// or https:// with a host"},
		"no scheme 2":   {"witness w " + vkey + " //bastion:s3cret@192.0.2.1/\nquorum w\n", "line 1, witness w: its URL is not http"},
		"ftp":           {"witness w " + vkey + " ftp://bastion:s3cret@192.0.2.1/\nquorum w\n", "its URL is not http"},
		"no host":       {"witness w " + vkey + " https:///w\nquorum w\n", `its URL "https:///w" is not http`},
		"'#' password":  {"witness w " + vkey + " https://bastion:12345#s3cret@192.0.2.1/\nquorum w\n", "line 1, witness w: a '#' in its URL starts a comment"},
		"'#' query":     {"witness w " + vkey + " https://192.0.2.1/w?token=12345#s3cret\nquorum w\n", "line 1, witness w: a '#' in its URL starts a comment"},
		"one URL":       {"witness a " + vkey + " https://alice:s3cret@192.0.2.1/w\nwitness b " + vkey2 + " https://bob:s3cret@192.0.2.1/w/\ngroup g any a b\nquorum g\n", "line 2: witnesses a and b have one URL, https://192.0.2.1/w/add-checkpoint"},
		"one URL plain": {"witness a " + vkey + " https://192.0.2.1/w\nwitness b " + vkey2 + " https://192.0.2.1/w\ngroup g all a b\nquorum g\n", "witnesses a and b have one URL"},
	} {
		_, _, err := transparency.ParseWitnessPolicy([]byte(tc.policy))
		if err == nil || strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "12345") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ParseWitnessPolicy = %v, want %q without the password", name, err, tc.want)
		}
	}
	// A '#' comment after the URL, and a fragment-free '#' in a password
	// written %23, are fine.
	for _, p := range []string{
		"witness w " + vkey + " https://bastion:s3cret@192.0.2.1/ # the bailiff's\nquorum w\n",
		"witness w " + vkey + " https://bastion:12345%23s3cret@192.0.2.1/\nquorum w\n",
		"witness w " + vkey + " https://192.0.2.1/w?token=12345%23s3cret # the bailiff's\nquorum w\n",
	} {
		if _, _, err := transparency.ParseWitnessPolicy([]byte(p)); err != nil {
			t.Errorf("ParseWitnessPolicy(%q) = %v", p, err)
		}
	}
}

// A URL's user without a password is often a token (https://TOKEN@host/):
// shown redacted as a password is, and sent as basic authentication's user.
func TestWitnessPolicyUserOnly(t *testing.T) {
	_, vkey, err := witness.GenerateKey("w.test/witness")
	if err != nil {
		t.Fatal(err)
	}
	_, urls, err := transparency.ParseWitnessPolicy([]byte("witness w " + vkey + " https://t0ken@[2001:db8::1]:8443/w\nquorum w\n"))
	if err != nil {
		t.Fatal(err)
	}
	w, ok := urls["https://[2001:db8::1]:8443/w/add-checkpoint"]
	if !ok || w.Shown != "https://xxxxx@[2001:db8::1]:8443/w/add-checkpoint" {
		t.Errorf("urls = %+v", urls)
	}
}

// A token in a witness URL's query (?token=, ?key=, a bare ?TOKEN) is a
// secret as a password is: kept out of tessera's group (its endpoints,
// which tessera's messages and http.Client's errors quote), its values
// redacted where the URL is shown (the banner, metrics, Status), quoted in
// no refusal; the meter sends the query as written.
func TestWitnessPolicyQueryHidden(t *testing.T) {
	vkey, vkey2 := twoWitnessKeys(t)
	secrets := []string{"s3cret", "k3y", "a0th", "T0KEN"}
	query := "token=s3cret&key=k3y&auth=a0th&T0KEN"
	hides := func(s string) bool {
		for _, v := range secrets {
			if strings.Contains(s, v) {
				return false
			}
		}
		return true
	}
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.URL.RawQuery:
		default:
		}
		http.Error(w, "conflict", http.StatusConflict)
	}))
	defer srv.Close()
	g, urls, err := transparency.ParseWitnessPolicy([]byte("witness w " + vkey + " " + srv.URL + "/w?" + query + "\nquorum w\n"))
	if err != nil {
		t.Fatal(err)
	}
	endpoint := srv.URL + "/w/add-checkpoint"
	if _, ok := g.Endpoints()[endpoint]; !ok || len(g.Endpoints()) != 1 {
		t.Fatalf("group endpoints %v, want only %s", g.Endpoints(), endpoint)
	}
	if w := urls[endpoint]; w.Shown != endpoint+"?token=xxxxx&key=xxxxx&auth=xxxxx&xxxxx" || !w.HasCredentials() {
		t.Errorf("witness %+v", w)
	}
	meter := transparency.NewWitnessMeter(urls, http.DefaultTransport)
	resp, err := transparency.NewWitnessClient(meter, 5*time.Second).Post(endpoint, "text/plain", strings.NewReader("old 0\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if q := <-got; q != query {
		t.Errorf("the witness got query %q, want the policy's %q", q, query)
	}
	if s := meter.Snapshot(); len(s) != 1 || s[0].Conflicts != 1 || !hides(s[0].URL) {
		t.Errorf("Snapshot() = %+v", s)
	}
	// With a password too, both are redacted.
	_, urls, err = transparency.ParseWitnessPolicy([]byte("witness w " + vkey + " https://bastion:pw@192.0.2.1/w?key=k3y\nquorum w\n"))
	if w := urls["https://192.0.2.1/w/add-checkpoint"]; err != nil || w.Shown != "https://bastion:xxxxx@192.0.2.1/w/add-checkpoint?key=xxxxx" {
		t.Errorf("urls = %+v, %v", urls, err)
	}
	// Refusals, tessera's and its own, quote no query value.
	for name, tc := range map[string]struct{ policy, want string }{
		"bad key":     {"witness w w.test+00000000+AAAA https://192.0.2.1/w?" + query + "\nquorum w\n", "invalid witness config"},
		"bad URL":     {"witness w " + vkey + " https://192.0.2.1:port/w?" + query + "\nquorum w\n", "line 1, witness w: its URL does not parse"},
		"ftp":         {"witness w " + vkey + " ftp://192.0.2.1/w?" + query + "\nquorum w\n", "line 1, witness w: its URL is not http"},
		"extra field": {"witness w " + vkey + " https://192.0.2.1/w?" + query + " x\nquorum w\n", "invalid witness definition"},
		"one URL":     {"witness a " + vkey + " https://192.0.2.1/w?" + query + "\nwitness b " + vkey2 + " https://192.0.2.1/w?token=s3cret\ngroup g any a b\nquorum g\n", "line 2: witnesses a and b have one URL, https://192.0.2.1/w/add-checkpoint"},
	} {
		_, _, err := transparency.ParseWitnessPolicy([]byte(tc.policy))
		if err == nil || !hides(err.Error()) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ParseWitnessPolicy = %v, want %q without the query's values", name, err, tc.want)
		}
	}
	// A witness that cannot be reached: http.Client's error quotes the
	// endpoint, which holds no query.
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	_, urls, err = transparency.ParseWitnessPolicy([]byte("witness w " + vkey + " " + closed.URL + "/w?" + query + "\nquorum w\n"))
	if err != nil {
		t.Fatal(err)
	}
	for endpoint := range urls {
		_, err := transparency.NewWitnessClient(transparency.NewWitnessMeter(urls, http.DefaultTransport), 5*time.Second).Post(endpoint, "text/plain", nil)
		if err == nil || !hides(err.Error()) {
			t.Errorf("a witness unreachable: %v, want an error without the query's values", err)
		}
	}
}

// twoWitnessKeys returns the verifier keys of two new witnesses, w.test
// and w2.test.
func twoWitnessKeys(t *testing.T) (vkey, vkey2 string) {
	t.Helper()
	_, vkey, err := witness.GenerateKey("w.test/witness")
	if err != nil {
		t.Fatal(err)
	}
	_, vkey2, err = witness.GenerateKey("w2.test/witness")
	if err != nil {
		t.Fatal(err)
	}
	return vkey, vkey2
}

// A request called off (its context cancelled: tessera and the Trillian
// client cancel the slower witnesses' once the quorum is met) counts
// neither as a cosignature nor as a failure; one that timed out is a
// failure.
func TestWitnessMeterCalledOff(t *testing.T) {
	vkey, _ := twoWitnessKeys(t)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // a slow witness
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	_, urls, err := transparency.ParseWitnessPolicy([]byte("witness w " + vkey + " " + srv.URL + "/w\nquorum w\n"))
	if err != nil {
		t.Fatal(err)
	}
	endpoint := srv.URL + "/w/add-checkpoint"
	meter := transparency.NewWitnessMeter(urls, http.DefaultTransport)
	client := transparency.NewWitnessClient(meter, time.Minute)
	post := func(ctx context.Context) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader("old 0\n\n"))
		if err != nil {
			t.Fatal(err)
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			t.Fatal("the slow witness answered")
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	post(ctx)
	if s := meter.Snapshot(); len(s) != 1 || s[0].Failures != 0 || s[0].Cosigned != 0 || s[0].CalledOff != 1 {
		t.Errorf("after a request called off: Snapshot() = %+v, want no failure, 1 called off", s)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	post(ctx)
	if s := meter.Snapshot(); len(s) != 1 || s[0].Failures != 1 || s[0].CalledOff != 1 {
		t.Errorf("after a request timed out: Snapshot() = %+v, want 1 failure, still 1 called off", s)
	}
}

// A bare token in a witness URL's query that ends in '=' (base64 with its
// padding: "?dGVzdA==") is redacted whole, not taken for a key shown
// before an empty value: in the URL shown and in tessera's refusals.
func TestWitnessPolicyQueryBase64Token(t *testing.T) {
	vkey, _ := twoWitnessKeys(t)
	for query, shown := range map[string]string{
		"dGVzdDEyMw==":            "xxxxx",
		"dGVzdDEyMw=":             "xxxxx",
		"k=v&dGVzdDEyMw==":        "k=xxxxx&xxxxx",
		"token=dGVzdDEyMw==&auth": "token=xxxxx&xxxxx",
	} {
		_, urls, err := transparency.ParseWitnessPolicy([]byte("witness w " + vkey + " https://192.0.2.1/w?" + query + "\nquorum w\n"))
		if w := urls["https://192.0.2.1/w/add-checkpoint"]; err != nil || w.Shown != "https://192.0.2.1/w/add-checkpoint?"+shown {
			t.Errorf("?%s: shown %q (%v), want ?%s", query, w.Shown, err, shown)
		}
		_, _, err = transparency.ParseWitnessPolicy([]byte("witness w " + vkey + " https://192.0.2.1/w?" + query + " x\nquorum w\n"))
		if err == nil || strings.Contains(err.Error(), "dGVzdDEyMw") || !strings.Contains(err.Error(), "invalid witness definition") {
			t.Errorf("?%s, a field too many: %v; want refused without the token", query, err)
		}
	}
}

// A 200 reply counts as a cosignature only when its cosignature verifies
// under the witness's key in the policy over the checkpoint sent: a
// witness replying with another key's (the policy's key wrong, an impostor
// at its URL) or with no valid line is failing, not cosigning.
func TestWitnessMeterVerifiesCosignature(t *testing.T) {
	named := receipttest.NewWitness("w.test", 1)
	impostor := receipttest.NewWitness("w.test", 2) // the same name, another key
	signer := func() note.Signer {
		skey, _, err := note.GenerateKey(nil, "log.test")
		if err != nil {
			t.Fatal(err)
		}
		s, err := note.NewSigner(skey)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}()
	cp, err := note.Sign(&note.Note{Text: "log.test\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"}, signer)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		reply    func(sent []byte) string
		cosigned bool
	}{
		"its cosignature": {func(sent []byte) string { return lastLine(named.Cosign(sent, time.Now())) }, true},
		"another key's":   {func(sent []byte) string { return lastLine(impostor.Cosign(sent, time.Now())) }, false},
		"of another checkpoint": {func([]byte) string {
			other, _ := note.Sign(&note.Note{Text: "log.test\n2\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"}, signer)
			return lastLine(named.Cosign(other, time.Now()))
		}, false},
		"no line": {func([]byte) string { return "" }, false},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			_, sent, _ := strings.Cut(string(b), "\n\n")
			io.WriteString(w, tc.reply([]byte(sent)))
		}))
		_, urls, err := transparency.ParseWitnessPolicy([]byte("witness w " + named.VKey + " " + srv.URL + "\nquorum w\n"))
		if err != nil {
			t.Fatal(err)
		}
		meter := transparency.NewWitnessMeter(urls, http.DefaultTransport)
		resp, err := transparency.NewWitnessClient(meter, 5*time.Second).Post(srv.URL+"/add-checkpoint", "text/plain", bytes.NewReader(append([]byte("old 0\n\n"), cp...)))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body) // the reply is still there for tessera
		resp.Body.Close()
		srv.Close()
		s := meter.Snapshot()
		if len(s) != 1 || (s[0].Cosigned == 1) != tc.cosigned || (s[0].Failures == 1) == tc.cosigned || s[0].LastCosigned.IsZero() == tc.cosigned {
			t.Errorf("%s: Snapshot() = %+v, want cosigned %v", name, s, tc.cosigned)
		}
		if tc.cosigned && !strings.HasPrefix(string(got), "— w.test ") {
			t.Errorf("%s: the caller read %q, not the cosignature", name, got)
		}
	}
}

func lastLine(signed []byte) string {
	lines := strings.SplitAfter(strings.TrimSuffix(string(signed), "\n"), "\n")
	return lines[len(lines)-1] + "\n"
}
