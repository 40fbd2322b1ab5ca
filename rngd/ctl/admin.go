package ctl

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
)

// AdminSocketEnv names rngd's admin socket when --socket is not given (an
// operator sets it once to the config's admin.socket, e.g.
// /var/lib/tirage/admin.sock); without either, rngctl uses
// DefaultAdminSocket, rngd's default admin.socket for data_dir ./data.
const (
	AdminSocketEnv     = "RNGD_ADMIN_SOCKET"
	DefaultAdminSocket = "data/admin.sock"
)

// adminSocketHelp is the admin flags' usage text, shared by the groups
// that talk to rngd.
const adminSocketHelp = `  --socket PATH       rngd's admin socket (admin.socket in rngd's config); default
                      $` + AdminSocketEnv + `, else ` + DefaultAdminSocket + ` (relative to the
                      current directory: rngd's default for data_dir ./data)
`

// adminFlags are the flags of commands that talk to rngd's admin socket.
type adminFlags struct {
	socket, requestID string
	getenv            func(string) string

	// answered: the daemon sent a byte on a connection of this client.
	answered atomic.Bool
}

func (a *adminFlags) register(fs *flag.FlagSet, env Env) {
	a.getenv = env.Getenv
	fs.StringVar(&a.socket, "socket", "", "rngd's admin socket")
	fs.StringVar(&a.requestID, "request-id", "", "request id (default: derived from the command)")
}

// path is the admin socket: --socket, else $RNGD_ADMIN_SOCKET, else the
// default; from says where it came from, for messages ("" or the variable).
func (a *adminFlags) path() (path, from string) {
	if a.socket != "" {
		return a.socket, ""
	}
	if a.getenv != nil {
		if p := a.getenv(AdminSocketEnv); p != "" {
			return p, AdminSocketEnv
		}
	}
	return DefaultAdminSocket, ""
}

// what names the socket in messages.
func (a *adminFlags) what() string {
	p, from := a.path()
	if from != "" {
		return fmt.Sprintf("admin socket %s (%s)", p, from)
	}
	return "admin socket " + p
}

const (
	socketHintMissing = "(is rngd running? set --socket or " + AdminSocketEnv + ")"
	socketHintDenied  = "(rngd's admin.allowed_uids and the socket's mode decide who may connect)"
)

// socketError is one line saying why connecting to the admin socket failed.
func (a *adminFlags) socketError(err error) error {
	switch {
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%s: no such file %s", a.what(), socketHintMissing)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%s: connection refused, nothing answers there %s", a.what(), socketHintMissing)
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return fmt.Errorf("%s: permission denied %s", a.what(), socketHintDenied)
	}
	var se *net.OpError
	if errors.As(err, &se) && se.Err != nil {
		err = se.Err
	}
	return fmt.Errorf("%s: %v %s", a.what(), err, socketHintMissing)
}

// answerConn marks its client answered when the daemon sends a byte.
type answerConn struct {
	net.Conn
	answered *atomic.Bool
}

func (c answerConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.answered.Store(true)
	}
	return n, err
}

// dial connects to the admin socket; its own credentials are the socket's
// file permissions and the kernel's peer credentials. The first connection
// is made here, so that a missing socket, one nothing answers on or one
// this user may not open is one line before any call; gRPC is handed that
// connection and dials the same path for any later one.
func (a *adminFlags) dial(ctx context.Context) (adminv1.AdminClient, func(), error) {
	path, _ := a.path()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, nil, a.socketError(err)
	}
	var mu sync.Mutex
	first := net.Conn(conn)
	dialer := func(ctx context.Context, _ string) (net.Conn, error) {
		mu.Lock()
		c := first
		first = nil
		mu.Unlock()
		if c == nil {
			var d net.Dialer
			var err error
			if c, err = d.DialContext(ctx, "unix", path); err != nil {
				return nil, a.socketError(err)
			}
		}
		return answerConn{Conn: c, answered: &a.answered}, nil
	}
	cc, err := grpc.NewClient("passthrough:///localhost", grpc.WithContextDialer(dialer),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return adminv1.NewAdminClient(cc), func() {
		cc.Close()
		mu.Lock()
		if first != nil {
			first.Close()
		}
		mu.Unlock()
	}, nil
}

// fail reports a failed call to rngd. A connection closed before rngd
// said anything is named as such, not as gRPC's transport error: rngd
// closes so the connections of a user not in admin.allowed_uids (older
// rngd: every one; since PERMISSION_DENIED answers them, those beyond the
// few it serves at once).
func (a *adminFlags) fail(env Env, err error) int {
	if status.Code(err) == codes.Unavailable && !a.answered.Load() {
		err = fmt.Errorf("%s: closed without an answer (rngd may refuse so a user not in its admin.allowed_uids; this is uid %d)", a.what(), syscall.Getuid())
	}
	return fail(env, err)
}

// id is the request id of a call: --request-id, or one derived from the
// call's method and every field of its request (fields: its deterministic
// encodings, the request id left empty), so that running the same command
// again is a retry, which returns the first call's result, and a command
// that differs in anything is a new request, which gets rngd's own answer.
func (a *adminFlags) id(method string, fields ...[]byte) string {
	if a.requestID != "" {
		return a.requestID
	}
	return deriveRequestID(method, fields...)
}

func deriveRequestID(method string, fields ...[]byte) string {
	h := sha256.New()
	h.Write([]byte("tirage rngctl request id v2\x00" + method + "\x00"))
	for _, f := range fields {
		h.Write(binary.AppendUvarint(nil, uint64(len(f))))
		h.Write(f)
	}
	return "rngctl-" + hex.EncodeToString(h.Sum(nil)[:16])
}

// encoding is m's deterministic encoding, for id.
func encoding(m proto.Message) ([]byte, error) {
	return proto.MarshalOptions{Deterministic: true}.Marshal(m)
}

// fail prints one line and returns the exit code of a failed operation.
func fail(env Env, err error) int {
	msg := err.Error()
	if st, ok := status.FromError(err); ok {
		msg = fmt.Sprintf("%s (%s)", st.Message(), st.Code())
	}
	fmt.Fprintln(env.Stderr, "rngctl:", msg)
	return ExitFail
}
