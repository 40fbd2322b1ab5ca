package rngd

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// SignalContext is done at the first SIGINT or SIGTERM: rngd then stops
// gracefully, rngctl stops what it was doing. The signals get their
// default action again before it is done, so a second one ends the
// process at once, however long stopping takes (durable state is then as
// safe as after a crash). With signal.NotifyContext, whose stop runs only
// when the caller returns, a second signal was swallowed.
func SignalContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-sig:
		case <-ctx.Done():
		}
		signal.Stop(sig)
		cancel()
	}()
	return ctx, cancel
}
