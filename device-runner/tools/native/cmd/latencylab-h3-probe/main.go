// latencylab-h3-probe is the host probe's HTTP/3 client: quic-go, driven by the Python
// probe (latencylab_tools/probe/http3.py) over stdin/stdout, one JSON document per line.
//
// Why native: aioquic in Python spends more CPU per packet than a long link's round trip
// leaves, so its HTTP/3 times grew with object size where a production client's do not
// (docs/methodology.md, "Peers"). The Python side keeps the sample contract; this program
// only measures.
//
// One process serves one probe session (one origin). Each command is one batch of
// requests issued at once on one QUIC connection (a batch of one is a plain fetch); every
// request's timestamps are integer microseconds from its own t0 on Go's monotonic clock.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
)

func main() {
	cfg := config{}
	flag.StringVar(&cfg.host, "host", "", "address or DNS name to connect to")
	flag.IntVar(&cfg.port, "port", 443, "UDP port")
	flag.StringVar(&cfg.serverName, "server-name", "", "TLS SNI and certificate name (default: host)")
	flag.StringVar(&cfg.authority, "authority", "", ":authority of the requests (default: host:port)")
	flag.StringVar(&cfg.caFile, "ca-file", "", "PEM file of trusted CAs (default: the system's roots)")
	flag.Parse()
	if cfg.host == "" {
		fmt.Fprintln(os.Stderr, "latencylab-h3-probe: --host is required")
		os.Exit(2)
	}
	client, err := newClient(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "latencylab-h3-probe:", err)
		os.Exit(2)
	}
	defer client.close()

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 128<<20) // request bodies travel base64-encoded in the line
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var cmd batchCommand
		if err := json.Unmarshal(in.Bytes(), &cmd); err != nil {
			fmt.Fprintln(os.Stderr, "latencylab-h3-probe: bad command:", err)
			os.Exit(2)
		}
		if err := out.Encode(client.run(cmd)); err != nil {
			os.Exit(1) // the probe went away
		}
	}
}
