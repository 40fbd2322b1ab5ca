package transparency

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/transparency-dev/tessera"
	"golang.org/x/mod/sumdb/note"
)

// Witnesses, for both backends: a witness policy names the witnesses
// (C2SP tlog-witness, POST <witness URL>/add-checkpoint) whose
// cosignatures (C2SP tlog-cosignature, cosignature/v1) a checkpoint must
// carry before it is published. The embedded log has tessera send them its
// checkpoints (transparency/tilelog, witness.go); the Trillian backend
// sends them itself (transparency/trillian, witness.go).

// DefaultWitnessTimeout bounds how long one checkpoint waits for the
// witnesses' quorum.
const DefaultWitnessTimeout = 2 * time.Second

// MaxWitnessPolicy bounds the policy text (a few lines per witness).
const MaxWitnessPolicy = 64 << 10

// ParseWitnessPolicy checks a witness policy: the Sigsum policy format
// (lines "witness NAME VKEY URL", "group NAME N|any|all MEMBER...",
// "quorum NAME"; "log" lines are ignored) with C2SP cosignature/v1 verifier
// keys (signature type 0x04), as tessera reads it. It returns the witnesses
// by add-checkpoint URL, for WitnessMeter. A policy must name a quorum, and
// one of at least one witness ("quorum none" is refused: leave the policy
// out).
//
// A witness URL's credentials (a bastion's, https://user:password@host/;
// a token in its query, https://host/?token=T) are kept out of the group:
// its endpoints have none, so that no message of tessera's, nor of
// http.Client's, which quote them, shows a secret; WitnessMeter sends
// them.
func ParseWitnessPolicy(policy []byte) (tessera.WitnessGroup, map[string]WitnessURL, error) {
	if len(policy) > MaxWitnessPolicy {
		return tessera.WitnessGroup{}, nil, fmt.Errorf("witness policy of %d bytes: at most %d", len(policy), MaxWitnessPolicy)
	}
	stripped, witnesses, err := stripCredentials(policy)
	if err != nil {
		return tessera.WitnessGroup{}, nil, fmt.Errorf("witness policy: %w", err)
	}
	g, err := tessera.NewWitnessGroupFromPolicy(stripped)
	if err != nil {
		return tessera.WitnessGroup{}, nil, fmt.Errorf("witness policy: %w", policyError(stripped, err))
	}
	if g.N <= 0 {
		return tessera.WitnessGroup{}, nil, errors.New("witness policy: its quorum asks for no witness (leave the policy out to publish checkpoints without witnesses)")
	}
	urls := map[string]WitnessURL{}
	for endpoint, v := range g.Endpoints() {
		w := witnesses[endpoint]
		w.Name, w.Shown, w.verifier = v.Name(), shownURL(endpoint, w.user, w.query), v
		urls[endpoint] = w
	}
	return g, urls, nil
}

// WitnessURL is a witness of a policy, by its add-checkpoint URL.
type WitnessURL struct {
	// Name is the witness's key name; Shown its URL as metrics, the
	// banner and status show it (shownURL: a password and the query's
	// values redacted, "xxxxx").
	Name, Shown string
	// PolicyName is the witness's NAME in its policy line ("witness NAME
	// VKEY URL"), which errors about that line name.
	PolicyName string
	// user is the URL's user information in the policy, sent by
	// WitnessMeter as HTTP basic authentication (nil: none); query its
	// query, which WitnessMeter adds to the endpoint ("": none).
	user  *url.Userinfo
	query string
	// verifier is the witness's cosignature key (the policy's), which
	// WitnessMeter checks a reply's cosignature with.
	verifier note.Verifier
}

// HasCredentials reports whether the witness's URL in the policy holds
// credentials: user information, or a query (a token).
func (w WitnessURL) HasCredentials() bool { return w.user != nil || w.query != "" }

// shownURL is a witness's add-checkpoint endpoint as it is shown, with
// the credentials stripCredentials took out of it redacted: a password,
// or a user alone (often a token, https://TOKEN@host/), and every value of
// the query (https://u:xxxxx@host/w/add-checkpoint?token=xxxxx; a bare
// "?TOKEN" is "?xxxxx"). Its keys are shown, to tell which is which.
func shownURL(endpoint string, user *url.Userinfo, query string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return endpoint // tessera's own: no credentials
	}
	if user != nil {
		u.User = user
		if _, ok := user.Password(); !ok {
			u.User = url.User("xxxxx")
		}
	}
	if query != "" {
		pairs := strings.Split(query, "&")
		for i, p := range pairs {
			pairs[i] = redactPair(p)
		}
		u.RawQuery = strings.Join(pairs, "&")
	}
	return u.Redacted()
}

// redactPair is a query's key=value pair with its value redacted
// ("key=xxxxx"), or all of it ("xxxxx") when it is a bare value: no '=',
// or one that ends it or is followed by another, as in a token in base64
// with its padding ("?dGVzdA==").
func redactPair(p string) string {
	if k, v, ok := strings.Cut(p, "="); ok && v != "" && v[0] != '=' {
		return k + "=xxxxx"
	}
	return "xxxxx"
}

// stripCredentials returns policy with the user information and the query
// of each witness line's URL removed, and each witness line's WitnessURL
// (its policy name, user and query) by the add-checkpoint URL tessera
// makes of the URL stripped
// (tessera.NewWitness: the URL joined with "/add-checkpoint"). A line it
// cannot read is left as it is, for tessera to refuse (policyError). It
// refuses, quoting no URL that may hold credentials: a URL that is not
// http:// or https:// with a
// host (tessera would take "user:password@host/" as an opaque URL, password
// and all, and quote it in every error); a '#' inside a URL's credentials
// or its query (it starts a comment: the URL would end there, at another
// host, or with a token cut short); two witnesses at one add-checkpoint URL (tessera keeps one of them, so a
// quorum of both could never be met, and one's credentials would be sent
// for the other).
func stripCredentials(policy []byte) ([]byte, map[string]WitnessURL, error) {
	witnesses := map[string]WitnessURL{} // by add-checkpoint URL
	var out []byte
	for i, line := range bytes.SplitAfter(policy, []byte("\n")) {
		text, comment := string(line), ""
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text, comment = text[:i], text[i:]
		}
		f := strings.Fields(text)
		if len(f) != 4 || f[0] != "witness" {
			out = append(out, line...)
			continue
		}
		if comment != "" && strings.HasSuffix(text, f[3]) && (strings.Contains(strings.Fields(comment)[0], "@") || strings.Contains(f[3], "?")) {
			return nil, nil, fmt.Errorf("line %d, witness %s: a '#' in its URL starts a comment, the URL ends there (write it %%23 in a password or a query value; the URL is not quoted: it holds credentials)", i+1, f[1])
		}
		u, err := url.Parse(f[3])
		if err != nil && strings.ContainsAny(f[3], "@?") {
			// url's error quotes the URL, or a part of it.
			return nil, nil, fmt.Errorf("line %d, witness %s: its URL does not parse (not quoted: it holds credentials)", i+1, f[1])
		}
		if err != nil {
			out = append(out, line...)
			continue
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
			shown := ""
			if !strings.ContainsAny(f[3], "@?") {
				shown = fmt.Sprintf(" %q", f[3])
			}
			return nil, nil, fmt.Errorf("line %d, witness %s: its URL%s is not http:// or https:// with a host", i+1, f[1], shown)
		}
		w := WitnessURL{PolicyName: f[1], user: u.User, query: u.RawQuery}
		u.User, u.RawQuery = nil, ""
		stripped := u.String()
		if u, err = url.Parse(stripped); err != nil { // as tessera reads it
			out = append(out, line...)
			continue
		}
		endpoint := u.JoinPath("/add-checkpoint").String()
		if other, ok := witnesses[endpoint]; ok {
			return nil, nil, fmt.Errorf("line %d: witnesses %s and %s have one URL, %s: one witness per URL", i+1, other.PolicyName, f[1], endpoint)
		}
		witnesses[endpoint] = w
		if !w.HasCredentials() {
			out = append(out, line...)
			continue
		}
		out = fmt.Appendf(out, "witness %s %s %s\n", f[1], f[2], stripped)
	}
	return out, witnesses, nil
}

// urlCredentials is what a URL's user information may hold in a policy
// line: from the start of a token, or its "//" or "scheme://", to the
// token's last "@".
var urlCredentials = regexp.MustCompile(`(^|\s)((?:[A-Za-z][A-Za-z0-9+.-]*:)?//)?[^\s]*@`)

// queryPairs is a URL query's pairs in a policy line, each after its '?'
// or '&' (redacted by redactPair).
var queryPairs = regexp.MustCompile(`[?&][^&\s]*`)

// policyError is err, tessera's, with no URL password nor query value in
// it: tessera's messages quote a policy line or URL whole, and rngd prints
// them at start. What credentials stripCredentials left in the policy (a
// line it could not read: a field missing or one too many; a URL that
// does not parse it refuses itself) are replaced by "xxxxx", "https://u:p@h"
// and "u:p@h" alike, as are a query's values ("?token=xxxxx"), and the
// error is that of the policy so redacted.
func policyError(policy []byte, err error) error {
	redacted := urlCredentials.ReplaceAll(policy, []byte("${1}${2}xxxxx@"))
	redacted = queryPairs.ReplaceAllFunc(redacted, func(p []byte) []byte {
		if len(p) == 1 {
			return p
		}
		return append(p[:1:1], redactPair(string(p[1:]))...)
	})
	if bytes.Equal(redacted, policy) {
		return err
	}
	if _, rerr := tessera.NewWitnessGroupFromPolicy(redacted); rerr != nil {
		return rerr
	}
	return errors.New("a witness line does not parse (not quoted: its URL holds credentials)")
}

// WitnessStat is what the log saw of one witness since it opened.
type WitnessStat struct {
	// Name is the witness's key name, URL its add-checkpoint endpoint
	// (a password and the query's values in it redacted: it is shown in
	// metrics; WitnessURL.Shown).
	Name, URL string
	// Cosigned counts the replies with a cosignature (200) that verifies
	// under the witness's key in the policy, Conflicts the replies giving
	// another size than the one sent (409, retried with that size),
	// Failures every other reply (a 200 whose cosignature does not verify
	// too) or a request that got no reply, but for one called off (its
	// context cancelled: the quorum was met without it), which counts in
	// CalledOff only: a witness whose requests are all called off (down
	// with no reply, never refusing) shows them there, not as healthy.
	Cosigned, Conflicts, Failures, CalledOff uint64
	// LastCosigned is when the last cosignature came (zero: none yet).
	LastCosigned time.Time
}

// WitnessMeter counts the witnesses' replies: it is the transport of the
// HTTP client that reaches them (only them).
type WitnessMeter struct {
	next  http.RoundTripper
	urls  map[string]WitnessURL
	mu    sync.Mutex
	stats map[string]*witnessCounts // guarded by mu
}

type witnessCounts struct {
	cosigned, conflicts, failures, calledOff atomic.Uint64
	last                                     atomic.Int64 // unix nanoseconds
}

// NewWitnessMeter returns a meter for the witnesses urls lists (as
// ParseWitnessPolicy returns them) in front of next.
func NewWitnessMeter(urls map[string]WitnessURL, next http.RoundTripper) *WitnessMeter {
	m := &WitnessMeter{next: next, urls: urls, stats: map[string]*witnessCounts{}}
	for url := range urls {
		m.stats[url] = &witnessCounts{}
	}
	return m
}

func (m *WitnessMeter) counts(url string) *witnessCounts {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.stats[url]
	if !ok {
		c = &witnessCounts{}
		m.stats[url] = c
	}
	return c
}

// RoundTrip implements http.RoundTripper. It sends the witness's
// credentials, if its URL in the policy had any: its user information as
// http.Client would have (HTTP basic authentication), its query on the
// endpoint.
func (m *WitnessMeter) RoundTrip(req *http.Request) (*http.Response, error) {
	c := m.counts(req.URL.String())
	w := m.urls[req.URL.String()]
	if w.HasCredentials() {
		req = req.Clone(req.Context())
	}
	if u := w.user; u != nil && req.Header.Get("Authorization") == "" {
		password, _ := u.Password()
		req.SetBasicAuth(u.Username(), password)
	}
	if w.query != "" && req.URL.RawQuery == "" {
		req.URL.RawQuery = w.query
	}
	resp, err := m.next.RoundTrip(req)
	switch {
	case err != nil && errors.Is(req.Context().Err(), context.Canceled):
		// Called off: the quorum was met without this witness (tessera
		// and the Trillian client cancel the others' requests), or the
		// log is closing. Neither a cosignature nor a failure: a
		// healthy witness slower than the quorum is not shown failing,
		// nor one that never replies as healthy (CalledOff).
		c.calledOff.Add(1)
	case err != nil:
		c.failures.Add(1)
	case resp.StatusCode == http.StatusOK:
		// Counted a cosignature only once it verifies under the
		// witness's key in the policy: a witness replying 200 with
		// another key's (the policy's key wrong, an impostor at the
		// URL) is failing the quorum, not cosigning.
		var ok bool
		if resp, ok = cosignedReply(req, resp, w.verifier); ok {
			c.cosigned.Add(1)
			c.last.Store(time.Now().UnixNano())
		} else {
			c.failures.Add(1)
		}
	case resp.StatusCode == http.StatusConflict:
		c.conflicts.Add(1)
	default:
		c.failures.Add(1)
	}
	return resp, err
}

// Snapshot returns the counts so far, by URL.
func (m *WitnessMeter) Snapshot() []WitnessStat {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]WitnessStat, 0, len(m.stats))
	for u, c := range m.stats {
		w, ok := m.urls[u]
		if !ok {
			w.Shown = u // a URL of no witness of the policy: no credentials
		}
		s := WitnessStat{Name: w.Name, URL: w.Shown, Cosigned: c.cosigned.Load(), Conflicts: c.conflicts.Load(), Failures: c.failures.Load(), CalledOff: c.calledOff.Load()}
		if t := c.last.Load(); t != 0 {
			s.LastCosigned = time.Unix(0, t)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out
}

// NewWitnessClient returns the HTTP client that reaches the witnesses
// through meter, each request bounded by timeout. A witness answers at its
// own URL: a redirect is not followed (the policy names where each
// witness is).
func NewWitnessClient(meter *WitnessMeter, timeout time.Duration) *http.Client {
	return &http.Client{
		Transport:     meter,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// maxCosignatureReply bounds the add-checkpoint reply WitnessMeter reads
// (C2SP tlog-witness: the witness's cosignature lines, a few hundred
// bytes); tessera and the Trillian client then read it from memory.
const maxCosignatureReply = 64 << 10

// maxAddCheckpoint bounds the add-checkpoint request cosignedReply reads
// again (our own: "old N", a consistency proof of at most 63 hashes, the
// checkpoint, a few kilobytes).
const maxAddCheckpoint = 1 << 20

// cosignedReply reports whether resp, a witness's 200 reply to the
// add-checkpoint request req, holds a cosignature of req's checkpoint that
// verifies under v, and returns resp with its body, read, put back for
// the caller. A request whose body cannot be had again (no GetBody), or a
// reply that cannot be read, is no cosignature.
func cosignedReply(req *http.Request, resp *http.Response, v note.Verifier) (*http.Response, bool) {
	reply, err := io.ReadAll(io.LimitReader(resp.Body, maxCosignatureReply+1))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(reply))
	if err != nil || len(reply) > maxCosignatureReply || v == nil || req.GetBody == nil {
		return resp, false
	}
	body, err := req.GetBody()
	if err != nil {
		return resp, false
	}
	defer body.Close()
	sent, err := io.ReadAll(io.LimitReader(body, maxAddCheckpoint))
	if err != nil {
		return resp, false
	}
	// The request is "old N", the consistency proof's lines, a blank
	// line, then the checkpoint's signed note, whose text ends at its own
	// blank line: the cosignature lines sign that text.
	_, cp, ok := bytes.Cut(sent, []byte("\n\n"))
	if !ok {
		return resp, false
	}
	text, _, ok := bytes.Cut(cp, []byte("\n\n"))
	if !ok {
		return resp, false
	}
	cosigned := slices.Concat(text, []byte("\n\n"), reply)
	_, err = note.Open(cosigned, note.VerifierList(v))
	return resp, err == nil
}
