//go:build cgo

package pkcs11

import (
	"fmt"
	"sync"
	"time"

	p11 "github.com/miekg/pkcs11"
)

// PrivateAttributes reads the protection attributes of the private key label.
func (t *Token) PrivateAttributes(label string) (map[string]bool, error) {
	return call(t, t.timeout, func(sh p11.SessionHandle) (map[string]bool, error) {
		objs, err := t.objects(sh, label)
		if err != nil || len(objs) != 1 {
			return nil, fmt.Errorf("find %q: %d objects, %v", label, len(objs), err)
		}
		out := map[string]bool{}
		names := map[uint]string{p11.CKA_SENSITIVE: "CKA_SENSITIVE", p11.CKA_EXTRACTABLE: "CKA_EXTRACTABLE",
			p11.CKA_ALWAYS_SENSITIVE: "CKA_ALWAYS_SENSITIVE", p11.CKA_NEVER_EXTRACTABLE: "CKA_NEVER_EXTRACTABLE",
			p11.CKA_TOKEN: "CKA_TOKEN", p11.CKA_PRIVATE: "CKA_PRIVATE"}
		for ty, name := range names {
			a, err := t.attrs(sh, objs[0].priv, ty)
			if err != nil {
				return nil, err
			}
			out[name] = isTrue(a[ty])
		}
		return out, nil
	})
}

// ReadPrivateValue tries to read the secret value of the private key label
// (CKA_PRIVATE_EXPONENT for RSA, CKA_VALUE for EC); nil means the token gave it.
func (t *Token) ReadPrivateValue(label string) error {
	return t.session(func(sh p11.SessionHandle) error {
		objs, err := t.objects(sh, label)
		if err != nil || len(objs) != 1 {
			return fmt.Errorf("find %q: %v", label, err)
		}
		ty := uint(p11.CKA_VALUE)
		if objs[0].keyType == p11.CKK_RSA {
			ty = p11.CKA_PRIVATE_EXPONENT
		}
		a, err := t.attrs(sh, objs[0].priv, ty)
		if err != nil {
			return err
		}
		if len(a[ty]) == 0 {
			return fmt.Errorf("empty value")
		}
		return nil
	})
}

// DestroyKey deletes the key pair label from the token behind the back of
// provers and signers already handed out.
func (t *Token) DestroyKey(label string) error {
	return t.session(func(sh p11.SessionHandle) error {
		objs, err := t.objects(sh, label)
		if err != nil {
			return err
		}
		for _, o := range objs {
			if err := t.ctx.DestroyObject(sh, o.priv); err != nil {
				return err
			}
			if o.pubs != 1 {
				continue
			}
			if err := t.ctx.DestroyObject(sh, o.pub); err != nil {
				return err
			}
		}
		return nil
	})
}

// WithoutEdDSA makes t behave as a token without CKM_EDDSA.
func (t *Token) WithoutEdDSA() { t.eddsa = false }

// StallSigns makes the signing calls of t block before C_SignInit, as on a
// token that stopped answering, until release is called.
func (t *Token) StallSigns() (release func()) {
	ch := make(chan struct{})
	t.beforeSign = func() { <-ch }
	return sync.OnceFunc(func() { close(ch) })
}

// Stuck is the number of calls still running after their caller timed out.
func (t *Token) Stuck() int64 { return t.stuck.Load() }

// StallOpen makes the next opens of a token block before C_Login, as on a
// token that stopped answering, until release is called.
func StallOpen() (release func()) {
	ch := make(chan struct{})
	f := func() { <-ch }
	beforeLogin.Store(&f)
	return sync.OnceFunc(func() { beforeLogin.Store(nil); close(ch) })
}

// LoadedModules reports the PKCS#11 libraries loaded in this process and
// the number of open tokens of each, by resolved path.
func LoadedModules() map[string]int {
	modules.Lock()
	defer modules.Unlock()
	out := map[string]int{}
	for _, m := range modules.list {
		out[m.path] += m.refs
	}
	return out
}

// SetClock makes now the clock of t's reopen rate limit.
func (t *Token) SetClock(now func() time.Time) {
	t.state.Lock()
	defer t.state.Unlock()
	t.now = now
}

// ReopenEvery is the least time between two attempts to reopen a lost token.
const ReopenEvery = reopenEvery

// CloseSessions closes every session of t's application on its slot behind
// its back, as a network HSM that dropped its link does.
func (t *Token) CloseSessions() error {
	t.state.Lock()
	slot := t.slot
	t.state.Unlock()
	return t.ctx.CloseAllSessions(slot)
}
