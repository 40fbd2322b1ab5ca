package rngd

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"google.golang.org/grpc/grpclog"
)

// RouteGRPCLogs sends gRPC's own log lines to logger, as JSON records like
// the daemon's, instead of gRPC's default plain-text lines on stderr. Only
// errors are kept, as gRPC's default logger keeps them; its info and
// warning lines (one per rejected connection, a scanner's flood) and its
// verbose levels stay off. gRPC reads its logger without a lock: call it
// once, before any gRPC server or client exists (rngd's main does).
func RouteGRPCLogs(logger *slog.Logger) {
	grpclog.SetLoggerV2(grpcLogger{logger})
}

// grpcLogger is grpclog.LoggerV2 over slog. Fatal logs, then exits as
// gRPC's own logger does (gRPC calls it only on a broken invariant).
type grpcLogger struct{ l *slog.Logger }

func (g grpcLogger) log(level slog.Level, msg string) {
	g.l.Log(context.Background(), level, msg, "component", "grpc")
}

func (grpcLogger) Info(...any)             {}
func (grpcLogger) Infoln(...any)           {}
func (grpcLogger) Infof(string, ...any)    {}
func (grpcLogger) Warning(...any)          {}
func (grpcLogger) Warningln(...any)        {}
func (grpcLogger) Warningf(string, ...any) {}
func (grpcLogger) V(int) bool              { return false }

func (g grpcLogger) Error(args ...any)   { g.log(slog.LevelError, fmt.Sprint(args...)) }
func (g grpcLogger) Errorln(args ...any) { g.log(slog.LevelError, sprintln(args)) }
func (g grpcLogger) Errorf(format string, args ...any) {
	g.log(slog.LevelError, fmt.Sprintf(format, args...))
}

func (g grpcLogger) Fatal(args ...any)   { g.fatal(fmt.Sprint(args...)) }
func (g grpcLogger) Fatalln(args ...any) { g.fatal(sprintln(args)) }
func (g grpcLogger) Fatalf(format string, args ...any) {
	g.fatal(fmt.Sprintf(format, args...))
}

func (g grpcLogger) fatal(msg string) {
	g.log(slog.LevelError+4, msg)
	os.Exit(1)
}

// sprintln is fmt.Sprintln without its newline (a record is one line).
func sprintln(args []any) string {
	s := fmt.Sprintln(args...)
	return s[:len(s)-1]
}
