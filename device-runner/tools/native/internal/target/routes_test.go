package target

import (
	"bytes"
	"testing"
	"time"
)

func TestPyReprMatchesPython(t *testing.T) {
	// Right-hand sides printed by CPython's repr().
	cases := map[string]string{
		"nope":       `'nope'`,
		"it's":       `"it's"`,
		`a"b`:        `'a"b'`,
		`both'"`:     `'both\'"'`,
		"tab\there":  `'tab\there'`,
		"nl\n":       `'nl\n'`,
		`bs\x`:       `'bs\\x'`,
		"é":          `'é'`,
		"\x00\x7f":   `'\x00\x7f'`,
		"\u200b":     `'\u200b'`,
		"\U0001F600": "'\U0001F600'",
		"\U000e0001": `'\U000e0001'`,
		"\u00a0":     `'\xa0'`,
		"ünï":        `'ünï'`,
	}
	for in, want := range cases {
		if got := pyRepr(in); got != want {
			t.Errorf("pyRepr(%q) = %s, want %s", in, got, want)
		}
	}
}

func testContent() *Content {
	block := make([]byte, BlockSize)
	for i := range block {
		block[i] = byte(i * 7)
	}
	return &Content{Files: map[string][]byte{"mid-01": []byte("jpeg")}, Block: block}
}

func body(r Response) []byte { return bytes.Join(r.Chunks, nil) }

func TestRoutes(t *testing.T) {
	c := testContent()
	cases := []struct {
		method, target string
		status         int
		text           string // the body, for text answers
		allow          string
	}{
		{"GET", "/healthz", 200, "ok\n", ""},
		{"HEAD", "/healthz?x=1", 200, "ok\n", ""},
		{"POST", "/healthz", 405, "method POST not allowed; use GET\n", "GET"},
		{"PUT", "/bytes/5", 405, "method PUT not allowed; use GET or POST\n", "GET, POST"},
		{"GET", "/bytes/+5", 400, "/bytes/{n}: n must be an integer in 0..50000000\n", ""},
		{"GET", "/bytes/", 400, "/bytes/{n}: n must be an integer in 0..50000000\n", ""},
		{"GET", "/bytes/50000001", 400, "/bytes/{n}: n must be an integer in 0..50000000\n", ""},
		{"GET", "/delay/60001", 400, "/delay/{ms}: ms must be an integer in 0..60000\n", ""},
		{"HEAD", "/echo", 405, "method HEAD not allowed; use POST\n", "POST"},
		{"GET", "/files/nope", 404, "/files/{name}: unknown file 'nope'; known: mid-01..mid-24, unity-1..unity-5\n", ""},
		{"GET", "/nowhere?q", 404, "no route for /nowhere\n", ""},
	}
	for _, tc := range cases {
		r := c.Route(tc.method, tc.target, nil)
		if r.Status != tc.status || string(body(r)) != tc.text || r.Allow != tc.allow ||
			r.Length != len(tc.text) || r.ContentType != "text/plain; charset=utf-8" {
			t.Errorf("%s %s: %d %q allow=%q len=%d %s", tc.method, tc.target, r.Status, body(r), r.Allow, r.Length,
				r.ContentType)
		}
	}
}

func TestBinaryRoutes(t *testing.T) {
	c := testContent()
	n := 2*BlockSize + 3
	r := c.Route("POST", "/bytes/2097155", make([]byte, 800))
	if r.Status != 200 || r.Length != n || !bytes.Equal(body(r), append(append(c.Block, c.Block...), c.Block[:3]...)) {
		t.Errorf("/bytes: %d, %d bytes", r.Status, r.Length)
	}
	if r := c.Route("GET", "/files/mid-01", nil); string(body(r)) != "jpeg" || r.ContentType != "image/jpeg" {
		t.Errorf("/files/mid-01: %q %s", body(r), r.ContentType)
	}
	if r := c.Route("POST", "/echo", []byte("hi")); string(body(r)) != "hi" || r.ContentType != "application/octet-stream" {
		t.Errorf("/echo: %q %s", body(r), r.ContentType)
	}
	if r := c.Route("POST", "/echo", make([]byte, MaxEchoBytes+1)); r.Status != 413 {
		t.Errorf("/echo oversize: %d", r.Status)
	}
	if r := c.Route("GET", "/delay/25", nil); r.Delay != 25*time.Millisecond || string(body(r)) != "ok" {
		t.Errorf("/delay/25: %v %q", r.Delay, body(r))
	}
	if got := ServerTiming(1234567 * time.Nanosecond); got != "app;dur=1.235" {
		t.Errorf("ServerTiming = %s", got)
	}
}
