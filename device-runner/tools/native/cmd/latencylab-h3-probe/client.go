package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

const userAgent = "latencylab-probe/0.1"

// Large receive windows, as the other probe clients announce (probe/h2core.py): a download
// is limited by the network, not by flow-control round trips.
const (
	streamWindow     = 16 << 20
	connectionWindow = 64 << 20
)

type config struct {
	host, serverName, authority, caFile string
	port                                int
}

type batchCommand struct {
	Requests      []wireRequest `json:"requests"`
	NewConnection bool          `json:"new_connection"`
	UseTicket     bool          `json:"use_ticket"` // resumed policy: TLS session tickets, 0-RTT for GET/HEAD
	Keep          bool          `json:"keep"`       // warm policy: keep the connection after a clean batch
	TimeoutMs     int           `json:"timeout_ms"`
	KeepBody      bool          `json:"keep_body"`
}

type wireRequest struct {
	Method  string      `json:"method"`
	Path    string      `json:"path"`
	Headers [][2]string `json:"headers"`
	Body    []byte      `json:"body"` // base64 in JSON
}

type batchResult struct {
	Results []requestResult `json:"results"`
	Conn    connInfo        `json:"conn"`
}

type connInfo struct {
	ID         string  `json:"id"`
	ALPN       *string `json:"alpn"`
	TLSResumed bool    `json:"tls_resumed"`
	EarlyData  bool    `json:"early_data"`
	SrttUs     *int64  `json:"srtt_us"`
	Lost       *uint64 `json:"retrans"`
	Open       bool    `json:"open"` // kept for the next batch
}

// requestResult's IssuedUs is when the request was issued, µs after the batch's first, on this
// process's monotonic clock: the caller places the batch on its own monotonic clock, so a
// wall-clock step between two streams of a batch cannot move them (sample issued_mono_us).
type requestResult struct {
	WallTimeUs   int64            `json:"wall_time_us"`
	IssuedUs     int64            `json:"issued_us"`
	Times        map[string]int64 `json:"times"` // µs from this request's t0
	ConnReused   bool             `json:"conn_reused"`
	Status       *int             `json:"status"`
	ServerTiming *string          `json:"server_timing"`
	Server       *string          `json:"server"`
	RespBytes    *int             `json:"resp_bytes"`
	Body         []byte           `json:"body,omitempty"`
	ErrorClass   *string          `json:"error_class"`
	ErrorDetail  *string          `json:"error_detail"`
}

// timeline stamps phases relative to one request's t0; safe from trace callbacks.
type timeline struct {
	mu    sync.Mutex
	t0    time.Time
	times map[string]int64
}

func newTimeline() *timeline { return &timeline{t0: time.Now(), times: map[string]int64{}} }

func (t *timeline) markAt(name string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, done := t.times[name]; !done {
		t.times[name] = max(0, at.Sub(t.t0).Microseconds())
	}
}

func (t *timeline) mark(name string) { t.markAt(name, time.Now()) }

func (t *timeline) snapshot() map[string]int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]int64, len(t.times))
	for k, v := range t.times {
		out[k] = v
	}
	return out
}

// connection is one QUIC connection with its HTTP/3 client and what we learnt opening it.
type connection struct {
	id        string
	quic      *quic.Conn
	h3        *http3.ClientConn
	readyAt   chan time.Time // handshake completion time (0-RTT dials return before it)
	transport *http3.Transport
}

type client struct {
	cfg      config
	tls      *tls.Config
	sessions tls.ClientSessionCache // resumed policy: tickets outlive connections
	conn     *connection
}

func newClient(cfg config) (*client, error) {
	tlsConf := &tls.Config{ServerName: cfg.serverName, NextProtos: []string{http3.NextProtoH3}}
	if tlsConf.ServerName == "" {
		tlsConf.ServerName = cfg.host
	}
	if cfg.caFile != "" { // otherwise the system's roots; verification is never turned off
		pem, err := os.ReadFile(cfg.caFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("no certificate in %s", cfg.caFile)
		}
		tlsConf.RootCAs = pool
	}
	if cfg.authority == "" {
		cfg.authority = net.JoinHostPort(tlsConf.ServerName, strconv.Itoa(cfg.port))
	}
	return &client{cfg: cfg, tls: tlsConf, sessions: tls.NewLRUClientSessionCache(8)}, nil
}

func (c *client) close() { c.drop() }

func (c *client) drop() {
	if c.conn != nil {
		_ = c.conn.quic.CloseWithError(0, "")
		c.conn = nil
	}
}

// run issues a batch: request 0's t0 is the batch's start (a new connection is opened on
// its timeline), the others' when each is issued on the connection.
func (c *client) run(cmd batchCommand) batchResult {
	timeout := time.Duration(max(cmd.TimeoutMs, 1)) * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	n := len(cmd.Requests)
	results := make([]requestResult, n)
	if n == 0 {
		return batchResult{Results: results}
	}
	first := newTimeline()
	firstWall := time.Now().UnixMicro()
	reused := !cmd.NewConnection && c.conn != nil && c.conn.quic.Context().Err() == nil
	zeroRTT := cmd.UseTicket && n == 1 && (cmd.Requests[0].Method == http.MethodGet || cmd.Requests[0].Method == http.MethodHead)
	if !reused {
		c.drop()
		conn, err := c.dial(ctx, first, cmd.UseTicket, zeroRTT)
		if err != nil {
			class, detail := classify(err, true)
			first.mark("app_done")
			for i := range results {
				results[i] = requestResult{WallTimeUs: firstWall, Times: first.snapshot(), ErrorClass: &class, ErrorDetail: &detail}
				if i > 0 {
					results[i].Times = map[string]int64{}
				}
			}
			return batchResult{Results: results}
		}
		c.conn = conn
	}
	conn := c.conn
	var wg sync.WaitGroup
	for i, req := range cmd.Requests {
		tl, wall := first, firstWall
		if i > 0 {
			tl, wall = newTimeline(), time.Now().UnixMicro()
		}
		wg.Add(1)
		go func(i int, req wireRequest, tl *timeline, wall int64) {
			defer wg.Done()
			results[i] = c.exchange(ctx, conn, req, tl, zeroRTT && i == 0, cmd.KeepBody)
			results[i].WallTimeUs = wall
			results[i].IssuedUs = max(0, tl.t0.Sub(first.t0).Microseconds())
			results[i].ConnReused = reused || i > 0
		}(i, req, tl, wall)
	}
	wg.Wait()
	if !reused {
		// The handshake's completion on request 0's timeline. With 0-RTT the response can
		// come before it; waiting for it here costs the measurement nothing.
		select {
		case at := <-conn.readyAt:
			first.markAt("conn_ready", at)
			results[0].Times["conn_ready"] = first.snapshot()["conn_ready"]
		case <-ctx.Done():
		case <-conn.quic.Context().Done():
		}
	}
	info := c.describe(conn)
	clean := true
	for _, r := range results {
		clean = clean && r.ErrorClass == nil
	}
	if cmd.Keep && clean && conn.quic.Context().Err() == nil {
		info.Open = true
	} else {
		c.drop()
	}
	return batchResult{Results: results, Conn: info}
}

func (c *client) dial(ctx context.Context, tl *timeline, useTicket, zeroRTT bool) (*connection, error) {
	host := c.cfg.host
	if net.ParseIP(host) == nil {
		tl.mark("dns_start")
		addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			return nil, &dnsError{host: host, err: err}
		}
		tl.mark("dns_end")
		host = addrs[0].IP.String()
	}
	tlsConf := c.tls.Clone()
	if useTicket {
		tlsConf.ClientSessionCache = c.sessions
	}
	quicConf := &quic.Config{
		InitialStreamReceiveWindow:     streamWindow,
		MaxStreamReceiveWindow:         streamWindow,
		InitialConnectionReceiveWindow: connectionWindow,
		MaxConnectionReceiveWindow:     connectionWindow,
		Allow0RTT:                      zeroRTT,
	}
	addr := net.JoinHostPort(host, strconv.Itoa(c.cfg.port))
	start := time.Now()
	tl.markAt("conn_start", start)
	tl.markAt("tls_start", start) // QUIC: the crypto handshake starts with the connection
	var qc *quic.Conn
	var err error
	if zeroRTT {
		qc, err = quic.DialAddrEarly(ctx, addr, tlsConf, quicConf)
	} else {
		qc, err = quic.DialAddr(ctx, addr, tlsConf, quicConf)
	}
	if err != nil {
		return nil, err
	}
	conn := &connection{id: randomID(), quic: qc, readyAt: make(chan time.Time, 1)}
	select {
	case <-qc.HandshakeComplete(): // DialAddr returns after the handshake; so does a 0-RTT dial without a ticket
		conn.readyAt <- time.Now()
	default: // 0-RTT: the request may leave before the handshake completes
		go func() {
			select {
			case <-qc.HandshakeComplete():
				conn.readyAt <- time.Now()
			case <-qc.Context().Done():
			}
		}()
	}
	return conn.withH3(), nil
}

func (conn *connection) withH3() *connection {
	conn.transport = &http3.Transport{}
	conn.h3 = conn.transport.NewClientConn(conn.quic)
	return conn
}

func (c *client) exchange(ctx context.Context, conn *connection, wr wireRequest, tl *timeline, zeroRTT, keepBody bool) requestResult {
	res := requestResult{}
	fail := func(err error) requestResult {
		class, detail := classify(err, false)
		res.ErrorClass, res.ErrorDetail = &class, &detail
		tl.mark("app_done")
		res.Times = tl.snapshot()
		return res
	}
	method := wr.Method
	if zeroRTT {
		method = map[string]string{http.MethodGet: http3.MethodGet0RTT, http.MethodHead: http3.MethodHead0RTT}[wr.Method]
	}
	trace := &httptrace.ClientTrace{
		WroteRequest:         func(httptrace.WroteRequestInfo) { tl.mark("req_end") },
		GotFirstResponseByte: func() { tl.mark("resp_first_byte") },
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), method,
		"https://"+c.cfg.authority+wr.Path, bytes.NewReader(wr.Body))
	if err != nil {
		return fail(err)
	}
	req.Host = c.cfg.authority
	req.ContentLength = int64(len(wr.Body))
	if len(wr.Body) == 0 && wr.Method != http.MethodPost && wr.Method != http.MethodPut && wr.Method != http.MethodPatch {
		req.Body = http.NoBody
	}
	req.Header.Set("User-Agent", userAgent)
	for _, h := range wr.Headers {
		req.Header.Add(h[0], h[1])
	}
	tl.mark("req_start")
	resp, err := conn.h3.RoundTrip(req)
	if err != nil {
		return fail(err)
	}
	tl.mark("resp_headers_end")
	var body []byte
	if keepBody { // the probe's callers read some bodies (gRPC-free checks, tests); most only count bytes
		body, err = io.ReadAll(resp.Body)
	} else {
		var n int64
		n, err = io.Copy(io.Discard, resp.Body)
		res.RespBytes = ptr(int(n))
	}
	_ = resp.Body.Close()
	if err != nil {
		return fail(err)
	}
	tl.mark("resp_end")
	tl.mark("app_done")
	if keepBody {
		res.Body = body
		res.RespBytes = ptr(len(body))
	}
	res.Status = ptr(resp.StatusCode)
	if v := resp.Header.Get("Server-Timing"); v != "" {
		res.ServerTiming = &v
	}
	if v := resp.Header.Get("Server"); v != "" {
		res.Server = &v
	}
	res.Times = tl.snapshot()
	return res
}

func (c *client) describe(conn *connection) connInfo {
	state := conn.quic.ConnectionState()
	info := connInfo{ID: conn.id, TLSResumed: state.TLS.DidResume, EarlyData: state.Used0RTT}
	if p := state.TLS.NegotiatedProtocol; p != "" {
		info.ALPN = &p
	}
	stats := conn.quic.ConnectionStats()
	if stats.SmoothedRTT > 0 {
		info.SrttUs = ptr(stats.SmoothedRTT.Microseconds())
	}
	info.Lost = ptr(stats.PacketsLost)
	return info
}

type dnsError struct {
	host string
	err  error
}

func (e *dnsError) Error() string { return fmt.Sprintf("cannot resolve %s: %v", e.host, e.err) }

// noApplicationProtocol is TLS alert 120 carried as a QUIC CRYPTO_ERROR: the server does
// not speak h3 (RFC 9001 §4.8).
const noApplicationProtocol = quic.TransportErrorCode(0x100 + 120)

// classify maps an error to the sample contract's error_class (device-runner/contract/sample.schema.json).
func classify(err error, dialing bool) (string, string) {
	detail := err.Error()
	var dnsErr *dnsError
	var transportErr *quic.TransportError
	var appErr *quic.ApplicationError
	var streamErr *quic.StreamError
	var h3Err *http3.Error
	var resetErr *quic.StatelessResetError
	var idleErr *quic.IdleTimeoutError
	var handshakeTimeout *quic.HandshakeTimeoutError
	var certErr *tls.CertificateVerificationError
	var opErr *net.OpError
	switch {
	case errors.As(err, &dnsErr):
		return "dns", detail
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &idleErr), errors.As(err, &handshakeTimeout):
		return "timeout", detail
	case errors.As(err, &transportErr) && transportErr.ErrorCode == noApplicationProtocol:
		return "protocol_mismatch", "server refused ALPN h3: " + detail
	case errors.As(err, &certErr), dialing && errors.As(err, &transportErr) && transportErr.ErrorCode.IsCryptoError():
		return "tls", detail
	case errors.As(err, &opErr) && opErr.Op != "read" && opErr.Op != "write":
		return "connect", detail
	case dialing && errors.As(err, &opErr):
		return "connect", detail
	case errors.As(err, &transportErr), errors.As(err, &appErr), errors.As(err, &streamErr), errors.As(err, &h3Err),
		errors.As(err, &resetErr):
		return "reset", detail
	}
	return "other", detail
}

func randomID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func ptr[T any](v T) *T { return &v }
