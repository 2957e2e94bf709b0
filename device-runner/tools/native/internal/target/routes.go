package target

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Bounds of routes.py (MAX_BYTES, MAX_DELAY_MS, MAX_ECHO_BYTES).
const (
	MaxBytes     = 50_000_000
	MaxDelayMs   = 60_000
	MaxEchoBytes = 50_000_000
)

// Response is what a route answers, before the transport adds its common headers.
type Response struct {
	Status      int
	ContentType string
	Chunks      [][]byte
	Length      int
	Delay       time.Duration
	Allow       string // the Allow header of a 405, else ""
}

func text(status int, message string) Response {
	body := []byte(message + "\n")
	return Response{Status: status, ContentType: "text/plain; charset=utf-8", Chunks: [][]byte{body}, Length: len(body)}
}

func binary(data [][]byte, n int, contentType string) Response {
	return Response{Status: 200, ContentType: contentType, Chunks: data, Length: n}
}

// intParam accepts only plain decimal digits, as routes._int_param: "+5", " 5", "1e3"
// and "0x10" are rejected so that bounds are unambiguous.
func intParam(raw string) (int, bool) {
	if raw == "" || len(raw) > 12 {
		return 0, false
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] < '0' || raw[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(raw)
	return n, err == nil
}

// need answers 405 unless method is allowed (HEAD is allowed wherever GET is).
func need(method string, allowed ...string) (Response, bool) {
	for _, m := range allowed {
		if method == m || (m == "GET" && method == "HEAD") {
			return Response{}, true
		}
	}
	resp := text(405, fmt.Sprintf("method %s not allowed; use %s", method, strings.Join(allowed, " or ")))
	resp.Allow = strings.Join(allowed, ", ")
	return resp, false
}

// Route is routes.handle: target is the request target as received (a query string is ignored).
func (c *Content) Route(method, target string, body []byte) Response {
	path, _, _ := strings.Cut(target, "?")
	switch {
	case path == "/healthz":
		if wrong, ok := need(method, "GET"); !ok {
			return wrong
		}
		return text(200, "ok")
	case strings.HasPrefix(path, "/bytes/"):
		// POST too: the payload sweep sends an 800-byte request body.
		if wrong, ok := need(method, "GET", "POST"); !ok {
			return wrong
		}
		if len(body) > MaxEchoBytes {
			return text(413, fmt.Sprintf("/bytes/{n}: request body must be at most %d bytes", MaxEchoBytes))
		}
		n, ok := intParam(strings.TrimPrefix(path, "/bytes/"))
		if !ok || n > MaxBytes {
			return text(400, fmt.Sprintf("/bytes/{n}: n must be an integer in 0..%d", MaxBytes))
		}
		return binary(c.byteChunks(n), n, "application/octet-stream")
	case strings.HasPrefix(path, "/delay/"):
		if wrong, ok := need(method, "GET"); !ok {
			return wrong
		}
		ms, ok := intParam(strings.TrimPrefix(path, "/delay/"))
		if !ok || ms > MaxDelayMs {
			return text(400, fmt.Sprintf("/delay/{ms}: ms must be an integer in 0..%d", MaxDelayMs))
		}
		return Response{Status: 200, ContentType: "text/plain", Chunks: [][]byte{[]byte("ok")}, Length: 2,
			Delay: time.Duration(ms) * time.Millisecond}
	case path == "/echo":
		if wrong, ok := need(method, "POST"); !ok {
			return wrong
		}
		if len(body) > MaxEchoBytes {
			return text(413, fmt.Sprintf("/echo: body must be at most %d bytes", MaxEchoBytes))
		}
		return binary([][]byte{body}, len(body), "application/octet-stream")
	case strings.HasPrefix(path, "/files/"):
		if wrong, ok := need(method, "GET"); !ok {
			return wrong
		}
		name := strings.TrimPrefix(path, "/files/")
		data, ok := c.Files[name]
		if !ok {
			return text(404, fmt.Sprintf("/files/{name}: unknown file %s; known: mid-01..mid-24, unity-1..unity-5",
				pyRepr(prefix(name, 64))))
		}
		return binary([][]byte{data}, len(data), "image/jpeg")
	}
	return text(404, "no route for "+prefix(path, 128))
}

// ServerTiming is the Server-Timing value: ms with µs precision (routes.server_timing).
func ServerTiming(d time.Duration) string {
	return fmt.Sprintf("app;dur=%.3f", float64(d.Nanoseconds())/1e6)
}
