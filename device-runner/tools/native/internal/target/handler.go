package target

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Handler serves Content's routes with the headers every Python front-end sends.
type Handler struct {
	Content *Content
	// AltSvc is ServerOptions.common_headers()'s alt-svc value ("" sends none), sent
	// only to a request whose arm is h3 (ArmProtocolHeader), as the Python front-ends do.
	AltSvc string
}

// ArmProtocolHeader names the protocol of the arm a request belongs to (transport.py's
// ARM_PROTOCOL_HEADER): Alt-Svc is advertised to h3 arms only, so that no client moves an
// h2 arm onto h3 after reading it.
const ArmProtocolHeader = "Latencylab-Arm-Protocol"

// WantsH3 is transport.py's wants_h3.
func WantsH3(armProtocol string) bool {
	return strings.EqualFold(strings.TrimSpace(armProtocol), "h3")
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The Server-Timing clock starts when the request, body included, is complete: the
	// Python front-ends start it when the bytes completing the request arrive.
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxEchoBytes+1))
	if err != nil {
		return // the client reset the stream
	}
	complete := time.Now()
	resp := h.Content.Route(r.Method, r.RequestURI, body)
	if resp.Delay > 0 {
		timer := time.NewTimer(resp.Delay)
		select {
		case <-timer.C:
		case <-r.Context().Done():
			timer.Stop()
			return
		}
	}
	header := w.Header()
	header["Date"] = nil // the Python target sends none; nil keeps quic-go from adding one
	header.Set("Content-Type", resp.ContentType)
	header.Set("Content-Length", strconv.Itoa(resp.Length))
	if resp.Allow != "" {
		header.Set("Allow", resp.Allow)
	}
	if h.AltSvc != "" && WantsH3(r.Header.Get(ArmProtocolHeader)) {
		header.Set("Alt-Svc", h.AltSvc)
	}
	header.Set("Server-Timing", ServerTiming(time.Since(complete)))
	w.WriteHeader(resp.Status)
	if r.Method == http.MethodHead {
		return
	}
	for _, chunk := range resp.Chunks {
		if _, err := w.Write(chunk); err != nil {
			return // the client went away mid-response
		}
	}
}

// AltSvcFor is the alt-svc value the TLS front-ends advertise for an h3 port.
func AltSvcFor(port int) string {
	return `h3=":` + strconv.Itoa(port) + `"; ma=86400`
}
