// Command latencylab-h3-target serves the reference target's HTTP/3 (quic-go) for the
// Python target (latencylab_tools/target/http3.py), which starts it as a child process
// on the UDP port with its TLS port's number. Python's aioquic spent more CPU per packet
// than a long link's round trip allows; the h1/h2/gRPC front-ends stay in Python.
//
// It prints one JSON line on stdout: {"event": "ready", "h3_port": N, "h3_server": ...}
// once listening, or {"event": "error", "error": "address_in_use", ...} when the port is
// taken (the parent then retries another port). It exits on SIGTERM/SIGINT, when its
// stdin reaches EOF, or when its parent dies, so an orphan never stays listening.
package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"latencylab.dev/native/internal/target"
)

// Receive windows large enough that a 10 MB transfer is not bound by flow control (the
// Python target's aioquic used the same); everything else stays at quic-go's defaults.
const (
	streamReceiveWindow     = 16 << 20
	connectionReceiveWindow = 64 << 20
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8443", "UDP host:port to listen on (port 0: a free port)")
	cert := flag.String("cert", "", "server certificate chain (PEM)")
	key := flag.String("key", "", "server private key (PEM)")
	contentDir := flag.String("content-dir", "", "response bodies written by the Python target (block, files/<name>)")
	flag.Parse()
	if err := run(*addr, *cert, *key, *contentDir); err != nil {
		fmt.Fprintln(os.Stderr, "latencylab-h3-target:", err)
		os.Exit(1)
	}
}

func run(addr, certFile, keyFile, contentDir string) error {
	// Before anything else: a SIGTERM right after the ready line must find the handler.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	exitWithParent()
	if certFile == "" || keyFile == "" || contentDir == "" {
		return errors.New("--cert, --key and --content-dir are required")
	}
	content, err := target.LoadContent(contentDir)
	if err != nil {
		return fmt.Errorf("loading content: %w", err)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return fmt.Errorf("loading TLS certificate: %w", err)
	}
	tlsConf := http3.ConfigureTLSConfig(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13})
	quicConf := &quic.Config{
		Allow0RTT:                      true, // the probe's `resumed` policy sends early data
		InitialStreamReceiveWindow:     streamReceiveWindow,
		MaxStreamReceiveWindow:         streamReceiveWindow,
		InitialConnectionReceiveWindow: connectionReceiveWindow,
		MaxConnectionReceiveWindow:     connectionReceiveWindow,
	}
	ln, err := quic.ListenAddrEarly(addr, tlsConf, quicConf)
	if errors.Is(err, syscall.EADDRINUSE) {
		announce(map[string]any{"event": "error", "error": "address_in_use", "detail": err.Error()})
		return err
	}
	if err != nil {
		return err
	}
	port := ln.Addr().(*net.UDPAddr).Port
	// alt-svc as the Python TLS front-ends send it (ServerOptions.common_headers).
	server := &http3.Server{Handler: &target.Handler{Content: content, AltSvc: target.AltSvcFor(port)}}
	served := make(chan error, 1)
	go func() { served <- server.ServeListener(ln) }()
	announce(map[string]any{"event": "ready", "h3_port": port, "h3_server": serverName()})

	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin) // returns at EOF: the parent closed the pipe or is gone
		stop()
	}()
	select {
	case <-ctx.Done():
	case err := <-served:
		return err
	}
	_ = server.Close()
	return ln.Close()
}

func announce(line map[string]any) {
	out, _ := json.Marshal(line)
	fmt.Println(string(out))
}

// serverName is "quic-go <version>" from the build information, for runs to record.
func serverName() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/quic-go/quic-go" {
				return "quic-go " + strings.TrimPrefix(dep.Version, "v")
			}
		}
	}
	return "quic-go"
}
