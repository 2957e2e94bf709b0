// peer-h3fileserver is a production HTTP/3 server for the benchmarks' peer cross-checks:
// quic-go's http3.Server with its defaults serving a directory through net/http's
// FileServer, nothing of LatencyLab's. It exits when its stdin closes.
//
//	peer-h3fileserver --listen 198.18.0.2:9444 --cert server.pem --key server.key --root DIR
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/quic-go/quic-go/http3"
)

func main() {
	listen := flag.String("listen", "", "host:port (UDP)")
	cert := flag.String("cert", "", "PEM certificate chain")
	key := flag.String("key", "", "PEM private key")
	root := flag.String("root", "", "directory to serve")
	flag.Parse()
	go func() { // the benchmark's end: stdin closed
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	server := &http3.Server{Addr: *listen, Handler: http.FileServer(http.Dir(*root))}
	if err := server.ListenAndServeTLS(*cert, *key); err != nil {
		fmt.Fprintln(os.Stderr, "peer-h3fileserver:", err)
		os.Exit(1)
	}
}
