// peer-h3get is a production HTTP/3 client for the benchmarks' peer cross-checks: quic-go's
// own http3.Transport, nothing of LatencyLab's, with the flow-control windows Chrome's QUIC
// announces (6 MB per stream, 15 MB per connection; quic-go's defaults start at 512 KB and
// grow only as the transfer proves the need, which on a fresh connection over a long link
// costs round trips no browser or Cronet app pays). Like `curl -w
// '%{time_total}'`, it fetches the URLs in order (one connection per origin, reused) and
// prints each transfer's total milliseconds and body bytes.
//
//	peer-h3get --cacert ca.pem https://198.18.0.2:8443/files/mid-01 ...
package main

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// Chrome's QUIC receive windows (net/quic: kQuicStreamMaxRecvWindowSize, kQuicSessionMaxRecvWindowSize).
const (
	chromeStreamWindow     = 6 * 1024 * 1024
	chromeConnectionWindow = 15 * 1024 * 1024
)

func main() {
	caFile := flag.String("cacert", "", "PEM file of trusted CAs (default: the system's roots)")
	flag.Parse()
	tlsConf := &tls.Config{}
	if *caFile != "" {
		pem, err := os.ReadFile(*caFile)
		if err != nil {
			fail(err)
		}
		tlsConf.RootCAs = x509.NewCertPool()
		tlsConf.RootCAs.AppendCertsFromPEM(pem)
	}
	transport := &http3.Transport{TLSClientConfig: tlsConf, QUICConfig: &quic.Config{
		InitialStreamReceiveWindow:     chromeStreamWindow,
		MaxStreamReceiveWindow:         chromeStreamWindow,
		InitialConnectionReceiveWindow: chromeConnectionWindow,
		MaxConnectionReceiveWindow:     chromeConnectionWindow,
	}}
	defer transport.Close()
	client := &http.Client{Transport: transport}
	for _, url := range flag.Args() {
		start := time.Now()
		resp, err := client.Get(url)
		if err != nil {
			fail(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			fail(err)
		}
		if resp.StatusCode != http.StatusOK {
			fail(fmt.Errorf("%s: HTTP %d", url, resp.StatusCode))
		}
		fmt.Printf("%.3f %d\n", float64(time.Since(start).Microseconds())/1000, n)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "peer-h3get:", err)
	os.Exit(1)
}
